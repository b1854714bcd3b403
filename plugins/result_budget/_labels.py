"""A trimmed result's artifact carries its result's labels.

The label store (``rt.label_store``) keeps them under a key of the artifact's own (artifacts are
content-addressed and any session may be handed a reference), written when the labels of the
trimmed result are kept and read when a call's result is a page of the artifact
(``read_artifact_tool``'s header): that call gets the same labels, so its tokens are followed as
the trimmed result's would have been. The labels of an artifact live as a session's do
(``ttl_s`` after the last write, one day by default), less than the artifact itself (seven days).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from toolhooks.stores import LabelStore

_NAMED: Final = re.compile(r"\[full result stored as artifact (sha256:[0-9a-f]{64});")
"""The trimming notice (``_trim.notice``) that names a result's artifact."""
_PAGED: Final = re.compile(r"\[artifact (sha256:[0-9a-f]{64}): ")
"""The first line of a page of an artifact (``ArtifactPage.header``)."""
_KEY: Final = "\x1fartifact:"
"""Label store sessions of artifacts: a separator no session id of an adapter holds."""


def artifact_named(content: str) -> str | None:
    """The artifact a trimmed result's text names, or None."""
    match = _NAMED.search(content)
    return None if match is None else match.group(1)


def artifact_paged(content: str) -> str | None:
    """The artifact a result is a page of (``read_artifact_tool``), or None."""
    match = _PAGED.match(content) if content.startswith("[artifact sha256:") else None
    return None if match is None else match.group(1)


def keep_artifact_labels(store: LabelStore, content: str, labels: list[str]) -> None:
    """When ``content`` is a trimmed result's text, its artifact carries ``labels`` too."""
    ref = artifact_named(content)
    if ref is not None and labels:
        store.add_labels(_KEY + ref, labels)


def artifact_labels(store: LabelStore, content: str) -> tuple[str, frozenset[str]] | None:
    """When ``content`` is a page of an artifact: the artifact and the labels it carries."""
    ref = artifact_paged(content)
    if ref is None:
        return None
    return ref, store.labels(_KEY + ref)
