"""The approval step of the pipeline: grants, asking, applying a decision, editing.

``gate`` runs when a before_tool_call hook asked for an approval and the call is otherwise ready
to run. It ends in a :class:`Verdict` to conclude the call with, or in a
:class:`PendingApproval` that the caller defers (``_pause.defer``): the call's outcome is then
"pending" until ``Runtime.resume`` (``_resume``) finishes it.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from ..events._names import APPROVAL_VOTE
from ..pipeline._context import Context, Run
from ..pipeline._driver import Pipeline
from ..pipeline._screen import rescreen
from ..pipeline._state import CallState, call_ids
from ..pipeline._verdict import CORE, Verdict
from ..records._frozen import freeze_params, params_digest, thaw
from ..records._models import ToolCall
from ..records._results import ApprovalRequest, PendingApproval
from ..stores._contract import StoredApproval, stored_from_pending
from ._policy import needs_votes, stored_until
from ._resolve import Resolution, ask, make_pending

MAX_EDIT_ROUNDS = 5
DIGEST_MISMATCH = "Blocked: the params changed after they were approved (digest mismatch)"


def _sender(state: CallState) -> str | None:
    sender = state.call.sender
    return None if sender is None else sender.id


def gate(
    ctx: Context,
    run: Run,
    verdict: Verdict,
    covered: str | None = None,
    interactive: bool = True,
) -> Pipeline[Verdict | PendingApproval]:
    """Resolve the approval a hook asked for; what runs must be what the approver saw.

    ``covered`` is the digest an editor approved: a request for exactly those params needs no
    second approval. ``interactive=False`` returns the pending approval instead of asking.
    """
    for _round in range(MAX_EDIT_ROUNDS):
        state = run.state
        if verdict.status != "go" or state.approval_plugin is None or state.approval is None:
            return verdict
        call, plugin, request = state.call, state.approval_plugin, state.approval
        frozen = freeze_params(verdict.params)
        sender_id = _sender(state)
        digest = params_digest(call.name, frozen, sender_id, call.session_id)
        policy, request, approver = _team(ctx, plugin, call, request)
        if policy is not None and approver is not ctx.approver:
            covered = None  # votes decide: an editor's single answer is not a quorum
        if covered is not None and digest == covered:
            verdict.approval = "edit"  # the editor approved exactly what will run
            return verdict
        if "allow-always" in request.allowed_decisions and ctx.store.is_granted(
            plugin=plugin, tool=call.name, sender=sender_id, session=call.session_id
        ):
            remembered = Resolution(decision="allow-always", reason=None, remembered=True)
            return apply(ctx, run, verdict, plugin, digest, None, remembered)
        pending = make_pending(
            call.with_params(frozen), plugin, request, digest, run.proposed, state.rewritten()
        )
        stores_rows = interactive and getattr(approver, "stores_rows", False)
        failed: Resolution | None = None
        if stores_rows:
            pending, failed = record(ctx, pending, run.quiet, policy)
        ctx.emit(
            "approval.requested",
            *call_ids(call),
            plugin,
            {
                "approval_id": pending.id,
                "short_id": pending.short_id,
                "title": request.title,
                "severity": request.severity,
                "digest": digest,
                "expires_at": pending.expires_at,
            },
        )
        if not interactive:
            return pending
        if failed is not None:
            return apply(ctx, run, verdict, plugin, digest, pending.id, failed)
        resolution = yield from ask(approver, pending, ctx.passthrough)
        if resolution.decision == "defer":
            return pending
        if stores_rows:
            closed = close(ctx, pending, resolution)
            if closed is None:  # another call used this approval first: ask again
                continue
            resolution = closed
            emit_votes(ctx, call, pending if policy is not None else None)
        if resolution.decision != "edit":
            return apply(ctx, run, verdict, plugin, digest, pending.id, resolution)
        verdict, covered = yield from edit(ctx, run, pending, resolution)
    reason = f"Blocked: more than {MAX_EDIT_ROUNDS} rounds of edits"
    return Verdict("blocked", verdict.params, None, "approval", reason, CORE)


_RECORDING = threading.Lock()
"""Makes find-or-add of a stored approval one step for the threads of this process: twin calls
proposed at the same moment otherwise both miss the other's row and store two approvals."""


def _team(
    ctx: Context, plugin: str, call: ToolCall, request: ApprovalRequest
) -> tuple[dict[str, Any] | None, ApprovalRequest, Any]:
    """The team policy governing the request (None: one person decides), the request as it is
    asked, and who is asked: under a policy that needs votes, the store waits for them, and
    allow-always is not offered (a grant would answer every later request without a quorum)."""
    if ctx.team is None:
        return None, request, ctx.approver
    policy = ctx.team.snapshot(plugin, call, request)
    if not needs_votes(policy):
        return policy, request, ctx.approver
    team = ctx.team
    if team.waiter is None or team.waiter.store is not ctx.store:
        # Imported here, as the team itself is (``Runtime.__init__``): its config models import
        # pydantic, which a process without ``[[approvals.policies]]`` never needs.
        from ._team_wait import TeamApprover

        team.waiter = TeamApprover(ctx.store, team.config.approvals.wait_s, team)
    return policy, without_always(request), team.waiter


def without_always(request: ApprovalRequest) -> ApprovalRequest:
    """``request`` without allow-always (a policy's votes decide each request afresh)."""
    if "allow-always" not in request.allowed_decisions:
        return request
    kept = [d for d in request.allowed_decisions if d != "allow-always"]
    return ApprovalRequest.model_validate(
        {
            "title": request.title,
            "description": request.description,
            "severity": request.severity,
            "timeout_s": request.timeout_s,
            "allowed_decisions": tuple(kept) or ("allow-once", "deny"),
        }
    )


