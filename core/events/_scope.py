"""The call a handler is running for, so that ``toolhooks.emit`` can stamp its events."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from .._public import public

_EmitFn = Callable[..., None]


class CallScope:
    """Set once per call; ``plugin`` is updated before each handler runs."""

    __slots__ = ("call_id", "done", "emit", "plugin", "session_id", "tool", "trace_id")

    def __init__(
        self, emit: _EmitFn, trace_id: str, call_id: str, session_id: str | None, tool: str
    ) -> None:
        self.emit = emit
        self.trace_id = trace_id
        self.call_id = call_id
        self.session_id = session_id
        self.tool = tool
        self.plugin: str | None = None
        self.done = False
        """Set when the call's outcome is made: a handler left running (a thread that overran its
        timeout) can no longer add events after ``tool.injected``."""


current_scope: contextvars.ContextVar[CallScope | None] = contextvars.ContextVar(
    "toolhooks_call_scope", default=None
)


def leave_scope(token: contextvars.Token[CallScope | None]) -> None:
    """End a call's scope; a scope already finalised in another context (a pipeline generator
    closed by the garbage collector) raises ValueError there, which changes nothing here."""
    try:  # noqa: SIM105 - a third of contextlib.suppress's cost, once a call (BENCHMARKS.md)
        current_scope.reset(token)
    except ValueError:
        pass


def emit(event: str, /, **data: Any) -> bool:
    """Emit a plugin event for the call being processed (stamped with its ids and the plugin).

    Call it from inside a hook handler. Returns False, and does nothing, outside of one (for
    example when a plugin's handler is called directly in a unit test) and once the call has
    ended (from a thread a handler left behind). Sinks may read ``data`` after this returns, on
    another thread (the event log encodes on its writer thread): do not change what you pass.
    """
    scope = current_scope.get()
    if scope is None or scope.done:
        return False
    scope.emit(
        event, scope.trace_id, scope.call_id, scope.session_id, scope.tool, scope.plugin, data
    )
    return True


public("toolhooks", emit)
