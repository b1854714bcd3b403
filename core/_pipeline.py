"""One call through the pipeline: intake, before chain, validation, approval, execution,
after chain, outcome. Written once as a generator; ``_driver`` runs it sync or async.

The generator yields only what has to be waited on (an async handler or tool, a timed handler, an
approver). On the common path, every handler a plain ``def`` and the tool sync, it never yields,
and the steps that cannot need to wait are plain functions, so ``call`` pays little for sharing
its code with ``acall``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from inspect import isawaitable
from time import perf_counter
from typing import Any

from ._after import CORE, Verdict, run_after_chain
from ._approvals import ApprovalBook, Approver, Resolution, ask, make_pending
from ._driver import AwaitIt, Pipeline
from ._events import EventDispatcher
from ._frozen import FrozenDict, freeze_params, params_digest, thaw_params
from ._merge import BeforeState, Emit, Record, call_ids, describe_error, run_before_chain
from ._models import InvalidToolCall, ToolCall, new_id
from ._registry import Registry
from ._render import render_content
from ._results import Outcome, ToolResult
from ._scope import current_scope
from ._tools import ParamsInvalid, Tool
from ._visibility import internal_only

ADJUSTED_PARAMS_LIMIT = 4096
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
    adjusted: OrderedDict[str, FrozenDict]
    """The final params of the last ADJUSTED_PARAMS_LIMIT calls, by call id."""
    emit: Emit = field(init=False)
    record: Record = field(init=False)

    def __post_init__(self) -> None:
        # Bound once here rather than once per call.
        self.emit = self.events.emit
        self.record = self.events.record


def rejected(ctx: Context, raw: Any, problem: Exception) -> Outcome:
    """A proposal that is not a valid tool call: an Outcome, recorded, never an exception."""
    try:
        name = raw.get("name") if isinstance(raw, Mapping) else None
    except Exception:  # a mapping that raises on access
        name = None
    if not isinstance(problem, (InvalidToolCall, TypeError)):
        problem = InvalidToolCall(f"it cannot be read: {describe_error(problem)}")
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


def _intake(
    tools: dict[str, Tool], raw: ToolCall | Mapping[str, Any]
) -> tuple[ToolCall, Tool | None]:
    """The proposal as a ToolCall carrying its tool's spec, and the tool (None if unknown)."""
    if type(raw) is ToolCall:
        tool = tools.get(raw.name)
        if tool is not None and raw.spec is not tool.spec:
            return raw.with_spec(tool.spec), tool
        return raw, tool
    name = raw.get("name") if type(raw) is dict or isinstance(raw, Mapping) else None
    tool = tools.get(name) if type(name) is str else None
    return ToolCall.from_mapping(raw, None if tool is None else tool.spec), tool  # type: ignore[arg-type]


def run_call(
    ctx: Context, raw: ToolCall | Mapping[str, Any], execute: Execute | None
) -> Pipeline[Outcome]:
    try:
        call, tool = _intake(ctx.tools, raw)
    except Exception as exc:  # a bad proposal is an Outcome, never an exception
        return rejected(ctx, raw, exc)
    before, after = ctx.registry.call_chains(call.name)
    tracing = bool(ctx.events.sinks)  # no sink: no event is built at all
    record = ctx.record
    state = BeforeState(ctx.emit, record, call)
    token = current_scope.set(state)
    try:
        if tracing:
            record(
                state,
                "tool.proposed",
                None,
                {
                    "params": dict(call.params),
                    "origin": call.origin,
                    "agent_id": call.agent_id,
                    "sender": call.sender.id if call.sender else None,
                },
            )
        yield from run_before_chain(state, before, tracing)
        state.plugin = None
        verdict = _decide(state, tool, execute, call.name)
        if verdict.status == "go" and state.approval_plugin is not None:
            verdict = yield from _approve(ctx, state, verdict)
        final_call = state.call
        if verdict.params is not state.params and verdict.params != state.params:
            final_call = final_call.with_params(freeze_params(verdict.params))
        adjusted = ctx.adjusted  # adjusted_params(): bounded, oldest out first
        adjusted[call.id] = final_call.params
        if len(adjusted) > ADJUSTED_PARAMS_LIMIT:
            _evict_oldest(adjusted)
        interrupted: BaseException | None = None
        if verdict.status == "go":
            result, interrupted = yield from _execute(tool, execute, verdict, state, tracing)
        else:
            if verdict.status == "blocked":
                record(
                    state,
                    "tool.blocked",
                    verdict.blocked_by,
                    {"by": verdict.blocked_by, "reason": verdict.reason},
                )
            result = ToolResult(
                verdict.status,  # type: ignore[arg-type]  # not "go" here: a Status
                None,
                verdict.reason or "",
                verdict.reason,
                None,
                verdict.kind,
            )
        return (
            yield from run_after_chain(
                after, final_call, result, verdict, state, tracing, interrupted
            )
        )
    finally:
        state.done = True  # a handler thread left running cannot emit past tool.injected
        # Not contextlib.suppress: that is an object per call on the hot path.
        try:  # noqa: SIM105
            current_scope.reset(token)
        except ValueError:  # finalised in another context (the generator was closed by the GC)
            pass


