"""The stages of one call: intake, the fence and before chain (``screen``), validation,
execution, the after chain and the outcome (``conclude``). ``toolhooks.runtime._call`` strings
them together with the approval step; ``_driver`` runs the generator sync or async.

The generator yields only what has to be waited on (an async handler or tool, a timed handler, an
approver). On the common path, every handler a plain ``def`` and the tool sync, it never yields,
and the steps that cannot need to wait are plain functions, so ``call`` pays little for sharing
its code with ``acall``.
"""

from __future__ import annotations

import contextlib
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from inspect import isawaitable
from time import perf_counter
from typing import TYPE_CHECKING, Any

from ..events._events import EventDispatcher
from ..records._errors import InvalidToolCall
from ..records._frozen import freeze_params, thaw_params
from ..records._models import Status, ToolCall, ToolSpec, new_id
from ..records._results import Outcome, ToolError, ToolResult
from ..registry._registry import Registry
from ..stores._contract import DEFAULT_DEFER_TTL_S, ApprovalStore
from ._adjusted import AdjustedParams
from ._after import run_after_chain
from ._before import BeforeState, Emit, Record, run_before_chain
from ._driver import AwaitIt, Pipeline
from ._invoke import describe_error, elapsed_ms
from ._render import render_content
from ._tools import ParamsInvalid, Tool
from ._verdict import CORE, Verdict
from ._visibility import hidden_by, internal_only

if TYPE_CHECKING:  # the approvals layer sits above the stages; only its types are named here
    from ..approvals._resolve import Approver, Resolution

PAUSED_LIMIT = 4096
_PLAIN_VALUES = frozenset({str, dict, list, int, float, bool, bytes, type(None)})
Execute = Callable[[dict[str, Any]], Any]


@dataclass
class Context:
    """What the pipeline needs from the runtime; built once, shared by every call."""

    registry: Registry
    tools: dict[str, Tool]
    events: EventDispatcher
    store: ApprovalStore
    approver: Approver | None
    adjusted: AdjustedParams
    """The final params of recent calls, by call id (bounded)."""
    defer_ttl_s: float = DEFAULT_DEFER_TTL_S
    shared_store: bool = False
    """The store is shared with other processes: a call id may have been paused elsewhere."""
    passthrough: tuple[type[BaseException], ...] = ()
    paused: OrderedDict[str, str] = field(default_factory=OrderedDict)
    """Call id -> approval id of calls this runtime paused (deferred, or decided as pending)."""
    unasked: set[str] = field(default_factory=set)
    """Approval ids ``decide`` stored that no approver was asked about yet."""
    answered: OrderedDict[str, Resolution] = field(default_factory=OrderedDict)
    """Approval id -> the approver's answer ``Runtime.ask`` recorded, applied as it was given."""
    decided: OrderedDict[str, Run] = field(default_factory=OrderedDict)
    """Calls ``decide`` screened (allowed or blocked), waiting for their ``call``."""
    emit: Emit = field(init=False)
    record: Record = field(init=False)

    def __post_init__(self) -> None:
        # Bound once here rather than once per call.
        self.emit = self.events.emit
        self.record = self.events.record


class Run:
    """One call's way through the pipeline: its state (also its event scope) and what runs it."""

    __slots__ = (
        "after",
        "before",
        "execute",
        "interrupted",
        "proposed",
        "state",
        "tool",
        "tracing",
        "verdict",
    )

    def __init__(
        self, ctx: Context, call: ToolCall, tool: Tool | None, execute: Execute | None
    ) -> None:
        self.before, self.after = ctx.registry.call_chains(call.name)
        self.tracing = bool(ctx.events.sinks)  # no sink: no event is built at all
        self.state = BeforeState(ctx.emit, ctx.record, call)
        self.proposed = call.params
        """The model's proposal: an edit changes the state's params, never this (a repeated
        call with the same id is recognised by it)."""
        self.tool = tool
        self.execute = execute
        self.interrupted: BaseException | None = None
        self.verdict: Verdict | None = None


