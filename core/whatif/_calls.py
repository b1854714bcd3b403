"""Recorded calls rebuilt from the log's events, one at a time, in the order they were proposed.

A call's events are interleaved with other calls' (threads, sessions, processes writing one
folder). A call is ready when its last event is read: ``tool.injected``, or ``approval.deferred``
for a call that paused (its resume may come days later; what the policy decided is known by
then). Calls are handed out in the order of their ``tool.proposed``, so a call still running holds
back the ones proposed after it, up to :data:`MAX_OPEN` calls; beyond that the oldest is given up
as incomplete. Memory is bounded by the calls in flight, not by the log.

A call is rebuilt only from what the log kept; when it did not keep the params as proposed the
call is not replayed, never guessed (:attr:`RecordedCall.problem` says why).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._decision import wanted

MAX_OPEN = 20_000
"""Calls waiting for their end (or for an earlier call's) at most; the oldest goes beyond this."""
MAX_GONE = 100_000
"""Paused and given-up calls remembered, so that their later events (a resume's) are not taken
for a new call."""
_REDACTED = re.compile(r"\[\s*redacted\b[^\]]*\]", re.IGNORECASE)
NO_PROPOSAL = "the log has no tool.proposed for it (an invalid proposal, or not kept)"
INCOMPLETE = "the log has no end for it (still running, or the process stopped)"


@dataclass(slots=True, kw_only=True)
class RecordedCall:
    """One call as the log has it: the proposal, the events its decision is read from."""

    call_id: str
    seq: int
    proposal: dict[str, Any] | None = None
    """The ToolCall fields, rebuilt; None when the call cannot be replayed."""
    tool: str = ""
    session_id: str | None = None
    ts: float | None = None
    events: list[Mapping[str, Any]] = field(default_factory=list)
    tags: tuple[str, ...] = ()
    problem: str | None = None
    """Why the call cannot be replayed (None: it can)."""
    ended: bool = False

    @property
    def params(self) -> Mapping[str, Any]:
        return (self.proposal or {}).get("params") or {}


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


class Assembler:
    """Groups events by call and hands out each call when it is ready, in proposal order."""

    def __init__(self, max_open: int = MAX_OPEN) -> None:
        self._open: OrderedDict[str, RecordedCall] = OrderedDict()
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._max_open = max_open
        self._seq = 0

    def feed(self, events: Iterable[Mapping[str, Any]]) -> Iterator[RecordedCall]:
        """Every call of ``events``, then the ones left open at the end (as incomplete)."""
        open_calls = self._open
        for event in events:
            call_id = event.get("call_id")
            name = event.get("event")
            if not isinstance(call_id, str) or not isinstance(name, str):
                continue  # not a call's event (a checkpoint, an export header)
            call = open_calls.get(call_id)
            if call is None:
                if call_id in self._gone:
                    continue  # the resume of a call already handed out
                call = self._open_call(call_id, event)
            if name == "tool.proposed":
                continue
            if wanted(name):
                call.events.append(event)
            if name == "tool.injected" or name == "approval.deferred":
                call.ended = True
                if name == "approval.deferred":
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
        ts = event.get("ts")
        session = event.get("session_id")
        tool = event.get("tool")
        call = RecordedCall(
            call_id=call_id,
            seq=self._seq,
            tool=tool if isinstance(tool, str) else "",
            session_id=session if isinstance(session, str) else None,
            ts=float(ts) if isinstance(ts, (int, float)) else None,
        )
        if event.get("event") == "tool.proposed":
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
