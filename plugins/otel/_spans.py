"""Turning one call's events into one span: start, span events, status, end.

Only the OpenTelemetry API is used here; which SDK provider receives the spans is the plugin's
business (``_export.py``).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from toolhooks import Event

FAILED = frozenset({"error", "blocked", "denied"})
"""Outcome statuses that end the span with status ERROR."""
SPAN_LIFECYCLE = frozenset({"tool.proposed", "tool.injected"})
"""Events that open and close the span instead of becoming span events."""
MAX_VALUE_CHARS = 1_024
"""A non-scalar event field becomes JSON text of at most this many characters."""

AttributeValue = str | bool | int | float


def _ns(ts: float) -> int:
    return int(ts * 1_000_000_000)


def _attribute(value: Any) -> AttributeValue | None:
    if value is None:
        return None
    if isinstance(value, (str, bool, int, float)):
        return value[:MAX_VALUE_CHARS] if isinstance(value, str) else value
    try:
        text = json.dumps(value, default=str, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text[:MAX_VALUE_CHARS]


PARAM_KEYS = frozenset({"params", "proposed_params", "decided_params"})
"""Event fields holding tool arguments: left out of spans unless ``record_params``."""


def event_attributes(event: Event, record_params: bool) -> dict[str, AttributeValue]:
    """The event's own fields (``data``) plus the plugin that produced it, as span attributes."""
    attributes: dict[str, AttributeValue] = {}
    if event.plugin is not None:
        attributes["toolhooks.plugin"] = event.plugin
    for key, value in event.data.items():
        if not record_params and key in PARAM_KEYS:
            continue
        converted = _attribute(value)
        if converted is not None:
            attributes[f"toolhooks.{key}"] = converted
    return attributes


class _Open:
    __slots__ = ("reason", "span")

    def __init__(self, span: Span) -> None:
        self.span = span
        self.reason: str | None = None
        """The block reason or error seen so far: the ERROR status's description."""


class SpanBook:
    """The open span of every call in flight, by call id; bounded, oldest ended when full."""

    def __init__(self, tracer: trace.Tracer, limit: int, record_params: bool = False) -> None:
        self.tracer = tracer
        self.limit = limit
        self.record_params = record_params
        self._open: OrderedDict[str, _Open] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._open)

    def on_event(self, event: Event) -> None:
        name = event.event
        if name == "tool.proposed":
            self._start(event)
            return
        with self._lock:
            entry = self._open.get(event.call_id)
        if entry is None:  # a call this process did not see start (a resumed approval, ...)
            entry = self._start(event)
        span = entry.span
        if name == "tool.injected":
            self._finish(event, entry)
            return
        reason = event.data.get("reason") if name in ("tool.blocked", "approval.resolved") else None
        if name == "tool.finished":
            span.set_attribute("toolhooks.status", str(event.data.get("status")))
            reason = event.data.get("error")
        if isinstance(reason, str):
            entry.reason = reason
        if name == "approval.deferred":
            # The call waits for a decision that may come hours later, in another process:
            # this span ends here; the resumed call gets a span of its own.
            span.add_event(name, event_attributes(event, self.record_params), _ns(event.ts))
            span.set_attribute("toolhooks.status", "pending")
            with self._lock:
                self._open.pop(event.call_id, None)
            span.end(_ns(event.ts))
        else:
            span.add_event(name, event_attributes(event, self.record_params), _ns(event.ts))

    def _start(self, event: Event) -> _Open:
        tool = event.tool or "unknown"
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": event.call_id,
            "toolhooks.trace_id": event.trace_id,
        }
        if event.session_id is not None:
            attributes["gen_ai.conversation.id"] = event.session_id
        for key in ("origin", "agent_id", "sender"):
            value = event.data.get(key)
            if isinstance(value, str):
                attributes[f"toolhooks.{key}"] = value
        # The caller's current span (the sink runs on the caller's context) is the parent.
        span = self.tracer.start_span(
            f"execute_tool {tool}",
            context=otel_context.get_current(),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=_ns(event.ts),
        )
        entry = _Open(span)
        abandoned: list[_Open] = []
        with self._lock:
            previous = self._open.pop(event.call_id, None)
            self._open[event.call_id] = entry
            while len(self._open) > self.limit:
                abandoned.append(self._open.popitem(last=False)[1])
        if previous is not None:
            abandoned.append(previous)
        for old in abandoned:
            old.span.set_attribute("toolhooks.abandoned", True)
            old.span.end()
        return entry

    def _finish(self, event: Event, entry: _Open) -> None:
        with self._lock:
            self._open.pop(event.call_id, None)
        span = entry.span
        status = str(event.data.get("status"))
        span.set_attribute("toolhooks.status", status)
        if status in FAILED:
            span.set_attribute("error.type", status)
            span.set_status(Status(StatusCode.ERROR, entry.reason or status))
        span.end(_ns(event.ts))

    def end_all(self) -> None:
        with self._lock:
            spans = list(self._open.values())
            self._open.clear()
        for entry in spans:
            entry.span.set_attribute("toolhooks.abandoned", True)
            entry.span.end()