def proposed_data(call: ToolCall) -> dict[str, Any]:
    """The data of a call's ``tool.proposed`` event: everything ``toolhooks whatif`` needs to
    rebuild the call from the log. Fields that are unset (no run id, a bare sender id, no tags)
    are left out, so the usual line is no longer than it was before they were added."""
    sender = call.sender
    data: dict[str, Any] = {
        "params": dict(call.params),
        "origin": call.origin,
        "agent_id": call.agent_id,
        "sender": None if sender is None else sender.id,
    }
    if call.run_id is not None:
        data["run_id"] = call.run_id
    if call.context_window_tokens is not None:
        data["context_window_tokens"] = call.context_window_tokens
    if sender is not None and (sender.name or sender.channel or sender.roles or sender.is_owner):
        # What policies key on besides the id (roles, channel, name, owner).
        detail: dict[str, Any] = {}
        if sender.name is not None:
            detail["name"] = sender.name
        if sender.channel is not None:
            detail["channel"] = sender.channel
        if sender.roles:
            detail["roles"] = list(sender.roles)
        if sender.is_owner:
            detail["is_owner"] = True
        data["sender_detail"] = detail
    spec = call.spec
    if spec is not None and spec.tags:
        data["tags"] = sorted(spec.tags)
    return data


DIGEST_SPAN = 4_096
"""A result longer than twice this is digested by its length, head and tail only."""


def result_digest(content: str) -> str:
    """A short digest of a result's text, in ``tool.finished``: ``<length>:<crc32>``.

    Equal results get equal digests, so ``toolhooks whatif`` can stand in a result that loop
    detection sees as the same as an earlier one, or not, as it did. It says nothing more than
    that: it is not a security digest (CRC-32 is the cheapest that tells results apart, 0.3 µs
    for a small result). A result longer than ``2 * DIGEST_SPAN`` characters is digested by its
    length, head and tail, so the cost stays a few microseconds whatever its size.
    """
    size = len(content)
    if size > 2 * DIGEST_SPAN:
        content = content[:DIGEST_SPAN] + content[-DIGEST_SPAN:]
    return f"{size}:{zlib.crc32(content.encode('utf-8', 'surrogatepass')):08x}"


def remember(table: OrderedDict[str, Any], key: str, value: Any, limit: int = PAUSED_LIMIT) -> None:
    """Bounded insert, oldest out first."""
    table[key] = value
    if len(table) > limit:
        _evict_oldest(table)


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
        {"status": "blocked", "chars": len(reason), "quiet": []},
    )
    return Outcome(
        status="blocked",
        content=reason,
        call_id=call_id,
        trace_id=trace_id,
        tool=tool or "",
        blocked_by=CORE,
        reason=reason,
    )


