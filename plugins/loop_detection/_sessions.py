"""Where this process keeps its sessions (an LRU of states), the contract a shared store
(_shared.py) meets as well, and the calls waiting between before_tool_call and after_tool_call.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol, TypeVar

from ._state import SessionKey, SessionState

T = TypeVar("T")
_STRIPES = 64
"""Session states share this many locks (by hash of the session id); held for microseconds."""


class SessionStore:
    """Session states by session id, least recently used evicted beyond ``limit``; O(1) a call."""

    __slots__ = ("_lock", "_recent", "_sessions", "_stripes", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._sessions: OrderedDict[SessionKey, SessionState] = OrderedDict()
        self._lock = threading.Lock()
        self._stripes = tuple(threading.Lock() for _ in range(_STRIPES))
        self._recent: tuple[SessionKey, SessionState] | None = None
        """The most recently used session: an agent's calls come in runs from one session, and
        for those the LRU is already in order: the lock and the reordering are skipped
        (BENCHMARKS.md, choices made for speed)."""

    def get(self, key: SessionKey) -> SessionState:
        """The state for ``key``, created when new, and marked most recently used."""
        recent = self._recent  # one read: the pair cannot tear
        if recent is not None and recent[0] == key:
            return recent[1]
        sessions = self._sessions
        with self._lock:
            state = sessions.get(key)
            if state is None:
                state = sessions[key] = SessionState(self._stripes[hash(key) % _STRIPES])
                if len(sessions) > self.limit:
                    sessions.popitem(last=False)
            else:
                sessions.move_to_end(key)
            self._recent = (key, state)
            return state

    def update(self, key: SessionKey, change: Callable[[SessionState], T]) -> T:
        """``change(state)`` under the session's lock (the state is created when new)."""
        state = self.get(key)
        with state.lock:
            return change(state)

    def update_existing(self, key: SessionKey, change: Callable[[SessionState], T]) -> T | None:
        """``change(state)`` under its lock if the session still exists (recency unchanged)."""
        state = self.peek(key)
        if state is None:
            return None
        with state.lock:
            return change(state)

    def peek(self, key: SessionKey) -> SessionState | None:
        """The state for ``key`` without creating it or changing its recency."""
        recent = self._recent
        if recent is not None and recent[0] == key:
            return recent[1]
        with self._lock:
            return self._sessions.get(key)

    def discard(self, key: SessionKey) -> bool:
        with self._lock:
            self._recent = None
            return self._sessions.pop(key, None) is not None

    def clear(self) -> None:
        with self._lock:
            self._recent = None
            self._sessions.clear()

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, key: object) -> bool:
        return key in self._sessions


class Sessions(Protocol):
    """Where session states live: this process (SessionStore) or Redis (_shared.py).

    ``update`` runs a change on a session's state atomically: under its lock here; as a
    compare-and-set (rerun on a concurrent write) in Redis, so ``change`` must touch nothing but
    the state it is given.
    """

    def update(self, key: SessionKey, change: Callable[[SessionState], T]) -> T: ...

    def update_existing(self, key: SessionKey, change: Callable[[SessionState], T]) -> T | None: ...

    def peek(self, key: SessionKey) -> SessionState | None: ...

    def discard(self, key: SessionKey) -> bool: ...

    def clear(self) -> None: ...

    def __len__(self) -> int: ...

    def __contains__(self, key: object) -> bool: ...


PendingKey = tuple[SessionKey, str]
Pending = tuple[SessionKey, int, str | None, bool, bool]
"""session, seq, message, critical, new (the window did not hold the call's signature)."""


class PendingCalls(OrderedDict[PendingKey, Pending]):
    """Calls that passed before_tool_call and wait for after_tool_call; oldest dropped at limit.

    No lock of its own: every operation is one OrderedDict operation, atomic in CPython (and
    locked per object in the free-threaded build). Two threads adding at once may each drop one
    oldest call: the map stays bounded either way, and the two locks it took are saved. The
    map itself, not a wrapper around one: ``in`` and ``pop(key, None)`` are then C calls
    (BENCHMARKS.md, choices made for speed).
    """

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def put(self, key: PendingKey, item: Pending) -> None:
        self[key] = item
        if len(self) > self.limit:
            self.drop_oldest()

    def drop_oldest(self) -> None:
        with contextlib.suppress(KeyError):  # another thread emptied it meanwhile
            self.popitem(last=False)
