"""Calling handlers: the one dispatch every hook's chain goes through (the before and after
chains, ``tool_visible``), and what a call's chain records on the way.

``run_chain`` calls each handler of a chain in order the way its options say (a plain ``def``
inline, an ``async def`` awaited under its timeout, a ``def`` with an explicit timeout in a
thread), awaits a coroutine a ``def`` returned, lists a handler with no opinion in
``tool.injected``'s ``quiet``, and records a handler that raised or overran its timeout
(``hook.error``, and the ``toolhooks`` logger with its traceback). What a result or a failure
means is the chain's own rule, given as the ``step`` and ``failed`` folds.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from inspect import isawaitable
from time import perf_counter
from typing import Any, Generic, TypeVar

from .. import spec as spec_module
from ..events._scope import CallScope
from ..records._log import LazyLogger
from ..registry._registry import DEFAULT_ASYNC_TIMEOUT, Handler
from ._driver import AwaitIt, Pipeline, RunInThread, TimedOut

logger = LazyLogger("toolhooks")
TRACEBACK_FRAMES = 5
"""How many of a failing handler's last frames ``hook.error`` carries (the log has them all)."""
TRACEBACK_CHARS = 4_000

Emit = Callable[..., None]
Record = Callable[[CallScope, str, "str | None", dict[str, Any]], None]
"""EventDispatcher.record: emit one of the call's own events, stamped from its scope."""
A = TypeVar("A")
_ANSWERS = frozenset({dict, bool})
"""What a handler returns most often that is surely not awaitable: not asked."""


class CallTrace(CallScope):
    """What the dispatch records one call's handlers with: its event scope (what
    ``toolhooks.emit`` stamps events with, ``plugin`` set to the handler running), how the call's
    own events are recorded (``record``; ``tracing`` False: no sink, and no event is built at
    all) and ``quiet``, the handlers that had no opinion, in chain order (one entry each in
    tool.injected's ``quiet`` instead of an event each). The pipeline's ``Run`` is one; it sets
    these fields when it is made."""

    __slots__ = ("quiet", "record", "tracing")

    quiet: list[dict[str, Any]]
    record: Record
    tracing: bool


class ChainRules(Generic[A]):
    """One hook's own rules, given to the dispatch: what a handler's answer (``step``) and its
    failure (``failed``) make of the chain's running value, the next handler's arguments
    (``args``; None: the same throughout) and when the chain stops (``stop``)."""

    __slots__ = ("args", "failed", "hook", "step", "stop")

    def __init__(
        self,
        hook: str,
        step: Callable[[A, Handler, Any, float, CallTrace | None, tuple[Any, ...]], A],
        failed: Callable[[A, Handler, str, CallTrace | None, tuple[Any, ...]], A],
        args: Callable[[A], tuple[Any, ...]] | None = None,
        stop: Callable[[A], bool] | None = None,
    ) -> None:
        self.hook = hook
        self.step = step
        self.failed = failed
        self.args = args
        self.stop = stop

    def advance(self, acc: A, values: tuple[Any, ...]) -> tuple[tuple[Any, ...], bool]:
        """After a step replaced ``acc``: the next handler's arguments, and whether the chain
        stops there (called only then, not per handler)."""
        if self.args is not None:
            values = self.args(acc)
        return values, self.stop is not None and self.stop(acc)


def run_chain(
    rules: ChainRules[A],
    chain: tuple[Handler, ...],
    acc: A,
    values: tuple[Any, ...],
    trace: CallTrace | None,
    subject: str = "",
) -> Pipeline[A]:
    """Call ``chain``'s handlers in order with ``values`` (the spec's arguments, in order);
    fold each answer that is not None into ``acc`` with ``rules.step(acc, handler, answer,
    started, trace, values)`` and each failure with ``rules.failed(acc, handler, error, trace,
    values)`` (``values``: what the handler was called with); an
    ``acc`` a step replaced gives the next handler's arguments (``rules.args``) and may stop the
    chain (``rules.stop``).

    With no ``trace`` (``tool_visible``: no call), a failure is logged naming ``subject``.
    """
    tracing = trace is not None and trace.tracing
    for handler in chain:
        if trace is not None:
            trace.plugin = handler.plugin
        started = perf_counter() if tracing else 0.0
        try:
            if handler.direct:  # a plain def taking the spec's arguments: called as it is
                raw = handler.function(*values)
            elif handler.inline:
                raw = handler.function(*handler.call_args(_named(rules.hook, values)))
            else:
                raw = yield from invoke(handler, handler.call_args(_named(rules.hook, values)))
            if (
                raw is not None
                and handler.inline
                and type(raw) not in _ANSWERS
                and isawaitable(raw)
            ):  # a def that returns a coroutine is an async handler in disguise: await it
                raw = yield AwaitIt(raw, handler.timeout or DEFAULT_ASYNC_TIMEOUT)
            if raw is None:
                if tracing:
                    assert trace is not None
                    trace.quiet.append(quiet_entry(handler, started))
                continue
            folded = rules.step(acc, handler, raw, started, trace, values)
        except Exception as exc:
            error = _failure(trace, handler, rules.hook, exc, subject)
            folded = rules.failed(acc, handler, error, trace, values)
        if folded is not acc:
            acc = folded
            values, stop = rules.advance(acc, values)
            if stop:
                break
    if trace is not None:
        trace.plugin = None
    return acc


def invoke(handler: Handler, args: tuple[Any, ...]) -> Pipeline[Any]:
    """Call a handler that does not run inline: awaited, or in a thread, under its timeout."""
    if handler.is_async:
        return (yield AwaitIt(handler.function(*args), handler.timeout))
    returned = yield RunInThread(handler.function, args, handler.timeout)
    if returned is not None and isawaitable(returned):
        returned = yield AwaitIt(returned, handler.timeout)
    return returned


@functools.cache
def _spec_args(hook: str) -> tuple[str, ...]:
    return tuple(inspect.signature(getattr(spec_module, hook)).parameters)


def _named(hook: str, values: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(_spec_args(hook), values, strict=True))


def _failure(
    trace: CallTrace | None, handler: Handler, hook: str, exc: Exception, subject: str
) -> str:
    """Record a handler's failure; the error, as the chain's reason gives it."""
    if trace is None:
        problem = describe_error(exc)
        message = "%s hook %s failed on tool %r: %s"
        logger.error(message, hook, handler.plugin, subject, problem, exc_info=exc)
        return problem
    data = hook_failed(trace, handler, hook, exc)
    trace.record(trace, "hook.error", handler.plugin, data)
    return str(data["error"])


def elapsed_ms(started: float) -> float:
    """Milliseconds since ``started`` (a perf_counter reading), to 0.1 microsecond."""
    # Scaled to whole 0.1 µs, not round(x, 4), which goes through a decimal conversion.
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
    import traceback  # (with textwrap) only when a handler fails: 6 M of every start

    frames = "".join(traceback.format_exception(exc, limit=-TRACEBACK_FRAMES))
    if len(frames) > TRACEBACK_CHARS:  # keep the end: the frame that raised and the error
        frames = "...\n" + frames[-TRACEBACK_CHARS:]
    data["traceback"] = frames
    return data


def quiet_entry(handler: Handler, started: float) -> dict[str, Any]:
    """One handler that had no opinion, as listed in tool.injected's ``quiet``."""
    entry = handler.quiet.copy()
    # elapsed_ms written out: up to four quiet handlers a call, one Python call less each
    entry["latency_ms"] = round((perf_counter() - started) * 10_000_000) / 10_000
    return entry
