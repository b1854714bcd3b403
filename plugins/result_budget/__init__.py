"""result_budget: keeps each tool result within its share of the model's context window.

Over-budget results keep their head (plus the tail when it looks like an error or a summary),
JSON-like results are summarized structurally, and the full text goes to a content-addressed
artifact store that :func:`read_artifact` (or the ``read_artifact_tool`` tool) pages through.
"""

from ._artifacts import (
    ArtifactNotFoundError,
    ArtifactStore,
    parse_ref,
    read_artifact,
    read_artifact_page,
    read_artifact_tool,
)
from ._config import DEFAULT_TAIL_PATTERNS, ResultBudgetConfig, Tier
from ._pages import ArtifactPage
from ._plugin import ResultBudgetPlugin

__all__ = [
    "DEFAULT_TAIL_PATTERNS",
    "ArtifactNotFoundError",
    "ArtifactPage",
    "ArtifactStore",
    "ResultBudgetConfig",
    "ResultBudgetPlugin",
    "Tier",
    "parse_ref",
    "read_artifact",
    "read_artifact_page",
    "read_artifact_tool",
]
