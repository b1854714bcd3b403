"""The label store in this process's memory (the default: no ``[state] url``)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from ._labels import (
    DEFAULT_MAX_LABELS,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MAX_TRUSTED,
    check_labels,
)

if TYPE_CHECKING:
    from ._provenance import Provenance


class _Session:
    __slots__ = ("labels", "overflow", "pairs", "tokens", "trusted")

    def __init__(self) -> None:
        self.labels: set[str] = set()
        self.tokens: dict[str, set[str]] = {}
        """token -> the labels of the results it appeared in."""
        self.pairs = 0
        self.trusted: set[str] = set()
        self.overflow: set[str] = set()


class MemoryLabelStore:
    """Labels and tokens per session in this process; thread-safe; LRU over sessions."""

    def __init__(
        self,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_trusted: int = DEFAULT_MAX_TRUSTED,
        max_labels: int = DEFAULT_MAX_LABELS,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        self.max_tokens = max_tokens
        self.max_trusted = max_trusted
        self.max_labels = max_labels
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return "this process's memory"

    def _session(self, session: str) -> _Session:
        """The session's state, made if new (caller holds the lock)."""
        state = self._sessions.get(session)
        if state is None:
            state = self._sessions[session] = _Session()
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session)
        return state

    def _add_labels(self, state: _Session, session: str, labels: tuple[str, ...]) -> None:
        new = set(labels) - state.labels
        if new and len(state.labels) + len(new) > self.max_labels:
            # Imported here: the approval store's module is not otherwise needed at start.
            from ._contract import StoreError

            raise StoreError(f"session {session!r} would carry more than {self.max_labels} labels")
        state.labels |= new

    def add_labels(self, session: str, labels: Iterable[str]) -> None:
        checked = check_labels(labels)
        with self._lock:
            self._add_labels(self._session(session), session, checked)

    def labels(self, session: str) -> frozenset[str]:
        with self._lock:
            state = self._sessions.get(session)
            return frozenset(state.labels) if state is not None else frozenset()

    def record(self, session: str, labels: Collection[str], tokens: Collection[str]) -> None:
        checked = check_labels(labels)
        if not checked:
            return
        with self._lock:
            state = self._session(session)
            self._add_labels(state, session, checked)
            index = state.tokens
            for label in checked:
                if label in state.overflow:
                    continue
                for token in tokens:
                    held = index.get(token)
                    if held is not None and label in held:
                        continue
                    if state.pairs >= self.max_tokens:
                        state.overflow.add(label)
                        break
                    if held is None:
                        index[token] = {label}
                    else:
                        held.add(label)
                    state.pairs += 1

    def trust(self, session: str, tokens: Collection[str]) -> None:
        with self._lock:
            state = self._session(session)
            room = self.max_trusted - len(state.trusted)
            for token in tokens:
                if room <= 0:
                    break
                if token not in state.trusted:
                    state.trusted.add(token)
                    room -= 1

    def provenance(
        self, session: str, tokens: Collection[str], labels: Collection[str]
    ) -> Provenance | None:
        wanted = frozenset(labels)
        with self._lock:
            state = self._sessions.get(session)
            if state is None or not wanted:
                return None
            index = state.tokens
            trusted = state.trusted
            for token in tokens:
                held = index.get(token)
                if held is not None and token not in trusted:
                    hit = wanted.intersection(held)
                    if hit:
                        from ._provenance import Provenance  # its class made at the first hit

                        return Provenance(token=token, labels=hit)
            overflowed = wanted.intersection(state.overflow)
            if overflowed:
                for token in tokens:
                    if token not in trusted:
                        from ._provenance import Provenance

                        return Provenance(token=token, labels=overflowed, overflow=True)
            return None

    def forget(self, session: str) -> None:
        with self._lock:
            self._sessions.pop(session, None)

    def close(self) -> None:
        return None
