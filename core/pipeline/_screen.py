"""Screening: the before chain, visibility and validation, ending in a ``Verdict``: blocked,
unknown, invalid, or "go" with the validated params. ``Runtime.decide`` stops here.

The before chain is each handler through the dispatch (``_invoke.run_chain``), what it returned
folded into the call's state by the merge rules (``_state.fold``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records._frozen import thaw_params
from ..records._models import ToolSpec
from ..records._results import ApprovalRequest, BeforeToolCallResult, coerce_before
from ..registry._registry import Handler
from ._context import Context, Execute, Run
from ._driver import Pipeline
from ._invoke import CallTrace, ChainRules, elapsed_ms, quiet_entry, run_chain
from ._state import CallState, HookFailed, blocked, fold
from ._tools import ParamsInvalid, Tool
from ._verdict import CORE, Verdict
from ._visibility import VISIBILITY, internal_only


def screen(ctx: Context, run: Run, may_execute: bool = True) -> Pipeline[Verdict]:
    """The before chain, visibility and validation: blocked, unknown, invalid or "go"."""
    state = run.state
    # the before chain: each handler through the dispatch, its result folded by the merge rules
    state = yield from run_chain(_BEFORE, run.before, state, (state.call,), run)
    call = state.call
    visibility = ctx.registry.chain("tool_visible", call.name) if state.blocked_by is None else ()
    if visibility:
        spec = call.spec or ToolSpec(call.name)
        shown_to = (spec, call.sender, call.agent_id, call.origin)
        hider = yield from run_chain(VISIBILITY, visibility, None, shown_to, None, call.name)
        if hider is not None:
            reason = (
                f"Tool '{call.name}' is not available to this caller (hidden by plugin {hider})"
            )
            state = blocked(state, hider, reason)
    run.state = state
    return decide_verdict(state, run.registered, run.execute if may_execute else _LATER, call.name)


def _step(
    state: CallState,
    handler: Handler,
    raw: Any,
    started: float,
    trace: CallTrace | None,
    _values: tuple[Any, ...],
) -> CallState:
    assert trace is not None
    result = coerce_before(raw)
    if result is None:  # an empty answer: no opinion either
        if trace.tracing:
            trace.quiet.append(quiet_entry(handler, started))
        return state
    if trace.tracing:
        trace.record(trace, "hook.decision", handler.plugin, summarize(result, handler, started))
    return _folded(state, handler, result, trace)


def _failed(
    state: CallState,
    handler: Handler,
    error: str,
    trace: CallTrace | None,
    _values: tuple[Any, ...],
) -> CallState:
    assert trace is not None
    return _folded(state, handler, HookFailed(error), trace)


def _folded(
    state: CallState,
    handler: Handler,
    result: BeforeToolCallResult | HookFailed,
    trace: CallTrace,
) -> CallState:
    after = fold(state, handler.plugin, result, on_error=handler.on_error, audit=handler.audit)
    if after is not state:
        for name, plugin, data in after.events:
            trace.record(trace, name, plugin, data)
    return after


def _view(state: CallState) -> tuple[Any, ...]:
    return (state.call,)


def _is_blocked(state: CallState) -> bool:
    return state.blocked_by is not None


_BEFORE = ChainRules("before_tool_call", _step, _failed, _view, _is_blocked)


def summarize(result: BeforeToolCallResult, handler: Handler, started: float) -> dict[str, Any]:
    """The data of a before_tool_call ``hook.decision`` event."""
    summary: dict[str, Any] = {}
    if result.block:
        summary["block"] = True
        summary["block_reason"] = result.block_reason
    if result.params is not None:
        summary["params"] = sorted(str(k) for k in result.params)
    if result.require_approval is not None:
        request = result.require_approval
        summary["require_approval"] = request.title if isinstance(request, ApprovalRequest) else "?"
    if not summary:
        summary["returned"] = "no decision"
    summary["priority"] = handler.priority
    summary["latency_ms"] = elapsed_ms(started)
    summary["applied"] = not handler.audit
    summary["hook"] = "before_tool_call"
    return summary


def rescreen(ctx: Context, run: Run, params: Mapping[str, Any]) -> Pipeline[Verdict]:
    """Screen the call again with an editor's ``params``, as the same call: the chain starts from
    a fresh state with the editor's params; the call's trace goes on (its quiet handlers stay)."""
    call = run.state.call.with_params(params)
    run.state = CallState(call, call.params)
    return (yield from screen(ctx, run))


def _later(_params: dict[str, Any]) -> Any:  # pragma: no cover - never executed
    raise LookupError("no executor")


_LATER: Execute = _later
"""``decide`` has no executor yet: an unregistered tool may still get one from the later call."""


def decide_verdict(
    state: CallState, tool: Tool | None, execute: Execute | None, name: str
) -> Verdict:
    """Blocked by the chain, unknown, invalid, or "go" with the validated params."""
    if state.blocked_by is not None:
        return Verdict(
            "blocked", dict(state.params), None, "policy", state.block_reason, state.blocked_by
        )
    if state.call.origin == "external" and internal_only(name, state.call.spec):
        reason = f"Tool '{name}' is internal: never callable from origin 'external'"
        return Verdict("blocked", dict(state.params), None, "policy", reason, CORE)
    if tool is None and execute is None:
        return Verdict("error", dict(state.params), None, "unknown_tool", f"Unknown tool '{name}'")
    params = state.call.params
    thawed = thaw_params(params) if params else {}
    if tool is None:
        return Verdict("go", thawed, thawed)
    try:
        kwargs, shown = tool.validate(thawed)
    except ParamsInvalid as exc:
        reason = f"Invalid params for tool '{name}': {exc}"
        return Verdict("blocked", dict(state.params), None, "invalid_params", reason, CORE)
    return Verdict("go", shown, kwargs)
