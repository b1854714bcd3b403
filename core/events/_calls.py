"""Calls rebuilt from their logged events: the one reader behind ``toolhooks whatif``, the desk's
calls feed and its summaries.

An event is a log line (a mapping: the envelope ``event``, ``ts``, ``trace_id``, ``call_id``,
``session_id``, ``tool``, ``plugin``, then the stage's fields). Every event of a call is folded
into its :class:`RecordedCall` by :meth:`RecordedCall.read` (status, decision, reason, approvals,
times); the events a reader asks to keep are kept with it, in order.

Two ways to read a log:

- :class:`CallReader` hands out each call when it has ended, in the order calls were proposed.
  A call's events are interleaved with other calls' (threads, sessions, processes writing one
  folder). A call has ended when its last event is read: ``tool.injected``, or
  ``approval.deferred`` for a call that paused (its resume may come days later; what the policy
  decided is known by then, and the resume's events are not a new call). A call still running
  holds back the ones proposed after it, up to ``max_open`` calls; beyond that the oldest is given
  up as incomplete. Memory is bounded by the calls in flight, not by the log.
- :func:`latest_calls` folds every event of every call, resumes included, and keeps the newest
  ``max_calls`` calls as they stand now (running, pending, or done).

A call is rebuilt only from what the log kept; when it did not keep the params as proposed the
call is not replayed, never guessed (:attr:`RecordedCall.problem` says why).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._names import (
    APPROVAL_DEFERRED,
    APPROVAL_REQUESTED,
    APPROVAL_RESOLVED,
    CALL_ENDS,
    TOOL_BLOCKED,
    TOOL_INJECTED,
    TOOL_PROPOSED,
)

MAX_OPEN = 20_000
"""Calls waiting for their end (or for an earlier call's) at most; the oldest goes beyond this."""
MAX_GONE = 100_000
"""Paused and given-up calls remembered, so that their later events (a resume's) are not taken
for a new call."""
NO_PROPOSAL = "the log has no tool.proposed for it (an invalid proposal, or not kept)"
INCOMPLETE = "the log has no end for it (still running, or the process stopped)"
_REDACTED = re.compile(r"\[\s*redacted\b[^\]]*\]", re.IGNORECASE)


@dataclass(slots=True, kw_only=True)
class RecordedCall:
    """One call as its logged events tell it, filled in while the log is read."""

    call_id: str
    seq: int = 0
    """Its place among the calls read (1 for the first)."""
    trace_id: str | None = None
    session_id: str | None = None
    tool: str | None = None
    ts: float | None = None
    """When its first event was logged."""
    updated: float | None = None
    """When its last event read was logged."""
    status: str = "running"
    """``running``, ``pending`` (an approval asked or deferred), then ``tool.injected``'s status."""
    decision: str | None = None
    """``approval.resolved``'s decision, and who made it."""
    decided_by: str | None = None
    reason: str | None = None
    """``tool.blocked``'s reason."""
    approval_ids: list[str] = field(default_factory=list)
    count: int = 0
    """Events read for it."""
    events: list[Mapping[str, Any]] = field(default_factory=list)
    """The events the reader kept (``tool.proposed`` never: it is :attr:`proposal`)."""
    proposal: dict[str, Any] | None = None
    """The ToolCall fields, rebuilt from ``tool.proposed``; None when it cannot be replayed."""
    tags: tuple[str, ...] = ()
    """The tool's tags when it was proposed."""
    problem: str | None = None
    """Why the call cannot be replayed (None: it can)."""
    ended: bool = False

    @property
    def params(self) -> Mapping[str, Any]:
        return (self.proposal or {}).get("params") or {}

    def read(self, event: Mapping[str, Any]) -> None:
        """Fold one of the call's events into what is known of it."""
        ts = event.get("ts")
        if isinstance(ts, (int, float)):
            if self.ts is None:
                self.ts = float(ts)
            self.updated = float(ts)
        for key in ("trace_id", "session_id", "tool"):
            value = event.get(key)
            if isinstance(value, str) and getattr(self, key) is None:
                setattr(self, key, value)
        self.count += 1
        approval_id = event.get("approval_id")
        if isinstance(approval_id, str) and approval_id not in self.approval_ids:
            self.approval_ids.append(approval_id)
        name = event.get("event")
        if name in (APPROVAL_DEFERRED, APPROVAL_REQUESTED):
            self.status = "pending"
        elif name == APPROVAL_RESOLVED:
            decision, by = event.get("decision"), event.get("by")
            self.decision = decision if isinstance(decision, str) else None
            self.decided_by = by if isinstance(by, str) else None
        elif name == TOOL_BLOCKED:
            reason = event.get("reason")
            self.reason = reason if isinstance(reason, str) else self.reason
        elif name == TOOL_INJECTED:
            status = event.get("status")
            self.status = status if isinstance(status, str) else "unknown"

    def summary(self) -> dict[str, Any]:
        """What the desk shows for the call (its API's ``Call``): ids, tool, status, decision."""
        return {
            "call_id": self.call_id,
            "trace_id": self.trace_id,
            "session_id": self.session_id,
            "tool": self.tool,
            "started": self.ts or 0.0,
            "updated": self.updated or 0.0,
            "status": self.status,
            "decision": self.decision,
            "decided_by": self.decided_by,
            "reason": self.reason,
            "approval_ids": self.approval_ids,
            "events": self.count,
        }


def rebuilt(line: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The call a ``tool.proposed`` line describes, or None and why it cannot be replayed."""
    if line.get("_truncated"):
        return None, "params cut for size (the line was over max_line_bytes)"
    params = line.get("params")
    if not isinstance(params, dict):
        return None, "params not in the log"
    if _redacted(params, 0):
        return None, "params redacted"
    tool = line.get("tool")
    if not isinstance(tool, str) or not tool:
        return None, "no tool name"
    sender: Any = line.get("sender")
    detail = line.get("sender_detail")
    if isinstance(sender, str) and isinstance(detail, dict):
        sender = {"id": sender, **detail}
    call: dict[str, Any] = {
        "name": tool,
        "params": params,
        "id": line.get("call_id"),
        "trace_id": line.get("trace_id"),
        "session_id": line.get("session_id"),
        "agent_id": line.get("agent_id"),
        "sender": sender,
        "origin": line.get("origin") or "agent",
        "run_id": line.get("run_id"),
        "context_window_tokens": line.get("context_window_tokens"),
    }
    return call, None


def _redacted(value: Any, depth: int) -> bool:
    """A value a redacting copy of the log replaced (``[REDACTED]``, ``[redacted: key]``)."""
    if isinstance(value, str):
        return len(value) < 200 and _REDACTED.fullmatch(value.strip()) is not None
    if depth > 20:
        return False
    if isinstance(value, dict):
        return any(_redacted(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(_redacted(item, depth + 1) for item in value)
    return False


def _call_of(event: Mapping[str, Any]) -> str | None:
    """The event's call id; None for an event that belongs to no call (``plugin.unlocked``, a
    chain checkpoint, an export header)."""
    call_id = event.get("call_id")
    if not isinstance(call_id, str) or not call_id or not isinstance(event.get("event"), str):
        return None
    return call_id


class CallReader:
    """Groups events by call and hands out each call when it has ended, in proposal order.

    ``keep(name)`` says which events a call keeps in :attr:`RecordedCall.events` (none by
    default: every event is still read into the call's fields).
    """

    def __init__(self, keep: Callable[[str], bool] | None = None, max_open: int = MAX_OPEN) -> None:
        self._keep = keep
        self._open: OrderedDict[str, RecordedCall] = OrderedDict()
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._max_open = max_open
        self._seq = 0

    def feed(self, events: Iterable[Mapping[str, Any]]) -> Iterator[RecordedCall]:
        """Every call of ``events``, then the ones left open at the end (as incomplete)."""
        open_calls = self._open
        keep = self._keep
        for event in events:
            call_id = _call_of(event)
            if call_id is None:
                continue
            name = event["event"]
            call = open_calls.get(call_id)
            if call is None:
                if call_id in self._gone:
                    continue  # the resume of a call already handed out
                call = self._open_call(call_id, event)
            call.read(event)
            if name == TOOL_PROPOSED:
                continue
            if keep is not None and keep(name):
                call.events.append(event)
            if name in CALL_ENDS:
                call.ended = True
                if name == APPROVAL_DEFERRED:
                    self._mark_gone(call_id)
                if next(iter(open_calls)) == call_id:
                    yield from self._ready()
            elif len(open_calls) > self._max_open:
                yield self._give_up()
                yield from self._ready()
        while open_calls:
            call = open_calls.popitem(last=False)[1]
            if not call.ended:
                call.problem = call.problem or INCOMPLETE
            yield call

    def _open_call(self, call_id: str, event: Mapping[str, Any]) -> RecordedCall:
        self._seq += 1
        call = RecordedCall(call_id=call_id, seq=self._seq)
        if event.get("event") == TOOL_PROPOSED:
            call.proposal, call.problem = rebuilt(event)
            tags = event.get("tags")
            if isinstance(tags, list) and all(isinstance(tag, str) for tag in tags):
                call.tags = tuple(tags)
        else:
            call.problem = NO_PROPOSAL
        self._open[call_id] = call
        return call

    def _mark_gone(self, call_id: str) -> None:
        self._gone[call_id] = None
        if len(self._gone) > MAX_GONE:
            self._gone.popitem(last=False)

    def _ready(self) -> Iterator[RecordedCall]:
        open_calls = self._open
        while open_calls:
            first = next(iter(open_calls.values()))
            if not first.ended:
                return
            open_calls.popitem(last=False)
            yield first

    def _give_up(self) -> RecordedCall:
        call = self._open.popitem(last=False)[1]
        if not call.ended:
            call.problem = call.problem or INCOMPLETE
            self._mark_gone(call.call_id)  # its late events are not a new call
        return call


def latest_calls(
    events: Iterable[Mapping[str, Any]], max_calls: int
) -> OrderedDict[str, RecordedCall]:
    """Every call of ``events`` as it stands after them, oldest first, the newest ``max_calls``
    kept: a resumed call's events go on folding into the call its proposal opened."""
    calls: OrderedDict[str, RecordedCall] = OrderedDict()
    seq = 0
    for event in events:
        call_id = _call_of(event)
        if call_id is None:
            continue
        call = calls.get(call_id)
        if call is None:
            seq += 1
            call = calls[call_id] = RecordedCall(call_id=call_id, seq=seq)
            if len(calls) > max_calls:
                calls.popitem(last=False)
        call.read(event)
    return calls