def _evict_oldest(adjusted: OrderedDict[str, FrozenDict]) -> None:
    # Not contextlib.suppress: once the store is full this runs on every call.
    try:  # noqa: SIM105
        adjusted.popitem(last=False)
    except KeyError:  # another thread evicted first
        pass


def _decide(state: BeforeState, tool: Tool | None, execute: Execute | None, name: str) -> Verdict:
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
    thawed = thaw_params(state.params) if state.params else {}
    if tool is None:
        return Verdict("go", thawed, thawed)
    try:
        kwargs, shown = tool.validate(thawed)
    except ParamsInvalid as exc:
        reason = f"Invalid params for tool '{name}': {exc}"
        return Verdict("blocked", dict(state.params), None, "invalid_params", reason, CORE)
    return Verdict("go", shown, kwargs)


def _approve(ctx: Context, state: BeforeState, verdict: Verdict) -> Pipeline[Verdict]:
    """Resolve the approval a hook asked for; what runs must be what the approver saw."""
    assert state.approval is not None and state.approval_plugin is not None
    call = state.call
    name, shown, plugin = call.name, verdict.params, state.approval_plugin
    ids = call_ids(call)
    sender_id = call.sender.id if call.sender else None
    frozen_shown = freeze_params(shown)
    digest = params_digest(name, frozen_shown, sender_id, call.session_id)
    key = (plugin, name, sender_id)
    emit = ctx.events.emit
    if ctx.book.granted(key):
        resolution = Resolution("allow-always", None, remembered=True)
    else:
        request = state.approval
        pending = make_pending(call.with_params(frozen_shown), plugin, request, digest)
        emit(
            "approval.requested",
            *ids,
            plugin,
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
        plugin,
        {
            "decision": resolution.decision,
            "reason": resolution.reason,
            "remembered": resolution.remembered,
            "by": resolution.by,
        },
    )
    if resolution.decision == "deny":
        denied = Verdict("denied", shown, None, "approval", resolution.reason)
        denied.approval = "deny"
        return denied
    if resolution.decision == "allow-always" and not resolution.remembered:
        ctx.book.grant(key)
    # What runs must be byte-for-byte what the approver saw.
    if params_digest(name, shown, sender_id, call.session_id) != digest:
        reason = "Blocked: the params changed after they were approved (digest mismatch)"
        return Verdict("blocked", shown, None, "approval", reason, CORE)
    verdict.approval = resolution.decision
    return verdict


def _execute(
    tool: Tool | None,
    execute: Execute | None,
    verdict: Verdict,
    state: BeforeState,
    tracing: bool,
) -> Pipeline[tuple[ToolResult, BaseException | None]]:
    """Run the tool; a failure becomes an error result, an interruption is handed back."""
    if tracing:
        # A read-only copy: a sink must not be able to change what runs after the digest check.
        state.record(state, "tool.started", None, {"params": freeze_params(verdict.params)})
    started = perf_counter()
    interrupted: BaseException | None = None
    try:
        if execute is not None:  # an explicit executor wins over a registered function
            value = execute(verdict.params)
        else:
            assert tool is not None
            value = tool.function(**(verdict.kwargs or {}))
        if type(value) not in _PLAIN_VALUES and isawaitable(value):
            value = yield AwaitIt(value, None)
        # A str (the usual tool result) is its own content; render_content is for the rest.
        result = ToolResult("ok", value, value if type(value) is str else "", None, 0.0, None)
    except Exception as exc:
        message = f"Tool '{state.tool}' failed: {describe_error(exc)}"
        result = ToolResult("error", None, message, message, 0.0, "exception")
    except BaseException as exc:  # cancelled or interrupted: still audited, then re-raised
        interrupted = exc
        message = f"Tool '{state.tool}' was interrupted: {type(exc).__name__}"
        result = ToolResult("error", None, message, message, 0.0, "interrupted")
    result.duration_ms = round((perf_counter() - started) * 10_000_000) / 10_000  # see elapsed_ms
    if result.status == "ok" and type(value) is not str:
        result.content = render_content(result.value)
    if tracing:
        state.record(
            state,
            "tool.finished",
            None,
            {"status": result.status, "duration_ms": result.duration_ms, "error": result.error},
        )
    return result, interrupted
