"""One call through the pipeline: intake, before chain, validation, approval, execution,
after chain, outcome. Written once as a generator; ``_driver`` runs it sync or async."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from inspect import isawaitable
from time import perf_counter
from typing import Any, cast

from ._approvals import ApprovalBook, Approver, Resolution, ask, make_pending
from ._driver import AwaitIt, Pipeline
from ._events import EventDispatcher
from ._frozen import FrozenDict, freeze_params, params_digest, thaw
from ._merge import BeforeState, Ids, describe_error, invoke, run_before_chain
from ._models import UNSET, InvalidToolCall, ToolCall, new_id
from ._registry import DEFAULT_ASYNC_TIMEOUT, Handler, Registry
from ._render import render_content
from ._models import Status
from ._results import Decision, Outcome, ToolResult, coerce_after
from ._scope import CallScope, current_scope
from ._tools import ParamsInvalid, Tool

CORE = "toolhooks"
_PLAIN_VALUES = frozenset({str, dict, list, int, float, bool, bytes, type(None)})
Execute = Callable[[dict[str, Any]], Any]


@dataclass
class Context:
    """What the pipeline needs from the runtime; built once, shared by every call."""

    registry: Registry
    tools: dict[str, Tool]
    events: EventDispatcher
    book: ApprovalBook
    approver: Approver | None
    remember: Callable[[str, FrozenDict], None]


class _Verdict:
    """The decision reached before after_tool_call runs; status "go" means execute."""

    __slots__ = ("approval", "blocked_by", "kind", "kwargs", "params", "reason", "status")

    def __init__(
        self,
        status: str,
        params: dict[str, Any],
        kwargs: dict[str, Any] | None = None,
        kind: str | None = None,
        reason: str | None = None,
        blocked_by: str | None = None,
    ) -> None:
        self.status = status
        self.params = params
        self.kwargs = kwargs
        self.kind = kind
        self.reason = reason
        self.blocked_by = blocked_by
        self.approval: str | None = None


def rejected(ctx: Context, raw: Any, problem: Exception) -> Outcome:
    """A proposal that is not a valid tool call: an Outcome, recorded, never an exception."""
    name = raw.get("name") if isinstance(raw, Mapping) else None
    tool = name[:256] if isinstance(name, str) and name.isprintable() else None
    call_id, trace_id = f"call_{new_id()}", new_id()
    reason = f"Invalid tool call: {problem}"
    emit = ctx.events.emit
    emit("tool.blocked", trace_id, call_id, None, tool, CORE, {"by": CORE, "reason": reason})
    emit(
        "tool.injected",
        trace_id,
        call_id,
        None,
        tool,
        None,
        {"status": "blocked", "chars": len(reason)},
    )
    return Outcome(
        "blocked", reason, call_id, trace_id, tool=tool or "", blocked_by=CORE, reason=reason
    )


def run_call(
    ctx: Context, raw: ToolCall | Mapping[str, Any], execute: Execute | None
) -> Pipeline[Outcome]:
    tools = ctx.tools
    try:
        if type(raw) is ToolCall:
            call = raw
            tool = tools.get(call.name)
            if tool is not None and call.spec is not tool.spec:
                call = call.with_spec(tool.spec)
        else:
            name = raw.get("name") if type(raw) is dict or isinstance(raw, Mapping) else None
            tool = tools.get(name) if type(name) is str else None
            call = ToolCall.from_mapping(raw, None if tool is None else tool.spec)  # type: ignore[arg-type]
    except (InvalidToolCall, TypeError) as exc:
        return rejected(ctx, raw, exc)
    events = ctx.events
    emit = events.emit
    tracing = bool(events.sinks)
    ids: Ids = (call.trace_id, call.id, call.session_id, call.name)
    scope = CallScope(emit, *ids)
    token = current_scope.set(scope)
    try:
        if tracing:
            emit(
                "tool.proposed",
                *ids,
                None,
                {
                    "params": dict(call.params),
                    "origin": call.origin,
                    "agent_id": call.agent_id,
                    "sender": call.sender.id if call.sender else None,
                },
            )
        chain = ctx.registry.chain("before_tool_call", call.name)
        state = yield from run_before_chain(call, chain, emit, tracing, scope)
        scope.plugin = None
        verdict = yield from _decide(ctx, state, tool, execute, ids)
        final_call = state.call
        if verdict.params is not state.params and verdict.params != state.params:
            final_call = final_call.with_params(freeze_params(verdict.params))
        ctx.remember(call.id, final_call.params)
        if verdict.status != "go":
            if verdict.status == "blocked":
                emit(
                    "tool.blocked",
                    *ids,
                    verdict.blocked_by,
                    {"by": verdict.blocked_by, "reason": verdict.reason},
                )
            status = cast(Status, verdict.status)
            result = ToolResult(status, None, verdict.reason or "", verdict.reason, None, verdict.kind)
            return (
                yield from _finish(ctx, final_call, result, verdict, state, tracing, scope, None)
            )
        result, interrupted = yield from _execute(tool, execute, verdict, emit, ids, tracing)
        return (
            yield from _finish(ctx, final_call, result, verdict, state, tracing, scope, interrupted)
        )
    finally:
        # ValueError: finalised in another context (the generator was closed by the GC).
        with suppress(ValueError):
            current_scope.reset(token)


def _decide(
    ctx: Context,
    state: BeforeState,
    tool: Tool | None,
    execute: Execute | None,
    ids: Ids,
) -> Pipeline[_Verdict]:
    name = ids[3]
    if state.blocked_by is not None:
        return _Verdict(
            "blocked", state.params, None, "policy", state.block_reason, state.blocked_by
        )
    if tool is None and execute is None:
        return _Verdict("error", state.params, None, "unknown_tool", f"Unknown tool '{name}'")
    thawed = thaw(state.params)
    if tool is None:
        kwargs = shown = thawed
    else:
        try:
            kwargs, shown = tool.validate(thawed)
        except ParamsInvalid as exc:
            reason = f"Invalid params for tool '{name}': {exc}"
            return _Verdict("blocked", state.params, None, "invalid_params", reason, CORE)
    verdict = _Verdict("go", shown, kwargs)
    if state.approval is None or state.approval_plugin is None:
        return verdict
    call = state.call
    sender_id = call.sender.id if call.sender else None
    frozen_shown = freeze_params(shown)
    digest = params_digest(name, frozen_shown, sender_id, call.session_id)
    key = (state.approval_plugin, name, sender_id)
    emit = ctx.events.emit
    if ctx.book.granted(key):
        resolution = Resolution("allow-always", None, remembered=True)
    else:
        request = state.approval
        pending = make_pending(
            call.with_params(frozen_shown), state.approval_plugin, request, digest
        )
        emit(
            "approval.requested",
            *ids,
            state.approval_plugin,
            {
                "approval_id": pending.id,
                "title": request.title,
                "severity": request.severity,
                "digest": digest,
                "expires_at": pending.expires_at,
            },
        )
        resolution = yield from ask(ctx.approver, pending)
    emit(
        "approval.resolved",
        *ids,
        state.approval_plugin,
        {
            "decision": resolution.decision,
            "reason": resolution.reason,
            "remembered": resolution.remembered,
            "by": resolution.by,
        },
    )
    if resolution.decision == "deny":
        denied = _Verdict("denied", shown, None, "approval", resolution.reason)
        denied.approval = "deny"
        return denied
    if resolution.decision == "allow-always" and not resolution.remembered:
        ctx.book.grant(key)
    # What runs must be byte-for-byte what the approver saw.
    if params_digest(name, shown, sender_id, call.session_id) != digest:
        reason = "Blocked: the params changed after they were approved (digest mismatch)"
        return _Verdict("blocked", shown, None, "approval", reason, CORE)
    verdict.approval = resolution.decision
    return verdict


def _execute(
    tool: Tool | None,
    execute: Execute | None,
    verdict: _Verdict,
    emit: Callable[..., None],
    ids: Ids,
    tracing: bool,
) -> Pipeline[tuple[ToolResult, BaseException | None]]:
    """Run the tool; a failure becomes an error result, an interruption is handed back."""
    kwargs = verdict.kwargs or {}
    if tracing:
        emit("tool.started", *ids, None, {"params": verdict.params})
    started = perf_counter()
    interrupted: BaseException | None = None
    try:
        if execute is not None:  # an explicit executor wins over a registered function
            value = execute(verdict.params)
        else:
            assert tool is not None
            value = tool.function(**kwargs)
        if type(value) not in _PLAIN_VALUES and isawaitable(value):
            value = yield AwaitIt(value, None)
        result = ToolResult("ok", value, "", None, 0.0, None)
    except Exception as exc:
        message = f"Tool '{ids[3]}' failed: {describe_error(exc)}"
        result = ToolResult("error", None, message, message, 0.0, "exception")
    except BaseException as exc:  # cancelled or interrupted: still audited, then re-raised
        interrupted = exc
        message = f"Tool '{ids[3]}' was interrupted: {type(exc).__name__}"
        result = ToolResult("error", None, message, message, 0.0, "interrupted")
    result.duration_ms = round((perf_counter() - started) * 1000, 4)
    if result.status == "ok":
        result.content = render_content(result.value)
    if tracing:
        emit(
            "tool.finished",
            *ids,
            None,
            {"status": result.status, "duration_ms": result.duration_ms, "error": result.error},
        )
    return result, interrupted


def _finish(
    ctx: Context,
    call: ToolCall,
    result: ToolResult,
    verdict: _Verdict,
    state: BeforeState,
    tracing: bool,
    scope: CallScope,
    interrupted: BaseException | None,
) -> Pipeline[Outcome]:
    """after_tool_call in order (fail open by default), then the Outcome; always runs."""
    emit = ctx.events.emit
    ids: Ids = (call.trace_id, call.id, call.session_id, call.name)
    notes: list[str] = []
    truncated, artifact = False, None
    withheld_by: str | None = None
    for handler in ctx.registry.chain("after_tool_call", call.name):
        scope.plugin = handler.plugin
        started = perf_counter() if tracing else 0.0
        try:
            args = (
                (call, result)
                if handler.takes_all
                else handler.call_args({"call": call, "result": result})
            )
            if handler.inline:
                raw = handler.function(*args)
                if raw is not None and type(raw) is not dict and isawaitable(raw):
                    raw = yield AwaitIt(raw, handler.timeout or DEFAULT_ASYNC_TIMEOUT)
            else:
                raw = yield from invoke(handler, args)
            change = coerce_after(raw) if raw is not None else None
        except Exception as exc:
            problem = describe_error(exc)
            emit(
                "hook.error",
                *ids,
                handler.plugin,
                {"hook": "after_tool_call", "error": problem, "on_error": handler.on_error},
            )
            if handler.on_error == "block" and withheld_by is None:
                withheld_by = handler.plugin
                reason = f"Tool result withheld because after_tool_call hook {handler.plugin} failed: {problem}"
                result = ToolResult("blocked", None, reason, reason, result.duration_ms, "policy")
            continue
        if tracing:
            emit("hook.decision", *ids, handler.plugin, _after_summary(handler, change, started))
        if change is None or handler.audit:
            continue
        if change.content is not None or change.value is not UNSET:
            result = ToolResult(
                result.status,
                result.value if change.value is UNSET else change.value,
                result.content if change.content is None else change.content,
                result.error,
                result.duration_ms,
                result.error_kind,
            )
        if change.note:
            notes.append(change.note)
        if change.truncated or change.artifact:
            truncated = True
            artifact = change.artifact or artifact
    scope.plugin = None
    content = result.content
    if notes:
        content = f"{content}\n\n" + "\n".join(notes) if content else "\n".join(notes)
    status = result.status
    outcome = Outcome(
        status,
        content,
        call.id,
        call.trace_id,
        call.name,
        result.value,
        verdict.params,
        withheld_by or verdict.blocked_by,
        verdict.reason if withheld_by is None else result.error,
        notes,
        truncated,
        artifact,
        cast("Decision | None", verdict.approval),
        rewritten_by=_rewritten(state, call),
    )
    if tracing:
        emit(
            "tool.injected",
            *ids,
            None,
            {"status": status, "chars": len(content), "truncated": truncated, "artifact": artifact},
        )
    if interrupted is not None:
        raise interrupted
    return outcome


def _after_summary(handler: Handler, change: Any, started: float) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "hook": "after_tool_call",
        "priority": handler.priority,
        "latency_ms": round((perf_counter() - started) * 1000, 4),
        "applied": not handler.audit,
    }
    if change is None:
        summary["returned"] = None
    else:
        summary["content"] = change.content is not None
        summary["value"] = change.value is not UNSET
        summary["note"] = change.note
        summary["truncated"] = bool(change.truncated)
    return summary


def _rewritten(state: BeforeState, call: ToolCall) -> dict[str, str]:
    """Fields whose final value differs from the proposal, with the plugin that last wrote them."""
    if not state.writers:
        return {}
    missing = object()
    proposed, final = state.proposed, call.params
    return {
        key: plugin
        for key, plugin in state.writers.items()
        if proposed.get(key, missing) != final.get(key, missing)
    }
