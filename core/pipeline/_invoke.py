"""Calling one handler: inline, awaited or in a thread under its timeout, and what a failure
or a handler with no opinion records. Shared by the before and after chains and visibility."""

from __future__ import annotations

import traceback
from inspect import isawaitable
from time import perf_counter
from typing import Any

from ..events._scope import CallScope
from ..records._log import LazyLogger
from ..registry._registry import DEFAULT_ASYNC_TIMEOUT, Handler
from ._driver import AwaitIt, Pipeline, RunInThread, TimedOut

logger = LazyLogger("toolhooks")
TRACEBACK_FRAMES = 5
"""How many of a failing handler's last frames ``hook.error`` carries (the log has them all)."""
TRACEBACK_CHARS = 4_000


def elapsed_ms(started: float) -> float:
    """Milliseconds since ``started`` (a perf_counter reading), to 0.1 microsecond."""
    # round() to a whole number of 0.1 µs, then scaled: 80 ns against 200 ns for round(x, 4),
    # which goes through a decimal conversion (timeit); five or more a call when events are on.
    return round((perf_counter() - started) * 10_000_000) / 10_000


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, TimedOut):
        return str(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def hook_failed(state: CallScope, handler: Handler, hook: str, exc: Exception) -> dict[str, Any]:
    """Log a failing handler to the ``toolhooks`` logger; return the ``hook.error`` data.

    The log record carries the whole traceback; the event carries its last frames, so that the
    audit trail says where the handler failed, not only what it raised.
    """
    problem = describe_error(exc)
    data: dict[str, Any] = {"hook": hook, "error": problem, "on_error": handler.on_error}
    message = "%s hook %s failed on tool %r (call %s): %s"
    args = (hook, handler.plugin, state.tool, state.call_id, problem)
    if isinstance(exc, TimedOut):  # no frames of the handler to show: it is still running
        logger.error(message, *args)
        return data
    logger.error(message, *args, exc_info=exc)
    frames = "".join(traceback.format_exception(exc, limit=-TRACEBACK_FRAMES))
    if len(frames) > TRACEBACK_CHARS:  # keep the end: the frame that raised and the error
        frames = "...\n" + frames[-TRACEBACK_CHARS:]
    data["traceback"] = frames
    return data


def invoke(handler: Handler, args: tuple[Any, ...]) -> Pipeline[Any]:
    """Call one handler the way its options say: inline, awaited, or in a thread under timeout."""
    if handler.inline:
        returned = handler.function(*args)
        if returned is not None and isawaitable(returned):
            # A def that returns a coroutine is an async handler in disguise: await it, timed.
            returned = yield AwaitIt(returned, handler.timeout or DEFAULT_ASYNC_TIMEOUT)
        return returned
    if handler.is_async:
        return (yield AwaitIt(handler.function(*args), handler.timeout))
    returned = yield RunInThread(handler.function, args, handler.timeout)
    if returned is not None and isawaitable(returned):
        returned = yield AwaitIt(returned, handler.timeout)
    return returned


def quiet_entry(handler: Handler, started: float) -> dict[str, Any]:
    """One handler that had no opinion, as listed in tool.injected's ``quiet``."""
    entry = handler.quiet.copy()
    entry["latency_ms"] = round((perf_counter() - started) * 10_000_000) / 10_000  # elapsed_ms
    return entry
