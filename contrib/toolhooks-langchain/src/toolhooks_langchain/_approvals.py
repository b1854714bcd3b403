"""Approvals as LangGraph pauses: a deferred toolhooks approval becomes ``interrupt()``.

LangGraph resumes a paused graph by running the interrupted step again from its start, and hands
each ``interrupt()`` call of that step, in order, the answer given for it. So the step must make
the same ``interrupt()`` calls in the same order every time: the first for the call's first
approval, the next for the approval an edit led to, and so on. ``rt.call`` with the same call id
returns the call's *current* pending approval (without running the chain again), so on a re-run
the approvals the call already went through are taken from the store, oldest first, and their
interrupts replayed (their answers were applied the first time round).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.types import interrupt
from toolhooks import ApprovalDecision, Outcome, PendingApproval, Runtime, thaw

APPROVAL_TYPE = "toolhooks.approval"
HISTORY_LIMIT = 1_000
"""How many recent approvals are searched for a call's earlier rounds (only when it pauses)."""


class InterruptApprover:
    """The approver that turns every approval into a LangGraph interrupt.

    ``Runtime(approver=InterruptApprover())`` answers "defer": ``rt.call`` returns a pending
    Outcome, and ``ToolhooksMiddleware`` pauses the graph with ``interrupt()``, whose value is
    the approval (see :func:`approval_payload`). ``Command(resume={"decision": ..., "params":
    ...})`` finishes the call through ``rt.resume``. The graph needs a checkpointer.
    """

    def __call__(self, pending: PendingApproval) -> str:
        return "defer"

    def __repr__(self) -> str:
        return "InterruptApprover()"


def approval_payload(pending: PendingApproval) -> dict[str, Any]:
    """What the interrupt carries: the approval as plain JSON values, for a human or a UI."""
    request = pending.request
    call = pending.call
    return {
        "type": APPROVAL_TYPE,
        "approval_id": pending.id,
        "short_id": pending.short_id,
        "tool": call.name,
        "call_id": call.id,
        "params": thaw(call.params),
        "proposed_params": dict(pending.proposed_params),
        "rewritten_by": dict(pending.rewritten_by),
        "digest": pending.digest,
        "title": request.title,
        "description": request.description,
        "severity": request.severity,
        "allowed_decisions": list(request.allowed_decisions),
        "expires_at": pending.expires_at,
        "plugin": pending.plugin,
        "schema": pending.schema,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """A resume value read as ``rt.resume`` arguments."""

    decision: str | None
    params: dict[str, Any] | None = None
    by: str | None = None
    reason: str | None = None


def read_answer(value: Any) -> Answer:
    """``{"decision", "params", "by", "reason"}``, an ApprovalDecision or a bare decision string.

    No decision (``{"decision": None}``, or None) finishes the call with the decision recorded in
    the store by someone else (the CLI, the desk); while there is none, the graph pauses again.
    Anything else is not a decision the runtime accepts: it becomes a deny that says why, never
    an exception in the middle of the graph.
    """
    if value is None or isinstance(value, str):
        return Answer(decision=value)
    if isinstance(value, ApprovalDecision):
        return Answer(
            decision=value.decision, params=value.params, by=value.by, reason=value.reason
        )
    if isinstance(value, Mapping):
        decision, params = value.get("decision"), value.get("params")
        by, reason = value.get("by"), value.get("reason")
        if (
            (decision is None or isinstance(decision, str))
            and (params is None or isinstance(params, Mapping))
            and (by is None or isinstance(by, str))
            and (reason is None or isinstance(reason, str))
        ):
            return Answer(
                decision=decision,
                params=None if params is None else dict(params),
                by=by,
                reason=reason,
            )
    return Answer(decision="deny", reason=f"Unreadable approval answer: {_describe(value)}")


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def earlier_rounds(runtime: Runtime, pending: PendingApproval) -> list[PendingApproval]:
    """The approvals this call went through before ``pending``, oldest first.

    Each had its own ``interrupt()`` in this step; a re-run must replay them in order.
    """
    call_id = pending.call.id
    rows = [
        row
        for row in runtime.approvals.list(limit=HISTORY_LIMIT)
        if row.call_id == call_id and row.id != pending.id and row.state == "consumed"
    ]
    current = runtime.approvals.get(pending.id)
    if current is not None:
        rows = [row for row in rows if row.created_at <= current.created_at]
    rows.sort(key=lambda row: row.created_at)
    return [row.pending() for row in rows]


def settle(runtime: Runtime, outcome: Outcome, execute: Callable[[dict[str, Any]], Any]) -> Outcome:
    """Pause the graph for each approval of the call until it has a final Outcome."""
    if outcome.status != "pending" or outcome.pending is None:
        return outcome
    for earlier in earlier_rounds(runtime, outcome.pending):
        interrupt(approval_payload(earlier))  # answered and applied before this re-run
    while outcome.status == "pending" and outcome.pending is not None:
        pending = outcome.pending
        answer = read_answer(interrupt(approval_payload(pending)))
        outcome = runtime.resume(
            pending.id,
            answer.decision,
            params=answer.params,
            execute=execute,
            by=answer.by,
            reason=answer.reason,
        )
    return outcome


async def settle_async(
    runtime: Runtime, outcome: Outcome, execute: Callable[[dict[str, Any]], Awaitable[Any]]
) -> Outcome:
    """:func:`settle` for ``awrap_tool_call``."""
    if outcome.status != "pending" or outcome.pending is None:
        return outcome
    for earlier in earlier_rounds(runtime, outcome.pending):
        interrupt(approval_payload(earlier))
    while outcome.status == "pending" and outcome.pending is not None:
        pending = outcome.pending
        answer = read_answer(interrupt(approval_payload(pending)))
        outcome = await runtime.aresume(
            pending.id,
            answer.decision,
            params=answer.params,
            execute=execute,
            by=answer.by,
            reason=answer.reason,
        )
    return outcome
