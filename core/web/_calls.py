"""The calls feed: the JSONL event log read back as one summary per call (the calls the events
reader rebuilds, ``toolhooks.events._calls``), and one call's timeline.

The log is read again only when one of its files changed (size or modification time), so a page
that polls it costs a ``stat`` per file while nothing happens.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..events._calls import RecordedCall, latest_calls
from ..plugins.event_log import log_files, read_events, verify

MAX_CALLS = 20_000
"""Calls kept in memory (oldest out first): a long log does not grow the desk without bound."""
UNREADABLE_SHOWN = 20
"""Unreadable lines the page lists by place; the rest are only counted."""


def _chain_state(path: Path) -> str:
    try:
        report = verify(log_files(path, include_rotated=True))
    except OSError as error:
        return f"the log's chain cannot be read: {error}"
    if not report.chained:
        return "the log is not hash-chained"
    if not report.ok:
        return f"the log shows tampering: {report.problems[0]} (toolhooks logs verify)"
    if report.chained:
        return f"hash chain verified: {report.chained} lines in {report.writers} chain(s)"
    return "the log is not hash-chained"


class CallLog:
    """The event log at ``path`` (rotated files included), summarised per call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._seen: tuple[tuple[str, int, int], ...] | None = None
        self._calls: OrderedDict[str, RecordedCall] = OrderedDict()
        self.unreadable: list[str] = []
        """``file:line: reason`` of the first lines no reader can show (the page lists them)."""
        self.unreadable_count = 0
        self._chain: tuple[object, str] = (None, "")
        """(the log's stamp, its chain state): verified for the page only, once per change."""

    def _stamp(self) -> tuple[tuple[str, int, int], ...]:
        stamp = []
        for name in log_files(self.path, include_rotated=True):
            try:
                info = os.stat(name)
            except OSError:
                continue
            stamp.append((name, info.st_size, info.st_mtime_ns))
        return tuple(stamp)

    def version(self) -> str:
        """Changes whenever the log does (what the live feed compares)."""
        return repr(self._stamp())

    def _refresh(self) -> OrderedDict[str, RecordedCall]:
        stamp = self._stamp()
        with self._lock:
            if stamp != self._seen:
                unreadable: list[str] = []
                count = 0

                def skipped(name: str, line: int, reason: str) -> None:
                    nonlocal count
                    count += 1
                    if len(unreadable) < UNREADABLE_SHOWN:
                        unreadable.append(f"{name}:{line}: {reason}")

                events = read_events(self.path, include_rotated=True, on_skip=skipped)
                calls = latest_calls(events, MAX_CALLS)
                self._calls, self._seen = calls, stamp
                self.unreadable, self.unreadable_count = unreadable, count
            return self._calls

    def chain(self) -> str:
        """The log's hash chain state, as the calls page shows it. Verifying hashes the whole
        log, so it is done here, when the page asks and the log has changed, not on every
        refresh the API and the live stream make."""
        stamp = self._stamp()
        with self._lock:
            seen, state = self._chain
            if seen != stamp:
                state = _chain_state(self.path)
                self._chain = (stamp, state)
            return state

    def calls(
        self,
        *,
        session: str | None = None,
        trace: str | None = None,
        tool: str | None = None,
        status: str | None = None,
        limit: int = 100,
    ) -> list[RecordedCall]:
        """Calls newest first, each filter an exact match (None: any)."""
        wanted = {"session_id": session, "trace_id": trace, "tool": tool, "status": status}
        found: list[RecordedCall] = []
        for summary in reversed(self._refresh().values()):
            if all(v is None or getattr(summary, k) == v for k, v in wanted.items()):
                found.append(summary)
                if len(found) >= limit:
                    break
        return found

    def call(self, call_id: str) -> RecordedCall | None:
        return self._refresh().get(call_id)

    def timeline(self, call_id: str) -> list[dict[str, Any]]:
        """Every event of one call, oldest first (what ``toolhooks logs --call`` prints)."""
        return list(self._events_of(call_id))

    def _events_of(self, call_id: str) -> Iterator[dict[str, Any]]:
        for event in read_events(self.path, include_rotated=True):
            if event.get("call_id") == call_id:
                yield event
