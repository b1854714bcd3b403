"""Pipeline events and the dispatcher that hands them to ``on_event`` sinks."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import FrozenInstanceError
from operator import itemgetter
from time import time
from typing import TYPE_CHECKING, Any, NoReturn

from .._public import public
from ..records._log import LazyLogger
from ._names import (
    APPROVAL_DEFERRED,
    APPROVAL_EDITED,
    APPROVAL_IGNORED,
    APPROVAL_REQUESTED,
    APPROVAL_RESOLVED,
    APPROVAL_VOTE,
    HOOK_DECISION,
    HOOK_ERROR,
    LOOP_CRITICAL,
    LOOP_WARNING,
    PARAMS_CONFLICT,
    PARAMS_FROZEN_IGNORED,
    PLUGIN_UNLOCKED,
    RESULT_TRIMMED,
    TOOL_BLOCKED,
    TOOL_FINISHED,
    TOOL_INJECTED,
    TOOL_PROPOSED,
    TOOL_STARTED,
)
from ._scope import CallScope

if TYPE_CHECKING:
    import asyncio

logger = LazyLogger("toolhooks")

EVENT_NAMES = (
    TOOL_PROPOSED,
    HOOK_DECISION,
    HOOK_ERROR,
    PARAMS_CONFLICT,
    PARAMS_FROZEN_IGNORED,
    APPROVAL_IGNORED,
    TOOL_BLOCKED,
    APPROVAL_REQUESTED,
    APPROVAL_DEFERRED,
    APPROVAL_EDITED,
    APPROVAL_VOTE,
    APPROVAL_RESOLVED,
    TOOL_STARTED,
    TOOL_FINISHED,
    RESULT_TRIMMED,
    LOOP_WARNING,
    LOOP_CRITICAL,
    TOOL_INJECTED,
    PLUGIN_UNLOCKED,
)
"""Events the core and the built-in plugins emit, in pipeline order. Plugins may add their own.
``plugin.unlocked`` belongs to no call: the runtime emits it once, when it is built, for each
plugin the lock made it skip (``[plugins] on_unlocked = "warn"``); its trace and call ids are
empty."""


_FIELDS = ("event", "ts", "trace_id", "call_id", "session_id", "tool", "plugin", "data")


class Event(tuple):  # type: ignore[type-arg]  # a fixed shape: the properties below type it
    """One thing that happened to one call. ``data`` holds the stage's own fields.

    A plain read-only record, made as ``Event(event=..., trace_id=..., call_id=..., ...)``
    (``ts`` defaults to now, ``data`` to ``{}``); assigning a field raises
    ``dataclasses.FrozenInstanceError``. The runtime makes four or more per call, without
    validation (every field comes from the runtime itself), so it is a tuple underneath: a
    frozen slotted dataclass sets each field through ``object.__setattr__``, about four times
    the cost an event (BENCHMARKS.md, choices made for speed).
    """

    __slots__ = ()

    def __new__(
        cls,
        *,
        event: str,
        ts: float | None = None,
        trace_id: str,
        call_id: str,
        session_id: str | None = None,
        tool: str | None = None,
        plugin: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> Event:
        when = time() if ts is None else ts
        payload = {} if data is None else data
        return _new_record(cls, (event, when, trace_id, call_id, session_id, tool, plugin, payload))

    if TYPE_CHECKING:

        @property
        def event(self) -> str: ...
        @property
        def ts(self) -> float: ...
        @property
        def trace_id(self) -> str: ...
        @property
        def call_id(self) -> str: ...
        @property
        def session_id(self) -> str | None: ...
        @property
        def tool(self) -> str | None: ...
        @property
        def plugin(self) -> str | None: ...
        @property
        def data(self) -> dict[str, Any]: ...

    else:
        event = property(itemgetter(0), doc="The event's name, e.g. ``tool.proposed``.")
        ts = property(itemgetter(1), doc="When it happened (``time.time()``).")
        trace_id = property(itemgetter(2))
        call_id = property(itemgetter(3))
        session_id = property(itemgetter(4))
        tool = property(itemgetter(5))
        plugin = property(itemgetter(6), doc="The plugin it is about, or None for the core.")
        data = property(itemgetter(7), doc="The stage's own fields.")

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return tuple.__ne__(self, other)

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(_FIELDS, self, strict=True))
        return f"Event({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_event, (tuple(self),))

    def to_json_dict(self) -> dict[str, Any]:
        """The flat shape the JSONL log writes: the envelope plus the stage's fields."""
        event, ts, trace_id, call_id, session_id, tool, plugin, data = self
        line = {
            "ts": ts,
            "event": event,
            "trace_id": trace_id,
            "call_id": call_id,
            "session_id": session_id,
            "tool": tool,
            "plugin": plugin,
        }
        for key, value in data.items():
            line.setdefault(key, value)
        return line


_new_record = tuple.__new__


def _rebuild_event(fields: tuple[Any, ...]) -> Event:
    return _new_record(Event, fields)


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
    return _new_record(Event, (name, ts, trace_id, call_id, session_id, tool, plugin, data))


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
        payload = {} if data is None else data
        event = _new_record(
            Event, (name, time(), trace_id, call_id, session_id, tool, plugin, payload)
        )
        self.deliver(event, sinks)

    def record(self, scope: CallScope, name: str, plugin: str | None, data: dict[str, Any]) -> None:
        """``emit`` for the pipeline's own events of a call: the ids come from its scope."""
        sinks = self.sinks
        if not sinks:
            return
        event = _new_record(
            Event,
            (
                name,
                time(),
                scope.trace_id,
                scope.call_id,
                scope.session_id,
                scope.tool,
                plugin,
                data,
            ),
        )
        # deliver's loop written out: a call's own events are most of all events
        for owner, function, takes_event in sinks:
            try:
                returned = function(event) if takes_event else function()
                if returned is not None and inspect.isawaitable(returned):
                    self._schedule(owner, returned)
            except Exception:
                logger.exception("toolhooks: on_event sink %s failed on %s", owner, name)

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

        import asyncio  # only an async sink needs it (124 M instructions of a cold start)

        asyncio.run_coroutine_threadsafe(guarded(), self._loop_getter())


public("toolhooks", Event)
