"""The calls feed: the JSONL event log read back as one summary per call, and one call's timeline.

The log is read again only when one of its files changed (size or modification time), so a page
that polls it costs a ``stat`` per file while nothing happens.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..plugins.event_log import log_files, read_events, verify

MAX_CALLS = 20_000
"""Calls kept in memory (oldest out first): a long log does not grow the desk without bound."""


@dataclass(slots=True, kw_only=True)
class CallSummary:
    """What the feed shows for one call: its ids, tool, last known status and decision."""

    call_id: str
    trace_id: str | None = None
    session_id: str | None = None
    tool: str | None = None
    started: float = 0.0
    updated: float = 0.0
    status: str = "running"
    decision: str | None = None
    decided_by: str | None = None
    reason: str | None = None
    approval_ids: list[str] = field(default_factory=list)
    events: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


def _fold(summary: CallSummary, event: dict[str, Any]) -> None:
    name = event.get("event")
    ts = event.get("ts")
    if isinstance(ts, (int, float)):
        summary.started = summary.started or float(ts)
        summary.updated = float(ts)
    for key in ("trace_id", "session_id", "tool"):
        value = event.get(key)
        if isinstance(value, str) and getattr(summary, key) is None:
            setattr(summary, key, value)
    summary.events += 1
    approval_id = event.get("approval_id")
    if isinstance(approval_id, str) and approval_id not in summary.approval_ids:
        summary.approval_ids.append(approval_id)
    if name == "approval.deferred" or name == "approval.requested":
        summary.status = "pending"
    elif name == "approval.resolved":
        decision, by = event.get("decision"), event.get("by")
        summary.decision = decision if isinstance(decision, str) else None
        summary.decided_by = by if isinstance(by, str) else None
    elif name == "tool.blocked":
        reason = event.get("reason")
        summary.reason = reason if isinstance(reason, str) else summary.reason
    elif name == "tool.injected":
        status = event.get("status")
        summary.status = status if isinstance(status, str) else "unknown"


UNREADABLE_SHOWN = 20


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
        self._calls: OrderedDict[str, CallSummary] = OrderedDict()
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

    def _refresh(self) -> OrderedDict[str, CallSummary]:
        stamp = self._stamp()
        with self._lock:
            if stamp != self._seen:
                calls: OrderedDict[str, CallSummary] = OrderedDict()
                unreadable: list[str] = []
                count = 0

                def skipped(name: str, line: int, reason: str) -> None:
                    nonlocal count
                    count += 1
                    if len(unreadable) < UNREADABLE_SHOWN:
                        unreadable.append(f"{name}:{line}: {reason}")

                for event in read_events(self.path, include_rotated=True, on_skip=skipped):
                    call_id = event.get("call_id")
                    if not isinstance(call_id, str) or not call_id:  # plugin.unlocked: no call
                        continue
                    summary = calls.get(call_id)
                    if summary is None:
                        summary = calls[call_id] = CallSummary(call_id=call_id)
                        if len(calls) > MAX_CALLS:
                            calls.popitem(last=False)
                    _fold(summary, event)
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
    ) -> list[CallSummary]:
        """Calls newest first, each filter an exact match (None: any)."""
        wanted = {"session_id": session, "trace_id": trace, "tool": tool, "status": status}
        found: list[CallSummary] = []
        for summary in reversed(self._refresh().values()):
            if all(v is None or getattr(summary, k) == v for k, v in wanted.items()):
                found.append(summary)
                if len(found) >= limit:
                    break
        return found

    def call(self, call_id: str) -> CallSummary | None:
        return self._refresh().get(call_id)

    def timeline(self, call_id: str) -> list[dict[str, Any]]:
        """Every event of one call, oldest first (what ``toolhooks logs --call`` prints)."""
        return list(self._events_of(call_id))

    def _events_of(self, call_id: str) -> Iterator[dict[str, Any]]:
        for event in read_events(self.path, include_rotated=True):
            if event.get("call_id") == call_id:
                yield event
