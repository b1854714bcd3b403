"""``Runtime.ask``: ask the approver about a call ``decide`` paused, and run nothing.

A framework that can pause a run only before a tool call starts (the OpenAI Agents SDK's
``needs_approval`` predicate) must know, before the call, whether the approver answers now or
defers. ``decide`` stores the pending approval without asking anyone; ``ask`` asks the runtime's
approver about it. "defer" leaves it pending (the framework pauses); any other answer is
recorded in the store as the approval's decision, and the next ``call`` with the same call id,
or ``resume(approval_id)``, finishes the call with exactly that answer.
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..pipeline._context import Context
from ..pipeline._driver import Pipeline
from ..records._results import Outcome
from ._policy import needs_votes
from ._resolve import ask
from ._resume import defer_again, lookup

ANSWERED_LIMIT = 4096


def run_ask(ctx: Context, key: str) -> Pipeline[str]:
    """The approver's decision for a pending approval; "deny" when there is nothing to ask."""
    found = lookup(ctx, key)
    if isinstance(found, Outcome):  # unknown, ambiguous, store unavailable: nothing will run
        return "deny"
    row = found
    if row.state != "pending":
        return row.decision if row.state == "decided" and row.decision else "deny"
    if needs_votes(row.policy):  # one approver's answer is not the policy's votes
        return "defer"
    tool = ctx.tools.get(row.tool)
    spec = None if tool is None else tool.spec
    ctx.unasked.discard(row.id)
    asking = replace(row.pending(spec), expires_at=min(row.expires_at, time.time() + row.timeout_s))
    resolution = yield from ask(ctx.approver, asking, ctx.passthrough)
    if resolution.decision == "defer":
        defer_again(ctx, row, spec)
        return "defer"
    recorded = ctx.store.decide(
        row.id,
        resolution.decision,
        params=resolution.params,
        by=resolution.by,
        reason=resolution.reason,
    )
    if recorded is None:  # decided meanwhile (the queue route's operator): theirs stands
        current = ctx.store.get(row.id)
        if current is not None and current.state == "decided" and current.decision:
            return current.decision
        return "deny"
    ctx.answered[row.id] = resolution
    if len(ctx.answered) > ANSWERED_LIMIT:
        ctx.answered.popitem(last=False)
    if resolution.interrupted is not None:
        raise resolution.interrupted
    return resolution.decision
