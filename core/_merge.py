"""The before_tool_call chain and its merge rules (DESIGN.md, "The before_tool_call merge rules")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from inspect import isawaitable
from time import perf_counter
from typing import Any

from ._driver import AwaitIt, Pipeline, RunInThread, TimedOut
from ._frozen import FrozenDict, ParamsError, freeze_value
from ._models import REMOVE, ToolCall
from ._registry import DEFAULT_ASYNC_TIMEOUT, Handler
from ._results import ApprovalRequest, BeforeToolCallResult, HookResultError, coerce_before
from ._scope import CallScope

Emit = Callable[..., None]
Ids = tuple[str, str, "str | None", str]
"""trace_id, call_id, session_id, tool: the envelope every event of a call carries."""


@dataclass
class BeforeState:
    """Where the chain left the call: merged params, who wrote them, an approval, or a block."""

    call: ToolCall
    params: dict[str, Any]
    proposed: FrozenDict
    writers: dict[str, str] = field(default_factory=dict)
    approval_plugin: str | None = None
    approval: ApprovalRequest | None = None
    blocked_by: str | None = None
    block_reason: str | None = None


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, TimedOut):
        return str(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


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


def summarize(result: BeforeToolCallResult | None) -> dict[str, Any]:
    if result is None:
        return {"returned": None}
    summary: dict[str, Any] = {}
    if result.block:
        summary["block"] = True
        summary["block_reason"] = result.block_reason
    if result.params is not None:
        summary["params"] = sorted(str(k) for k in result.params)
    if result.require_approval is not None:
        request = result.require_approval
        summary["require_approval"] = request.title if isinstance(request, ApprovalRequest) else "?"
    return summary or {"returned": "no decision"}


def run_before_chain(
    call: ToolCall, chain: tuple[Handler, ...], emit: Emit, tracing: bool, scope: CallScope
) -> Pipeline[BeforeState]:
    """Run the chain over ``call``; the returned state says what to do next."""
    state = BeforeState(call, dict(call.params), call.params)
    view = call
    ids: Ids = (call.trace_id, call.id, call.session_id, call.name)
    for handler in chain:
        scope.plugin = handler.plugin
        started = perf_counter() if tracing else 0.0
        try:
            args = (view,) if handler.takes_all else handler.call_args({"call": view})
            if handler.inline:
                # The common case, kept free of generator hops: a plain def, untimed.
                raw = handler.function(*args)
                if raw is not None and type(raw) is not dict and isawaitable(raw):
                    raw = yield AwaitIt(raw, handler.timeout or DEFAULT_ASYNC_TIMEOUT)
            else:
                raw = yield from invoke(handler, args)
            result = coerce_before(raw) if raw is not None else None
        except Exception as exc:
            problem = describe_error(exc)
            emit(
                "hook.error",
                *ids,
                handler.plugin,
                {"hook": "before_tool_call", "error": problem, "on_error": handler.on_error},
            )
            if handler.on_error == "ignore":
                continue
            state.blocked_by = handler.plugin
            state.block_reason = f"Tool call blocked because before_tool_call hook {handler.plugin} failed: {problem}"
            return state
        if tracing:
            decision = summarize(result)
            decision["priority"] = handler.priority
            decision["latency_ms"] = round((perf_counter() - started) * 1000, 4)
            decision["applied"] = not handler.audit
            decision["hook"] = "before_tool_call"
            emit("hook.decision", *ids, handler.plugin, decision)
        if result is None or handler.audit:
            continue
        if result.params is not None:
            if state.approval_plugin is not None and state.approval_plugin != handler.plugin:
                emit(
                    "params.frozen_ignored",
                    *ids,
                    handler.plugin,
                    {
                        "fields": sorted(str(k) for k in result.params),
                        "approval_plugin": state.approval_plugin,
                    },
                )
            else:
                try:
                    changed = merge_params(state, result.params, handler.plugin, emit, ids)
                except (ParamsError, HookResultError) as exc:
                    state.blocked_by = handler.plugin
                    state.block_reason = (
                        f"Tool call blocked because before_tool_call hook {handler.plugin} "
                        f"failed: invalid params: {exc}"
                    )
                    return state
                if changed:
                    view = view.with_params(FrozenDict(state.params))
                    state.call = view
        request = result.require_approval
        if request is not None:
            assert isinstance(request, ApprovalRequest)  # coerce_before validated it
            if state.approval_plugin is None:
                state.approval_plugin = handler.plugin
                state.approval = request
            else:
                emit(
                    "approval.ignored",
                    *ids,
                    handler.plugin,
                    {
                        "title": request.title,
                        "approval_plugin": state.approval_plugin,
                    },
                )
        if result.block:
            state.blocked_by = handler.plugin
            state.block_reason = (
                result.block_reason or f"Tool call blocked by plugin {handler.plugin}"
            )
            return state
    return state


def merge_params(
    state: BeforeState, update: Mapping[str, Any], plugin: str, emit: Emit, ids: Ids
) -> bool:
    """Field-level, last-writer-wins merge of ``update`` into the running params."""
    params = state.params
    writers = state.writers
    changed = False
    for key, value in update.items():
        if not isinstance(key, str):
            raise HookResultError(f"params key {key!r} is not a string")
        previous_writer = writers.get(key)
        field_changed = False
        if value is REMOVE:
            if key in params:
                del params[key]
                field_changed = True
        else:
            value = freeze_value(value, f"params.{key}")
            if key not in params or (params[key] is not value and params[key] != value):
                params[key] = value
                field_changed = True
        changed = changed or field_changed
        if field_changed and previous_writer is not None and previous_writer != plugin:
            emit(
                "params.conflict",
                *ids,
                plugin,
                {
                    "field": key,
                    "plugins": [previous_writer, plugin],
                },
            )
        writers[key] = plugin
    return changed