def emit_votes(ctx: Context, call: Any, approval: PendingApproval | StoredApproval | None) -> None:
    """Each vote on a team's approval (None: not one) as an ``approval.vote`` event, in the
    order they were cast, before the call's ``approval.resolved``. A store that cannot be read
    loses the events, not the call (the votes stay in the store)."""
    if approval is None or (isinstance(approval, StoredApproval) and approval.policy is None):
        return
    plugin, approval_id = approval.plugin, approval.id
    try:
        votes = ctx.store.votes(approval_id)
    except Exception:
        return
    for vote in votes:
        ctx.emit(
            APPROVAL_VOTE,
            *call_ids(call),
            plugin,
            {
                "approval_id": approval_id,
                "person": vote.person,
                "vote": vote.decision,
                "channel": vote.channel,
                "digest": vote.digest,
                "at": vote.at,
                "reason": vote.reason,
            },
        )


def record(
    ctx: Context,
    pending: PendingApproval,
    quiet: list[dict[str, Any]],
    policy: dict[str, Any] | None = None,
) -> tuple[PendingApproval, Resolution | None]:
    """Put ``pending`` in the store before asking (the queue route waits there).

    A restarted agent proposing the same call (same digest and plugin) finds the row its
    predecessor left, still pending or decided meanwhile, and waits on / takes that one.
    A store that fails gives the deny to conclude with (fail closed: nobody can be asked).
    """
    try:
        with _RECORDING:
            reused = ctx.store.reusable(pending.digest, pending.plugin)
            if reused is not None:
                waits = pending.expires_at if policy is not None else reused.expires_at
                pending = replace(
                    pending,
                    id=reused.id,
                    short_id=reused.short_id,
                    expires_at=max(pending.expires_at, waits),
                )
            until = stored_until(policy, pending.expires_at)
            if reused is not None:
                until = max(until, reused.expires_at)
            stored = stored_from_pending(pending, expires_at=until, quiet=quiet, policy=policy)
            ctx.store.add(stored)
    except Exception as exc:
        why = f"Approval unavailable (store: {type(exc).__name__}: {exc})"
        return pending, Resolution(decision="deny", reason=why)
    if reused is None and ctx.team is not None:
        ctx.team.tell(ctx.store, "approval.requested", stored)
    return pending, None


def close(ctx: Context, pending: PendingApproval, resolution: Resolution) -> Resolution | None:
    """The call got its answer: the stored approval is used up, once, whatever the answer.

    None: the answer allowed the call but another call (a twin in this process, a resume in
    another) used the approval first; the caller asks again.
    """
    try:
        used = ctx.store.consume(pending.id)
    except Exception as exc:
        why = f"Approval {pending.short_id} cannot be used: {type(exc).__name__}: {exc}"
        return (
            resolution if resolution.decision == "deny" else Resolution(decision="deny", reason=why)
        )
    if used is None and resolution.decision != "deny" and not resolution.cancelled:
        return None
    return resolution


def apply(
    ctx: Context,
    run: Run,
    verdict: Verdict,
    plugin: str,
    digest: str,
    approval_id: str | None,
    resolution: Resolution,
) -> Verdict:
    """Record the decision and turn it into the verdict the call concludes with."""
    state = run.state
    call = state.call
    data: dict[str, Any] = {
        "decision": resolution.decision,
        "reason": resolution.reason,
        "remembered": resolution.remembered,
        "by": resolution.by,
    }
    if approval_id is not None:
        data["approval_id"] = approval_id
    if resolution.cancelled:
        data["cancelled"] = True
    ctx.emit("approval.resolved", *call_ids(call), plugin, data)
    if resolution.interrupted is not None:
        run.interrupted = resolution.interrupted
    if resolution.decision == "deny":
        denied = Verdict("denied", verdict.params, None, "approval", resolution.reason)
        denied.approval = "deny"
        return denied
    sender_id = _sender(state)
    if resolution.decision == "allow-always" and not resolution.remembered:
        ctx.store.grant(
            plugin=plugin,
            tool=call.name,
            sender=sender_id,
            session=call.session_id,
            by=resolution.by,
        )
    # What runs must be byte-for-byte what the approver saw.
    if params_digest(call.name, verdict.params, sender_id, call.session_id) != digest:
        return Verdict("blocked", verdict.params, None, "approval", DIGEST_MISMATCH, CORE)
    verdict.approval = resolution.decision
    return verdict


def edit(
    ctx: Context, run: Run, pending: PendingApproval, resolution: Resolution
) -> Pipeline[tuple[Verdict, str]]:
    """Run the fence, the before chain and validation again on the editor's params.

    Returns the new verdict and the digest of what the editor submitted: a further approval
    request is covered by the edit only for exactly those params.
    """
    assert resolution.params is not None
    call = run.state.call
    edited = freeze_params(resolution.params)
    before = thaw(call.params)
    fields = sorted(
        key
        for key in set(before) | set(edited)
        if before.get(key, _MISSING) != edited.get(key, _MISSING)
    )
    ids = call_ids(call)
    ctx.emit(
        "approval.resolved",
        *ids,
        pending.plugin,
        {
            "approval_id": pending.id,
            "decision": "edit",
            "reason": resolution.reason,
            "remembered": False,
            "by": resolution.by,
        },
    )
    ctx.emit(
        "approval.edited",
        *ids,
        pending.plugin,
        {"approval_id": pending.id, "by": resolution.by, "fields": fields},
    )
    covered = params_digest(call.name, edited, _sender(run.state), call.session_id)
    verdict = yield from rescreen(ctx, run, edited)
    if verdict.status == "go" and run.state.approval_plugin is None:
        verdict.approval = "edit"
    return verdict, covered


_MISSING = object()
