"""result_budget: keeps each tool result within its share of the model's context window.

Over-budget results keep their head (plus the tail when it looks like an error or a summary),
JSON-like results are summarized structurally, and the full text goes to a content-addressed
artifact store that :func:`read_artifact` (or the ``read_artifact_tool`` tool) pages through.

The config models are imported when first used (PEP 562): a runtime with no
``[plugins.result_budget]`` table never builds them (see :class:`toolhooks.kit.LazyConfig`).
"""

from typing import TYPE_CHECKING

from toolhooks.kit import lazy_exports

if TYPE_CHECKING:
    from ._artifact_page import ArtifactPage
    from ._artifacts import (
        ArtifactNotFoundError,
        ArtifactStore,
        parse_ref,
        read_artifact,
        read_artifact_page,
        read_artifact_tool,
    )
    from ._config import ResultBudgetConfig, Tier
    from ._defaults import DEFAULT_TAIL_PATTERNS
    from ._labels import artifact_labels, artifact_named, artifact_paged, keep_artifact_labels
    from ._plugin import ResultBudgetPlugin

# Each name is imported when first used (PEP 562): loading the plugin imports what it runs on.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            (
                "ArtifactNotFoundError",
                "ArtifactStore",
                "parse_ref",
                "read_artifact",
                "read_artifact_page",
                "read_artifact_tool",
            ),
            "._artifacts",
        ),
        "ResultBudgetConfig": "._config",
        "Tier": "._config",
        "DEFAULT_TAIL_PATTERNS": "._defaults",
        **dict.fromkeys(
            ("artifact_labels", "artifact_named", "artifact_paged", "keep_artifact_labels"),
            "._labels",
        ),
        "ArtifactPage": "._artifact_page",
        "ResultBudgetPlugin": "._plugin",
    },
)


__all__ = [
    "DEFAULT_TAIL_PATTERNS",
    "ArtifactNotFoundError",
    "ArtifactPage",
    "ArtifactStore",
    "ResultBudgetConfig",
    "ResultBudgetPlugin",
    "Tier",
    "artifact_labels",
    "artifact_named",
    "artifact_paged",
    "keep_artifact_labels",
    "parse_ref",
    "read_artifact",
    "read_artifact_page",
    "read_artifact_tool",
]
