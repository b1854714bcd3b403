"""Concluding a call: the tool runs (when the verdict is "go"), then the after chain, ending in
the ``Outcome``; ``tool.started`` and ``tool.finished`` (with the result's digest) on the way.

Every call that reached a decision comes to the after chain (PLUGINS.md, "after_tool_call"),
executed, failed, blocked or denied, so that audit plugins see everything. Its handlers run in
priority order through the dispatch (``_invoke.run_chain``); ``content`` / ``value`` replace the
running ones (last writer wins), notes are appended to the injected text, and a handler's
failure is recorded and ignored unless its plugin is configured ``on_error = "block"``.
"""

from __future__ import annotations

import zlib
from inspect import isawaitable
from time import perf_counter
from typing import Any, NamedTuple

from ..records._errors import ParamsError
from ..records._frozen import SCALARS, freeze_params, freeze_value
from ..records._models import UNSET, ToolCall
from ..records._results import (
    AfterToolCallResult,
    Outcome,
    ToolError,
    ToolResult,
    coerce_after,
)
from ..registry._registry import Handler
from ._context import Context, Run
from ._driver import AwaitIt, Pipeline
from ._invoke import CallTrace, ChainRules, describe_error, elapsed_ms, quiet_entry, run_chain
from ._render import render_content
from ._state import CallState
from ._verdict import Verdict

_PLAIN_VALUES = frozenset({str, dict, list, int, float, bool, bytes, type(None)})


def conclude(ctx: Context, run: Run, verdict: Verdict) -> Pipeline[Outcome]:
    """Execute (when the verdict is "go"), then the after chain and the Outcome."""
    state, trace = run.state, run
    final_call = _final_call(ctx, state, verdict)
    interrupted = run.interrupted
    if verdict.status == "go" and run.registered is None and run.execute is None:
        reason = f"Unknown tool '{state.call.name}'"
        verdict = Verdict("error", verdict.params, None, "unknown_tool", reason)
    if verdict.status == "go":
        # The tool runs here rather than in a generator of its own: one generator less on
        # every call.
        if run.tracing:
            # ``final_call.params`` is the read-only copy of ``verdict.params``: a sink must not
            # be able to change what runs after the digest check.
            trace.record(trace, "tool.started", None, {"params": final_call.params})
        started = perf_counter()
        try:
            value = _start_tool(run, verdict)
            if type(value) not in _PLAIN_VALUES and isawaitable(value):
                value = yield AwaitIt(value, None)
        except GeneratorExit:
            raise
        except BaseException as exc:
            result, raised = _tool_failed(ctx, run, exc, started)
            interrupted = interrupted or raised
        else:
            content = value if type(value) is str else render_content(value)
            result = ToolResult("ok", value, content, None, elapsed_ms(started), None)
        if run.tracing:
            _record_finished(trace, result)
        rendered: str | None = result.content
    else:
        result = _not_run(ctx, trace, verdict)
        rendered = None
    # the after chain: each handler through the dispatch, its result folded in by ``_step``
    value = result.value
    after = None  # no handler changed anything (yet)
    if run.after:
        # Hooks see a read-only copy of the value, so that no handler (an audit one included)
        # can change in place what the Outcome reports.
        if type(value) not in SCALARS:
            result = _with_value(result, read_only(value))
        after = yield from run_chain(_AFTER, run.after, None, (final_call, result), trace)
        if after is not None:
            result = after.result
            if after.value is not UNSET:
                value = after.value
    return _outcome(final_call, result, value, after, verdict, state, trace, rendered, interrupted)


def _final_call(ctx: Context, state: CallState, verdict: Verdict) -> ToolCall:
    """The call as it runs; ``adjusted_params()`` learns whether its params changed."""
    # The params are frozen once more only when validation changed them; the frozen copy then
    # serves the adjusted-params record, tool.started and the after chain alike.
    final_call = state.call
    if verdict.params != final_call.params:
        final_call = final_call.with_params(freeze_params(verdict.params))
    # adjusted_params(): bounded in count and bytes; big params nobody changed are not kept
    changed = final_call.params is not state.proposed
    ctx.adjusted.remember(final_call.id, final_call.params, changed)
    return final_call


