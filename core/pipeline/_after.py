"""The after_tool_call chain, and the Outcome it ends in (PLUGINS.md, "after_tool_call").

Every call that reached a decision comes here, executed, failed, blocked or denied, so that audit
plugins see everything. Handlers run in priority order; ``content`` / ``value`` replace the
running ones (last writer wins), notes are appended to the injected text, and a handler's failure
is recorded and ignored unless its plugin is configured ``on_error = "block"``.
"""

from __future__ import annotations

from inspect import isawaitable
from time import perf_counter
from typing import Any

from ..records._errors import ParamsError
from ..records._frozen import SCALARS, freeze_value
from ..records._models import UNSET, ToolCall
from ..records._results import AfterToolCallResult, Outcome, ToolResult, coerce_after
from ..registry._registry import DEFAULT_ASYNC_TIMEOUT, Handler
from ._before import BeforeState
from ._driver import AwaitIt, Pipeline
from ._invoke import elapsed_ms, hook_failed, invoke, quiet_entry
from ._verdict import Verdict


def run_after_chain(
    chain: tuple[Handler, ...],
    call: ToolCall,
    result: ToolResult,
    verdict: Verdict,
    state: BeforeState,
    tracing: bool,
    interrupted: BaseException | None,
    rendered: str | None = None,
) -> Pipeline[Outcome]:
    """after_tool_call in order (fail open by default), then the Outcome; always runs.

    ``rendered`` is the executed tool's own content (None when it did not run).
    """
    record = state.record
    # What the Outcome reports: the tool's own value unless a hook returned another. Hooks see a
    # read-only copy of it, so that no handler (an audit one included) can change it in place.
    value = result.value
    if chain and type(value) not in SCALARS:
        result = _with_value(result, read_only(value))
    notes: list[str] = []
    truncated, artifact = False, None
    withheld_by: str | None = None
    for handler in chain:
        state.plugin = handler.plugin
        started = perf_counter() if tracing else 0.0
        try:
            if handler.direct:  # a plain def taking (call, result): called as it is
                raw = handler.function(call, result)
            elif handler.inline:
                raw = handler.function(*handler.call_args({"call": call, "result": result}))
            else:
                raw = yield from invoke(
                    handler, handler.call_args({"call": call, "result": result})
                )
            if raw is not None and handler.inline and type(raw) is not dict and isawaitable(raw):
                raw = yield AwaitIt(raw, handler.timeout or DEFAULT_ASYNC_TIMEOUT)
            change = coerce_after(raw) if raw is not None else None
            if change is None:
                if tracing:
                    state.quiet.append(quiet_entry(handler, started))
                continue
        except Exception as exc:
            failure = hook_failed(state, handler, "after_tool_call", exc)
            problem = failure["error"]
            record(state, "hook.error", handler.plugin, failure)
            # Only a result can be withheld: a call that never ran keeps its blocker and reason.
            ran = result.status in ("ok", "error")
            if handler.on_error == "block" and withheld_by is None and not handler.audit and ran:
                withheld_by = handler.plugin
                reason = f"Tool result withheld because after_tool_call hook {handler.plugin} failed: {problem}"
                result = ToolResult("blocked", None, reason, reason, result.duration_ms, "policy")
                value = None
            continue
        if tracing:
            record(state, "hook.decision", handler.plugin, _after_summary(handler, change, started))
        if handler.audit:
            continue
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
        if change.note:
            notes.append(change.note)
        if change.truncated or change.artifact:
            truncated = True
            artifact = change.artifact or artifact
    state.plugin = None
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
        rewritten_by=_rewritten(state, call) if state.writers else {},
        # The text the tool's own result rendered to, changed by a hook (a redaction, a trim)?
        content_changed=rendered is not None and result.content != rendered,
    )
    if tracing:
        record(
            state,
            "tool.injected",
            None,
            {
                "status": status,
                "chars": len(content),
                "truncated": truncated,
                "artifact": artifact,
                "quiet": state.quiet,
            },
        )
    if interrupted is not None:
        raise interrupted
    return outcome


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


def _rewritten(state: BeforeState, call: ToolCall) -> dict[str, str]:
    """Fields whose final value differs from the proposal, with the plugin that last wrote them."""
    missing = object()
    proposed, final = state.proposed, call.params
    assert state.writers is not None
    return {
        key: plugin
        for key, plugin in state.writers.items()
        if proposed.get(key, missing) != final.get(key, missing)
    }