def intake(
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


def screen(ctx: Context, run: Run, may_execute: bool = True) -> Pipeline[Verdict]:
    """The before chain, visibility and validation: blocked, unknown, invalid or "go"."""
    state = run.state
    yield from run_before_chain(state, run.before, run.tracing)
    state.plugin = None
    if state.blocked_by is None and ctx.registry.chain("tool_visible", state.tool):
        call = state.call
        spec = call.spec or ToolSpec(call.name)
        hider = yield from hidden_by(ctx.registry, spec, call.sender, call.agent_id, call.origin)
        if hider is not None:
            state.blocked_by = hider
            state.block_reason = (
                f"Tool '{call.name}' is not available to this caller (hidden by plugin {hider})"
            )
    return decide_verdict(state, run.tool, run.execute if may_execute else _LATER, state.tool)


def _later(_params: dict[str, Any]) -> Any:  # pragma: no cover - never executed
    raise LookupError("no executor")


_LATER: Execute = _later
"""``decide`` has no executor yet: an unregistered tool may still get one from the later call."""


def conclude(ctx: Context, run: Run, verdict: Verdict) -> Pipeline[Outcome]:
    """Execute (when the verdict is "go"), then the after chain and the Outcome."""
    state = run.state
    # The params are frozen once more only when validation changed them; the frozen copy then
    # serves the adjusted-params record, tool.started and the after chain alike.
    final_call = state.call
    if verdict.params is not state.params and verdict.params != state.params:
        final_call = final_call.with_params(freeze_params(verdict.params))
    # adjusted_params(): bounded in count and bytes; big params nobody changed are not kept
    changed = final_call.params is not state.proposed
    ctx.adjusted.remember(final_call.id, final_call.params, changed)
    interrupted = run.interrupted
    if verdict.status == "go" and run.tool is None and run.execute is None:
        reason = f"Unknown tool '{state.tool}'"
        verdict = Verdict("error", verdict.params, None, "unknown_tool", reason)
    if verdict.status == "go":
        result, raised = yield from _execute(ctx, run, verdict, final_call.params)
        interrupted = interrupted or raised
    else:
        if verdict.status == "blocked":
            ctx.record(
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
    rendered = result.content if verdict.status == "go" else None
    return (
        yield from run_after_chain(
            run.after, final_call, result, verdict, state, run.tracing, interrupted, rendered
        )
    )


def _evict_oldest(adjusted: OrderedDict[str, Any]) -> None:
    with contextlib.suppress(KeyError):  # another thread evicted first
        adjusted.popitem(last=False)


def decide_verdict(
    state: BeforeState, tool: Tool | None, execute: Execute | None, name: str
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
    thawed = thaw_params(state.params) if state.params else {}
    if tool is None:
        return Verdict("go", thawed, thawed)
    try:
        kwargs, shown = tool.validate(thawed)
    except ParamsInvalid as exc:
        reason = f"Invalid params for tool '{name}': {exc}"
        return Verdict("blocked", dict(state.params), None, "invalid_params", reason, CORE)
    return Verdict("go", shown, kwargs)


def _execute(
    ctx: Context, run: Run, verdict: Verdict, frozen: Mapping[str, Any]
) -> Pipeline[tuple[ToolResult, BaseException | None]]:
    """Run the tool; a failure becomes an error result, an interruption is handed back."""
    state, tool, execute, tracing = run.state, run.tool, run.execute, run.tracing
    if tracing:
        # ``frozen`` is the read-only copy of ``verdict.params``: a sink must not be able to
        # change what runs after the digest check.
        state.record(state, "tool.started", None, {"params": frozen})
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
        status: Status = "ok"
        content, error, kind = None, None, None
    except ToolError as exc:  # the tool's own message for the model, exactly
        value, status, content, error, kind = None, "error", exc.content, exc.content, "tool_error"
    except GeneratorExit:
        raise
    except BaseException as exc:
        value, status = None, "error"
        if isinstance(exc, Exception) and not (
            ctx.passthrough and isinstance(exc, ctx.passthrough)
        ):
            error = f"Tool '{state.tool}' failed: {describe_error(exc)}"
            kind = "exception"
        else:  # cancelled, interrupted or a framework's control flow: audited, then re-raised
            interrupted = exc
            kind = "interrupted" if not isinstance(exc, Exception) else "passthrough"
            error = f"Tool '{state.tool}' was interrupted: {type(exc).__name__}"
        content = error
    duration_ms = elapsed_ms(started)
    if content is None:  # a str (the usual tool result) is its own content
        content = value if type(value) is str else render_content(value)
    result = ToolResult(status, value, content, error, duration_ms, kind)  # read-only, complete
    if tracing:
        state.record(
            state,
            "tool.finished",
            None,
            {
                "status": result.status,
                "duration_ms": result.duration_ms,
                "error": result.error,
                "result_digest": result_digest(content) if result.status == "ok" else None,
            },
        )
    return result, interrupted
