"""Pipeline events and the dispatcher that hands them to ``on_event`` sinks."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable, Sequence
from types import MemberDescriptorType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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
)
"""Events the core and the built-in plugins emit, in pipeline order. Plugins may add their own."""


class Event(BaseModel):
    """One thing that happened to one call. ``data`` holds the stage's own fields."""

    model_config = ConfigDict(extra="forbid")

    event: str
    ts: float = Field(default_factory=time.time)
    trace_id: str
    call_id: str
    session_id: str | None = None
    tool: str | None = None
    plugin: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)

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

_FIELD_NAMES = frozenset(Event.model_fields)
_ALL_FIELDS_SET = set(_FIELD_NAMES)
_new_model = BaseModel.__new__
_set = object.__setattr__
_SLOTS = {
    name: BaseModel.__dict__.get(name)
    for name in ("__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
}
# make_event() below fills an Event the way Event.model_construct does, minus the generic work
# (aliases, defaults, extra, private attributes, post-init) that this model does not use; the
# check keeps that true if the model ever changes. It runs for every event of every call.
_CONSTRUCT_BY_HAND = (
    {"event", "ts", "trace_id", "call_id", "session_id", "tool", "plugin", "data"} == _FIELD_NAMES
    and not Event.__pydantic_post_init__
    and not Event.__private_attributes__
    and not Event.__pydantic_root_model__
    and Event.model_config.get("extra") != "allow"
    and all(f.alias is None and f.validation_alias is None for f in Event.model_fields.values())
    and all(type(slot) is MemberDescriptorType for slot in _SLOTS.values())
)
if _CONSTRUCT_BY_HAND:
    # BaseModel's own slots, set through their descriptors: cheaper than object.__setattr__.
    _set_fields = _SLOTS["__pydantic_fields_set__"].__set__  # type: ignore[union-attr]
    _set_extra = _SLOTS["__pydantic_extra__"].__set__  # type: ignore[union-attr]
    _set_private = _SLOTS["__pydantic_private__"].__set__  # type: ignore[union-attr]


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
    """An Event from fields the runtime produced itself: no validation (model_construct)."""
    if not _CONSTRUCT_BY_HAND:  # pragma: no cover - only if the model grows pydantic features
        return Event.model_construct(
            event=name,
            ts=ts,
            trace_id=trace_id,
            call_id=call_id,
            session_id=session_id,
            tool=tool,
            plugin=plugin,
            data=data,
        )
    event = _new_model(Event)
    _set(
        event,
        "__dict__",
        {
            "event": name,
            "ts": ts,
            "trace_id": trace_id,
            "call_id": call_id,
            "session_id": session_id,
            "tool": tool,
            "plugin": plugin,
            "data": data,
        },
    )
    # One shared set: every field is in it, so pydantic's __setattr__ (which adds the name it
    # sets) never changes it.
    _set_fields(event, _ALL_FIELDS_SET)
    _set_extra(event, None)
    _set_private(event, None)
    return event


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
        """``emit`` for the pipeline's own events of a call: the ids come from its scope.

        The pipeline's hot path when sinks exist (a call has eight or more events), so the event
        is built and delivered here in line rather than through ``emit`` and ``deliver``.
        """
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
                # A sink almost always returns None: skip isawaitable(), which is not cheap.
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