def _record_finished(trace: CallTrace, result: ToolResult) -> None:
    """``tool.finished``: the ran tool's status, time, error and its result's digest."""
    trace.record(
        trace,
        "tool.finished",
        None,
        {
            "status": result.status,
            "duration_ms": result.duration_ms,
            "error": result.error,
            "result_digest": (result_digest(result.content) if result.status == "ok" else None),
        },
    )


def _not_run(ctx: Context, trace: CallTrace, verdict: Verdict) -> ToolResult:
    """The result of a call whose tool does not run (blocked, denied, an error before it)."""
    if verdict.status == "blocked":
        ctx.record(
            trace,
            "tool.blocked",
            verdict.blocked_by,
            {"by": verdict.blocked_by, "reason": verdict.reason},
        )
    return ToolResult(
        verdict.status,  # type: ignore[arg-type]  # not "go" here: a Status
        None,
        verdict.reason or "",
        verdict.reason,
        None,
        verdict.kind,
    )


def _outcome(
    call: ToolCall,
    result: ToolResult,
    value: Any,
    after: _After | None,
    verdict: Verdict,
    state: CallState,
    trace: CallTrace,
    rendered: str | None,
    interrupted: BaseException | None,
) -> Outcome:
    """The Outcome the after chain ended in (``tool.injected`` says what the model gets)."""
    if after is None:
        notes: list[str] = []
        truncated, artifact, withheld_by = False, None, None
    else:
        notes = list(after.notes)
        truncated, artifact, withheld_by = after.truncated, after.artifact, after.withheld_by
    content = result.content
    if notes:
        content = f"{content}\n\n" + "\n".join(notes) if content else "\n".join(notes)
    status = result.status
    outcome = Outcome(
        status=status,
        content=content,
        call_id=call.id,
        trace_id=call.trace_id,
        tool=call.name,
        value=value,
        params=verdict.params,
        blocked_by=withheld_by or verdict.blocked_by,
        reason=verdict.reason if withheld_by is None else result.error,
        notes=notes,
        truncated=truncated,
        artifact=artifact,
        approval=verdict.approval,
        rewritten_by=state.rewritten(call.params) if state.writers else {},
        # The text the tool's own result rendered to, changed by a hook (a redaction, a trim)?
        content_changed=rendered is not None and result.content != rendered,
    )
    if trace.tracing:
        trace.record(
            trace,
            "tool.injected",
            None,
            {
                "status": status,
                "chars": len(content),
                "truncated": truncated,
                "artifact": artifact,
                "quiet": trace.quiet,
            },
        )
    if interrupted is not None:
        raise interrupted
    return outcome


def _start_tool(run: Run, verdict: Verdict) -> Any:
    """Call the tool (an explicit executor wins over a registered function)."""
    if run.execute is not None:
        return run.execute(verdict.params)
    assert run.registered is not None
    return run.registered.function(**(verdict.kwargs or {}))


def _tool_failed(
    ctx: Context, run: Run, exc: BaseException, started: float
) -> tuple[ToolResult, BaseException | None]:
    """A tool that raised: an error result, and the exception when it must be re-raised."""
    duration_ms = elapsed_ms(started)
    tool = run.state.call.name
    if isinstance(exc, ToolError):  # the tool's own message for the model, exactly
        return ToolResult("error", None, exc.content, exc.content, duration_ms, "tool_error"), None
    if isinstance(exc, Exception) and not (ctx.passthrough and isinstance(exc, ctx.passthrough)):
        error = f"Tool '{tool}' failed: {describe_error(exc)}"
        return ToolResult("error", None, error, error, duration_ms, "exception"), None
    # cancelled, interrupted or a framework's control flow: audited, then re-raised
    kind = "interrupted" if not isinstance(exc, Exception) else "passthrough"
    error = f"Tool '{tool}' was interrupted: {type(exc).__name__}"
    return ToolResult("error", None, error, error, duration_ms, kind), exc


class _After(NamedTuple):
    """What the after chain has made of the result so far (last writer wins); made by the first
    handler that changes anything (None until then: the tool's result as it was)."""

    call: ToolCall
    result: ToolResult
    value: Any
    """What the Outcome reports: UNSET for the tool's own value, else the one a hook returned."""
    notes: tuple[str, ...] = ()
    truncated: bool = False
    artifact: str | None = None
    withheld_by: str | None = None


def _arguments(after: _After | None) -> tuple[Any, ...]:
    assert after is not None  # asked only of a running value a step replaced
    return (after.call, after.result)


