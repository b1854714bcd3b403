"""Finishing a paused call (``Runtime.resume``, a repeated ``call``); ``Runtime.decide`` is
:mod:`._decide`.

A paused call re-enters the pipeline at the approval's resolution with the params frozen when it
was paused: no second before chain, no second ``tool.proposed``. The store's ``consume`` makes a
resume single use across processes; whoever loses gets an outcome that says so and runs nothing.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from ..events._scope import current_scope
from ..pipeline._conclude import conclude
from ..pipeline._context import Context, Execute, Run
from ..pipeline._driver import Pipeline
from ..pipeline._screen import decide_verdict
from ..pipeline._state import CallState
from ..pipeline._tools import Tool
from ..pipeline._verdict import CORE, Verdict
from ..records._frozen import freeze_params
from ..records._models import ToolCall
from ..records._results import Outcome, PendingApproval
from ..stores._contract import AmbiguousId, StoredApproval
from ._gate import apply, edit, emit_votes, gate
from ._pause import defer, pending_outcome, store_unavailable
from ._policy import needs_votes
from ._resolve import TIMED_OUT, Resolution, ask, judge


def refusal(reason: str, row: StoredApproval | None = None) -> Outcome:
    """A resume that runs nothing: unknown id, already resolved, ambiguous, store unavailable."""
    if row is None:
        return Outcome(
            status="blocked",
            content=reason,
            call_id="",
            trace_id="",
            blocked_by=CORE,
            reason=reason,
        )
    return Outcome(
        status="blocked",
        content=reason,
        call_id=row.call_id,
        trace_id=row.trace_id,
        tool=row.tool,
        params=dict(row.params),
        blocked_by=CORE,
        reason=reason,
    )


def lookup(ctx: Context, key: str) -> StoredApproval | Outcome:
    if not isinstance(key, str) or not key:
        return refusal("Unknown approval: the id must be a non-empty string")
    try:
        row = ctx.store.get(key)
    except AmbiguousId as exc:
        return refusal(str(exc))
    except Exception as exc:  # the store is unreachable or broken: nothing runs
        return refusal(store_unavailable(exc))
    if row is None:
        return refusal(f"Unknown approval {key!r}")
    problem = corrupt(row)
    return row if problem is None else refusal(problem)


def corrupt(row: StoredApproval) -> str | None:
    """Why a stored row cannot be a call (edited or damaged behind the runtime's back), or None.

    Checked before anything is decided, so that a damaged row fails closed with a reason instead
    of raising out of ``resume``; edited params that still make a call fail the digest check.
    """
    try:
        row.call(None)
        row.request()
        freeze_params(row.proposed_params)
    except Exception as exc:
        return (
            f"Approval {str(row.id)[:40]!r} is damaged in the store "
            f"({type(exc).__name__}: {str(exc)[:200]}); nothing ran"
        )
    return None


def run_resume(
    ctx: Context,
    key: str,
    decision: str | None,
    params: Any,
    execute: Execute | None,
    by: str | None,
    reason: str | None,
) -> Pipeline[Outcome]:
    found = lookup(ctx, key)
    if isinstance(found, Outcome):
        return found
    return (yield from finish(ctx, found, execute, decision, params, by, reason))


def rejoin(
    ctx: Context, call: ToolCall, tool: Tool | None, execute: Execute | None
) -> Pipeline[Outcome | None]:
    """A call whose id this runtime (or a shared store) already knows; None: a new call."""
    prepared = ctx.decided.pop(call.id, None) if ctx.decided else None
    if prepared is not None and _same(prepared.proposed, call, prepared.state.call.name):
        return (yield from _after_decide(ctx, prepared, execute))
    approval_id = ctx.paused.get(call.id)
    try:
        if approval_id is not None:
            row = ctx.store.get(approval_id)
        elif ctx.shared_store:
            row = ctx.store.for_call(call.id)
        else:
            return None
    except Exception as exc:  # fail closed: a paused call must not run unapproved
        return refusal(store_unavailable(exc))
    if row is None or row.call_id != call.id:
        ctx.paused.pop(call.id, None)
        return None
    problem = corrupt(row)
    if problem is not None:
        return refusal(problem)
    if not _same(row.proposed_params, call, row.tool):
        reason = f"Call id {call.id!r} belongs to another call waiting for approval {row.short_id}"
        return refusal(reason, row)
    ask_now = row.id in ctx.unasked and ctx.approver is not None
    return (yield from finish(ctx, row, execute, ask_now=ask_now))


def _same(proposed: Any, call: ToolCall, tool: str) -> bool:
    return call.name == tool and dict(call.params) == dict(proposed)


def _after_decide(ctx: Context, prepared: Run, execute: Execute | None) -> Pipeline[Outcome]:
    """``call`` after ``decide`` found the call allowed or blocked: conclude it as decided."""
    prepared.execute = execute
    verdict = prepared.verdict
    assert verdict is not None
    token = current_scope.set(prepared)
    try:
        return (yield from conclude(ctx, prepared, verdict))
    finally:
        prepared.leave(token)


def finish(
    ctx: Context,
    row: StoredApproval,
    execute: Execute | None,
    decision: str | None = None,
    params: Any = None,
    by: str | None = None,
    reason: str | None = None,
    ask_now: bool = False,
) -> Pipeline[Outcome]:
    """Finish the paused call of ``row`` with ``decision`` (None: the one recorded in the store)."""
    tool = ctx.tools.get(row.tool)
    spec = None if tool is None else tool.spec
    refused = _already_resolved(row, decision)
    if refused is not None:
        return refused
    answered: Resolution | None = None
    if decision is None and row.state == "decided":
        decision, params, by, reason = row.decision, row.decided_params, row.decided_by, row.reason
        answered = ctx.answered.pop(row.id, None)  # Runtime.ask's answer, kept word for word
    if row.state == "pending" and (decision == "defer" or (decision is None and not ask_now)):
        return pending_outcome(row.pending(spec))
    state = CallState.from_row(row, spec)
    # the first screening's quiet handlers, from the row
    run = Run(ctx, state.call, tool, execute, state, [dict(entry) for entry in row.quiet])
    token = current_scope.set(run)
    try:
        resolution: Resolution | None = None
        if decision is None and row.state == "pending":  # decide() stored it; ask now
            resolution = yield from _ask_now(ctx, row, spec)
            if resolution.decision == "defer":
                return defer_again(ctx, row, spec)
        if ctx.store.consume(row.id) is None:
            return refusal(f"Approval {row.short_id} was already resolved", row)
        ctx.paused.pop(row.call_id, None)
        verdict = decide_verdict(state, tool, execute, row.tool)
        if resolution is None:  # asked only of a pending row: never an expired one
            resolution = _recorded(row, answered, decision, params, by, reason)
        emit_votes(ctx, state.call, row)
        if verdict.status == "go":
            applied = yield from _applied(ctx, run, row, spec, verdict, resolution)
            if isinstance(applied, Outcome):
                return applied
            verdict = applied
        outcome = yield from conclude(ctx, run, verdict)
        if run.state is state and row.rewritten_by:
            # Not re-screened: the hooks' changes are the ones recorded at the pause, measured
            # from what that screening started with (the editor's params after an edit, which
            # the row does not keep), as a call decided at once reports them.
            outcome = replace(outcome, rewritten_by=dict(row.rewritten_by))
        return outcome
    finally:
        run.leave(token)


def _already_resolved(row: StoredApproval, decision: str | None) -> Outcome | None:
    """The refusal of a resume that comes too late (consumed, or decided otherwise), or that
    gives a decision the policy's votes make."""
    if decision not in (None, "defer") and needs_votes(row.policy):
        assert row.policy is not None
        return refusal(
            f"Approval {row.short_id} is decided by votes (policy {row.policy['name']}, quorum "
            f"{row.policy['quorum']}): cast them with `toolhooks approvals vote`, the desk or "
            "Slack, then resume it without a decision",
            row,
        )
    if row.state == "consumed":
        return refusal(f"Approval {row.short_id} was already resolved", row)
    if decision is not None and row.state == "decided" and decision != row.decision:
        who = f" by {row.decided_by}" if row.decided_by else ""
        return refusal(
            f"Approval {row.short_id} was already decided ({row.decision}{who}); "
            "resume it without a decision to finish it",
            row,
        )
    return None


def _ask_now(ctx: Context, row: StoredApproval, spec: Any) -> Pipeline[Resolution]:
    """Ask the approver about a row ``decide`` stored unasked, within what is left of its time."""
    ctx.unasked.discard(row.id)
    asking = replace(row.pending(spec), expires_at=min(row.expires_at, time.time() + row.timeout_s))
    return (yield from ask(ctx.approver, asking, ctx.passthrough))


def _recorded(
    row: StoredApproval,
    answered: Resolution | None,
    decision: str | None,
    params: Any,
    by: str | None,
    reason: str | None,
) -> Resolution:
    """The resolution of a decision given to resume (or recorded in the store), not asked now."""
    if row.state == "expired":
        return Resolution(decision="deny", reason=TIMED_OUT)
    if answered is not None and answered.decision == decision:
        return answered
    resolution = judge(row.request(), decision, reason, by, params, decision)
    if resolution.decision == "defer":  # recorded as a decision by someone: not one
        return Resolution(decision="deny", reason="Denied: 'defer' is not a final decision", by=by)
    return resolution


def _applied(
    ctx: Context,
    run: Run,
    row: StoredApproval,
    spec: Any,
    verdict: Verdict,
    resolution: Resolution,
) -> Pipeline[Verdict | Outcome]:
    """The "go" verdict after the resolution: edited and gated again, or applied as decided;
    an Outcome when the edited call must wait for another approval."""
    if resolution.decision != "edit":
        return apply(ctx, run, verdict, row.plugin, row.digest, row.id, resolution)
    edited, covered = yield from edit(ctx, run, row.pending(spec), resolution)
    gated = yield from gate(ctx, run, edited, covered, interactive=False)
    if isinstance(gated, PendingApproval):
        return defer(ctx, run, gated)
    return gated


def defer_again(ctx: Context, row: StoredApproval, spec: Any) -> Outcome:
    """The approver asked after ``decide`` deferred: the stored row keeps waiting."""
    pending = row.pending(spec)
    call = pending.call
    ctx.emit(
        "approval.deferred",
        call.trace_id,
        call.id,
        call.session_id,
        call.name,
        row.plugin,
        {"approval_id": row.id, "short_id": row.short_id, "expires_at": row.expires_at},
    )
    return pending_outcome(pending)
