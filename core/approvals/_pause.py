"""Pausing a call: its approval stored until someone decides (``defer``), the "pending" outcome the
model reads meanwhile, and the verdict when the approval step itself fails (fail closed).
``_resume`` takes a paused call up again."""

from __future__ import annotations

import time
from dataclasses import replace

from ..pipeline._context import Context, Run, remember
from ..pipeline._state import call_ids
from ..pipeline._verdict import CORE, Verdict
from ..records._frozen import thaw
from ..records._log import LazyLogger
from ..records._results import Outcome, PendingApproval
from ..stores._contract import StoreError, stored_from_pending
from ._policy import stored_until

logger = LazyLogger("toolhooks")


def store_unavailable(exc: Exception) -> str:
    """The reason a call ends with when the approval store cannot be read or written."""
    return f"Approval store unavailable: {type(exc).__name__}: {exc}"


def approval_failed(verdict: Verdict, exc: Exception) -> Verdict:
    """The verdict when the approval step itself failed (its store unreachable, a bug): blocked by
    the core, so that the call ends like any other, audited, and never runs unapproved."""
    from ..stores._state import StateUnavailable  # only on this path: not on start-up's

    if isinstance(exc, (StoreError, StateUnavailable)):
        reason = store_unavailable(exc)
    else:
        logger.error("toolhooks: the approval step failed", exc_info=exc)
        reason = f"Approval failed: {type(exc).__name__}: {exc}"
    return Verdict("blocked", verdict.params, None, "approval", reason, CORE)


def pending_outcome(pending: PendingApproval) -> Outcome:
    """The Outcome of a paused call: what the model is told while a human decides."""
    call, request = pending.call, pending.request
    reason = f"Approval pending: {request.title} (approval {pending.short_id})"
    return Outcome(
        status="pending",
        content=reason,
        call_id=call.id,
        trace_id=call.trace_id,
        tool=call.name,
        params=thaw(call.params),
        reason=reason,
        rewritten_by=dict(pending.rewritten_by),
        pending=pending,
    )


def defer(ctx: Context, run: Run, pending: PendingApproval, asked: bool = True) -> Outcome:
    """Store ``pending`` until someone decides; the call's outcome is "pending" for now."""
    expires_at = time.time() + ctx.defer_ttl_s
    policy, known = None, None
    if ctx.team is not None:
        policy = ctx.team.snapshot(pending.plugin, pending.call, pending.request)
        expires_at = stored_until(policy, expires_at)
        known = ctx.store.get(pending.id)  # recorded while waiting: its people were told
    pending = replace(pending, expires_at=expires_at)
    stored = stored_from_pending(pending, expires_at=expires_at, quiet=run.quiet, policy=policy)
    ctx.store.add(stored)
    if ctx.team is not None and known is None:
        ctx.team.tell(ctx.store, "approval.requested", stored)
    call = pending.call
    remember(ctx.paused, call.id, pending.id)
    if not asked:
        ctx.unasked.add(pending.id)
    else:
        ctx.emit(
            "approval.deferred",
            *call_ids(call),
            pending.plugin,
            {"approval_id": pending.id, "short_id": pending.short_id, "expires_at": expires_at},
        )
    return pending_outcome(pending)