def _step(
    after: _After | None,
    handler: Handler,
    raw: Any,
    started: float,
    trace: CallTrace | None,
    values: tuple[Any, ...],
) -> _After | None:
    change = coerce_after(raw)
    if change is None:  # an empty answer: no opinion either
        if trace is not None and trace.tracing:
            trace.quiet.append(quiet_entry(handler, started))
        return after
    if trace is not None and trace.tracing:
        trace.record(
            trace, "hook.decision", handler.plugin, _after_summary(handler, change, started)
        )
    if handler.audit:
        return after
    if after is None:
        after = _After(values[0], values[1], UNSET)
    result, value = after.result, after.value
    if change.content is not None or change.value is not UNSET or change.labels:
        if change.value is not UNSET:
            value = change.value
        result = ToolResult(
            result.status,
            result.value if change.value is UNSET else read_only(change.value),
            result.content if change.content is None else change.content,
            result.error,
            result.duration_ms,
            result.error_kind,
            result.labels.union(change.labels) if change.labels else result.labels,
        )
    notes = (*after.notes, change.note) if change.note else after.notes
    truncated, artifact = after.truncated, after.artifact
    if change.truncated or change.artifact:
        truncated, artifact = True, change.artifact or artifact
    return _After(after.call, result, value, notes, truncated, artifact, after.withheld_by)


def _failed(
    after: _After | None,
    handler: Handler,
    error: str,
    trace: CallTrace | None,
    values: tuple[Any, ...],
) -> _After | None:
    """Fails open, unless the plugin is ``on_error = "block"``: then the result is withheld."""
    result = values[1]
    # Only a result can be withheld: a call that never ran keeps its blocker and reason.
    ran = result.status in ("ok", "error")
    withheld_by = None if after is None else after.withheld_by
    if handler.on_error != "block" or withheld_by is not None or handler.audit or not ran:
        return after
    if after is None:
        after = _After(values[0], result, UNSET)
    reason = f"Tool result withheld because after_tool_call hook {handler.plugin} failed: {error}"
    withheld = ToolResult("blocked", None, reason, reason, result.duration_ms, "policy")
    return after._replace(result=withheld, value=None, withheld_by=handler.plugin)


_AFTER: ChainRules[_After | None] = ChainRules("after_tool_call", _step, _failed, _arguments)


def read_only(value: Any) -> Any:
    """A read-only deep copy of a JSON-like value; any other value is handed over as it is."""
    if type(value) in SCALARS:
        return value
    try:
        return freeze_value(value, "result.value")
    except ParamsError:  # an object the core cannot copy read-only (a model, a file, ...)
        return value


def _with_value(result: ToolResult, value: Any) -> ToolResult:
    return ToolResult(
        result.status,
        value,
        result.content,
        result.error,
        result.duration_ms,
        result.error_kind,
        result.labels,
    )


def _after_summary(handler: Handler, change: AfterToolCallResult, started: float) -> dict[str, Any]:
    """The data of an after_tool_call ``hook.decision`` event."""
    return {
        "hook": "after_tool_call",
        "priority": handler.priority,
        "latency_ms": elapsed_ms(started),
        "applied": not handler.audit,
        "content": change.content is not None,
        "value": change.value is not UNSET,
        "note": change.note,
        "truncated": bool(change.truncated),
        "labels": list(change.labels or ()),
    }


DIGEST_SPAN = 4_096
"""A result longer than twice this is digested by its length, head and tail only."""


def result_digest(content: str) -> str:
    """A short digest of a result's text, in ``tool.finished``: ``<length>:<crc32>``.

    Equal results get equal digests, so ``toolhooks whatif`` can stand in a result that loop
    detection sees as the same as an earlier one, or not, as it did. It says nothing more than
    that: it is not a security digest (CRC-32 is the cheapest that tells results apart). A
    result longer than ``2 * DIGEST_SPAN`` characters is digested by its length, head and tail,
    so the cost stays small whatever its size.
    """
    size = len(content)
    if size > 2 * DIGEST_SPAN:
        content = content[:DIGEST_SPAN] + content[-DIGEST_SPAN:]
    checksum = zlib.crc32(content.encode("utf-8", "surrogatepass"))
    return f"{size}:{checksum:08x}"
