"""The label store: what a session has been labelled with, and where its values came from.

``rules`` (and any plugin) keeps here, per session: the labels the session carries (``session``
conditions), the tokens of each labelled result with the result's labels, and the tokens of the
session's trusted input (what the user said: ``from`` conditions hold only for a token that came
from a labelled result and not from the user). Texts are never kept, only token sets: a ``from``
check is a handful of set look-ups, whatever the size of the results behind it.

Bounds, per session: ``max_tokens`` (token, label) pairs of results, ``max_trusted`` trusted
tokens, ``max_labels`` labels. Past the result bound the store fails closed: the labels of the
result that did not fit are marked *overflowed*, and from then on any token of a value that is
not trusted counts as coming from a result with those labels (the store can no longer say it
did not). Past the trusted bound new trusted tokens are not kept (less is trusted: closed too).
Past the label bound a ``StoreError`` is raised. A whole session is forgotten after
``ttl_s`` without writes (Redis, SQLite) or when more than ``max_sessions`` sessions are held
(memory, least recently used first): a session that comes back after that starts clean.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ._provenance import Provenance

DEFAULT_MAX_TOKENS = 200_000
"""(token, label) pairs per session: about 2 MB of result text at 10 bytes a token."""
DEFAULT_MAX_TRUSTED = 20_000
DEFAULT_MAX_LABELS = 256
DEFAULT_MAX_SESSIONS = 10_000
DEFAULT_TTL_S = 86_400


@runtime_checkable
class LabelStore(Protocol):
    """Per-session labels, labelled result tokens and trusted tokens (see the module docstring).

    Every method may raise ``StoreError`` (the store could not be read or written); a caller that
    makes a security decision on the answer fails closed on it.
    """

    max_tokens: int

    def add_labels(self, session: str, labels: Iterable[str]) -> None:
        """The session carries ``labels`` from now on."""

    def labels(self, session: str) -> frozenset[str]:
        """The labels the session carries."""

    def record(self, session: str, labels: Collection[str], tokens: Collection[str]) -> None:
        """A result with ``labels`` held ``tokens``: the session carries the labels, and each
        token counts as coming from a result with them."""

    def trust(self, session: str, tokens: Collection[str]) -> None:
        """``tokens`` are in the session's trusted input (the user's words)."""

    def provenance(
        self, session: str, tokens: Collection[str], labels: Collection[str]
    ) -> Provenance | None:
        """The first of ``tokens`` that came from a result carrying one of ``labels`` and is not
        trusted, or None. Which one is first is not specified (any would do as the reason)."""

    def forget(self, session: str) -> None:
        """Drop everything about the session."""

    def close(self) -> None:
        """Release connections (the state stays where it is kept)."""


def check_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """The labels as a tuple; a label must be a non-empty string of at most 128 characters."""
    checked = tuple(labels)
    for label in checked:
        if not isinstance(label, str) or not label or len(label) > 128:
            raise ValueError(f"a label is a non-empty string of at most 128 characters: {label!r}")
    return checked
