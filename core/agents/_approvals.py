"""An approval a hook meets: who answers it, and what the agent is told meanwhile.

The bridge's order (PLUGINS.md, "Coding agents"): the agent's own prompt when the request allows
``allow-once`` and the agent has one (``_before``); else the ``[approvals]`` store, where an
operator decides (``toolhooks approvals``, the desk). This module is the store part:

- the same call proposed again (same digest: tool, params, sender, session) finds the approval
  an earlier proposal left: a decision there is used once, for this call; while it still waits,
  this proposal is a duplicate (denied, naming the one to decide) instead of a second request;
- with ``route = "queue"`` the hook waits for a decision up to ``[agents] wait_s`` (else
  ``[approvals] wait_s``, else the request's timeout), never past the hook's deadline
  (``[agents] deadline_s``) less ``ANSWER_MARGIN_S``;
- no decision in time: the call is denied with the approval's short id and the command that
  decides it, and the approval keeps waiting for the next proposal of the same call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..approvals._routes import cli_flags
from ..config._settings import LoadedConfig
from ..records._results import PendingApproval
from ..stores._contract import ApprovalStore, StoredApproval, stored_from_pending

ANSWER_MARGIN_S = 5.0
"""What the hook's deadline keeps back after an approval's wait: the decision's audit, the
answer, and a loaded machine's scheduling. A wait cut to nothing denies at once."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settled:
    """Where an approval stands once the hook stops waiting."""

    row: StoredApproval | None
    """This call's own approval as it is now (None: it left the store)."""
    named: StoredApproval
    """The approval a person decides: this call's, or the earlier one it duplicates."""
    duplicate: bool = False


def wait_for(config: LoadedConfig, pending: PendingApproval) -> float:
    """How long this hook may wait for a decision (0: no route that waits)."""
    if config.approvals.route != "queue":
        return 0.0
    chosen = config.agents.wait_s
    if chosen is None:
        chosen = config.approvals.wait_s
    if chosen is None:
        chosen = pending.request.timeout_s
    most = config.agents.deadline_s - ANSWER_MARGIN_S
    return max(0.0, min(chosen, pending.expires_at - time.time(), most))


def settle(store: ApprovalStore, pending: PendingApproval, wait_s: float) -> Settled:
    """Decide ``pending`` from an earlier approval of the same call, or wait for a decision."""
    earlier = _earlier(store, pending)
    if earlier is not None and earlier.state == "pending" and wait_s > 0:
        earlier = (store.wait(earlier.id, wait_s) or earlier).effective()
    if earlier is not None and earlier.state == "decided" and earlier.decision:
        if store.consume(earlier.id) is not None:  # used once: by this proposal
            store.decide(
                pending.id,
                earlier.decision,
                params=earlier.decided_params,
                by=earlier.decided_by,
                reason=earlier.reason or f"as decided for approval {earlier.short_id}",
            )
        return Settled(row=_get(store, pending.id), named=earlier)
    if earlier is not None and earlier.state == "pending":
        store.decide(
            pending.id,
            "deny",
            by="toolhooks",
            reason=f"the same call waits for approval {earlier.short_id}",
        )
        return Settled(row=_get(store, pending.id), named=earlier, duplicate=True)
    row = store.wait(pending.id, wait_s) if wait_s > 0 else store.get(pending.id)
    row = None if row is None else row.effective()
    own = row if row is not None else _stand_in(pending)
    return Settled(row=row, named=own)


def _earlier(store: ApprovalStore, pending: PendingApproval) -> StoredApproval | None:
    """The oldest open approval of the same call and plugin, other than ``pending``'s own."""
    rows = store.list(states=("pending", "decided"), limit=200)
    same = [
        row
        for row in rows
        if row.digest == pending.digest
        and row.plugin == pending.plugin
        and row.id != pending.id
        and row.consumed_at is None
    ]
    return min(same, key=lambda row: row.created_at) if same else None


def _get(store: ApprovalStore, approval_id: str) -> StoredApproval | None:
    row = store.get(approval_id)
    return None if row is None else row.effective()


def _stand_in(pending: PendingApproval) -> StoredApproval:
    return stored_from_pending(pending, expires_at=pending.expires_at)


def decide_command(config: LoadedConfig, store: ApprovalStore, short_id: str) -> str:
    """The command an operator runs, in this directory, to allow approval ``short_id``."""
    return f"toolhooks approvals approve {short_id}{cli_flags(config, store)}"


def waiting_reason(config: LoadedConfig, store: ApprovalStore, named: StoredApproval) -> str:
    """What the model reads when the call is denied because nobody decided yet."""
    command = decide_command(config, store, named.short_id)
    return (
        f"Approval required: {named.title} (approval {named.short_id}). Not run: nobody has "
        f"decided yet. Once someone allows it ({command}, or on the approvals desk), propose "
        "the same call again."
    )
