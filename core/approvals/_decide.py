"""``Runtime.decide``: the fence, the before chain, validation and the approval step, without
executing; what it decides is remembered, so the next ``call`` with that id runs or blocks exactly
that (a pending approval stays in the store, nobody asked yet)."""

from __future__ import annotations

from typing import Any

from ..events._scope import current_scope
from ..pipeline._context import Context, Run, remember
from ..pipeline._driver import Pipeline
from ..pipeline._intake import proposed_data, rejected
from ..pipeline._screen import screen
from ..pipeline._state import CallState
from ..pipeline._verdict import CORE, Verdict
from ..records._decisions import Decision
from ..records._frozen import freeze_params, thaw
from ..records._results import PendingApproval
from ._gate import gate
from ._pause import approval_failed, defer


def run_decide(ctx: Context, raw: Any) -> Pipeline[Decision]:
    """The fence, the before chain and validation, without executing (``Runtime.decide``)."""
    from ..pipeline._intake import intake

    try:
        call, tool = intake(ctx.tools, raw)
    except Exception as exc:
        outcome = rejected(ctx, raw, exc)
        return Decision(
            status="blocked",
            call_id=outcome.call_id,
            trace_id=outcome.trace_id,
            tool=outcome.tool,
            reason=outcome.reason,
            blocked_by=CORE,
        )
    known = ctx.decided.get(call.id)
    if known is not None and known.verdict is not None:
        return _decision(known.state, known.verdict)
    approval_id = ctx.paused.get(call.id)
    row = ctx.store.get(approval_id) if approval_id is not None else None
    if row is not None and row.state in ("pending", "decided"):
        return _pending_decision(row.pending(None if tool is None else tool.spec))
    run = Run(ctx, call, tool, None)
    token = current_scope.set(run)
    try:
        if run.tracing:
            ctx.record(run, "tool.proposed", None, proposed_data(call))
        verdict = yield from screen(ctx, run, may_execute=False)
        if verdict.status == "go" and run.state.approval_plugin is not None:
            try:
                gated = yield from gate(ctx, run, verdict, interactive=False)
                if isinstance(gated, PendingApproval):
                    outcome = defer(ctx, run, gated, asked=False)
                    assert outcome.pending is not None
                    return _pending_decision(outcome.pending)
            except Exception as exc:  # fail closed, as in call()
                gated = approval_failed(verdict, exc)
            verdict = gated
        run.verdict = verdict
        remember(ctx.decided, call.id, run)
        return _decision(run.state, verdict)
    finally:
        run.leave(token, done=False)  # the later call concludes it


def _decision(state: CallState, verdict: Verdict) -> Decision:
    call = state.call
    if verdict.status == "go":
        return Decision(
            status="allowed",
            call_id=call.id,
            trace_id=call.trace_id,
            tool=call.name,
            params=thaw(freeze_params(verdict.params)),
        )
    return Decision(
        status="blocked",
        call_id=call.id,
        trace_id=call.trace_id,
        tool=call.name,
        params=thaw(freeze_params(verdict.params)),
        reason=verdict.reason,
        blocked_by=verdict.blocked_by or CORE,
    )


def _pending_decision(pending: PendingApproval) -> Decision:
    call = pending.call
    return Decision(
        status="pending",
        call_id=call.id,
        trace_id=call.trace_id,
        tool=call.name,
        params=thaw(call.params),
        reason=f"Approval required: {pending.request.title}",
        pending=pending,
    )
