"""The embedded counters: exact within one process, bounded, least recently used forgotten.

A rate is a sliding window log: the admission times of the calls still inside the window, so
"5 per minute" admits a sixth call exactly one minute after the first, never a burst of ten at
a window boundary. A count is a number that is forgotten after ``window_ms`` without calls.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from typing import Protocol

from ._rules import Limit

Check = tuple[Limit, str]
"""A limit and the key of the counter it checks for this call."""
Refusal = tuple[int, float | None]
"""The position of the first check that refused, and (for a rate) seconds until it admits."""


class Counters(Protocol):
    """Where counters live. ``admit`` checks every limit and counts the call in all or none."""

    def admit(self, checks: Sequence[Check]) -> Refusal | None: ...

    def reset(self) -> int: ...


class _Entry:
    __slots__ = ("count", "times", "touched")

    def __init__(self) -> None:
        self.count = 0
        self.times: deque[float] = deque()
        self.touched = 0.0


class MemoryCounters:
    """Counters in this process (the default without ``[state] url``)."""

    def __init__(self, max_keys: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_keys = max_keys
        self.clock = clock
        """Seconds, monotonic; tests pass their own."""
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def admit(self, checks: Sequence[Check]) -> Refusal | None:
        now = self.clock() * 1000.0
        with self._lock:
            entries = [self._entry(key) for _, key in checks]
            for position, ((limit, _), entry) in enumerate(zip(checks, entries, strict=True)):
                if limit.rate:
                    times = entry.times
                    while times and times[0] <= now - limit.window_ms:
                        times.popleft()
                    if len(times) >= limit.calls:
                        return position, (times[0] + limit.window_ms - now) / 1000.0
                else:
                    if entry.count and now - entry.touched >= limit.window_ms:
                        entry.count = 0  # idle past its expiry: forgotten, as in Redis
                    if entry.count >= limit.calls:
                        return position, None
            for (limit, _), entry in zip(checks, entries, strict=True):
                if limit.rate:
                    entry.times.append(now)
                else:
                    entry.count += 1
                entry.touched = now
            return None

    def _entry(self, key: str) -> _Entry:
        entries = self._entries
        entry = entries.get(key)
        if entry is None:
            entry = entries[key] = _Entry()
            if len(entries) > self.max_keys:
                entries.popitem(last=False)
        else:
            entries.move_to_end(key)
        return entry

    def reset(self) -> int:
        with self._lock:
            count = len(self._entries)
            self._entries.clear()
            return count
