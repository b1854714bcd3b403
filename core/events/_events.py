"""Pipeline events and the dispatcher that hands them to ``on_event`` sinks."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._scope import CallScope

logger = logging.getLogger("toolhooks")

EVENT_NAMES = (
    "tool.proposed",
    "hook.decision",
    "hook.error",
    "params.conflict",
    "params.frozen_ignored",
    "approval.ignored",
    "tool.blocked",
    "approval.requested",
    "approval.deferred",
    "approval.edited",
    "approval.resolved",
    "tool.started",
    "tool.finished",
    "result.trimmed",
    "loop.warning",
    "loop.critical",
    "tool.injected",
    "plugin.unlocked",
)
"""Events the core and the built-in plugins emit, in pipeline order. Plugins may add their own.
``plugin.unlocked`` belongs to no call: the runtime emits it once, when it is built, for each
plugin the lock made it skip (``[plugins] on_unlocked = "warn"``); its trace and call ids are
empty."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One thing that happened to one call. ``data`` holds the stage's own fields.

    A plain read-only record: the runtime builds several per call, so it is made without
    validation (every field comes from the runtime itself).
    """

    event: str
    ts: float = field(default_factory=time.time)
    trace_id: str
    call_id: str
    session_id: str | None = None
    tool: str | None = None
    plugin: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json_dict(self) -> dict[str, Any]:
        """The flat shape the JSONL log writes: the envelope plus the stage's fields."""
        line = {
            "ts": self.ts,
            "event": self.event,
            "trace_id": self.trace_id,
            "call_id": self.call_id,
            "session_id": self.session_id,
            "tool": self.tool,
            "plugin": self.plugin,
        }
        for key, value in self.data.items():
            line.setdefault(key, value)
        return line


Sink = tuple[str, Callable[..., Any], bool]  # plugin name, function, takes the event argument


def make_event(
    name: str,
    ts: float,
    trace_id: str,
    call_id: str,
    session_id: str | None,
    tool: str | None,
    plugin: str | None,
    data: dict[str, Any],
) -> Event:
    """An Event from the runtime's own fields, positionally."""
    return Event(
        event=name,
        ts=ts,
        trace_id=trace_id,
        call_id=call_id,
        session_id=session_id,
        tool=tool,
        plugin=plugin,
        data=data,
    )


class EventDispatcher:
    """Calls every sink for every event; a sink's failure is logged and never propagates."""

    __slots__ = ("_loop_getter", "sinks")

    def __init__(self, loop_getter: Callable[[], asyncio.AbstractEventLoop]) -> None:
        self.sinks: Sequence[Sink] = ()
        self._loop_getter = loop_getter

    def emit(
        self,
        name: str,
        trace_id: str,
        call_id: str,
        session_id: str | None,
        tool: str | None,
        plugin: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        sinks = self.sinks
        if not sinks:
            return
        event = make_event(
            name,
            time.time(),
            trace_id,
            call_id,
            session_id,
            tool,
            plugin,
            {} if data is None else data,
        )
        self.deliver(event, sinks)

    def record(self, scope: CallScope, name: str, plugin: str | None, data: dict[str, Any]) -> None:
        """``emit`` for the pipeline's own events of a call: the ids come from its scope."""
        sinks = self.sinks
        if not sinks:
            return
        event = make_event(
            name,
            time.time(),
            scope.trace_id,
            scope.call_id,
            scope.session_id,
            scope.tool,
            plugin,
            data,
        )
        self.deliver(event, sinks)

    def deliver(self, event: Event, sinks: Sequence[Sink] | None = None) -> None:
        for owner, function, takes_event in self.sinks if sinks is None else sinks:
            try:
                returned = function(event) if takes_event else function()
                if returned is not None and inspect.isawaitable(returned):
                    self._schedule(owner, returned)
            except Exception:
                logger.exception("toolhooks: on_event sink %s failed on %s", owner, event.event)

    def _schedule(self, owner: str, awaitable: Any) -> None:
        async def guarded() -> None:
            try:
                await awaitable
            except Exception:
                logger.exception("toolhooks: async on_event sink %s failed", owner)

        asyncio.run_coroutine_threadsafe(guarded(), self._loop_getter())
