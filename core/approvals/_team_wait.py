"""Waiting for a team's votes: the approver the gate asks under a policy that needs votes,
whatever the configured route (the store is where votes arrive)."""

from __future__ import annotations

import time

from ..pipeline._driver import TimedOut
from ..records._decisions import ApprovalDecision
from ..records._results import PendingApproval
from ..stores._contract import ApprovalStore, StoredApproval
from ._resolve import ApprovalUnavailable
from ._routes import QueueApprover
from ._team import Team, escalate_due


class TeamApprover(QueueApprover):
    """Wait on the store for a policy's votes (``approvals._team``), whatever the route.

    Returns before the request's own timeout: a kept approval (``on_expiry = "keep"``) that is
    still pending then is deferred, not denied.
    """

    MARGIN_S = 0.5
    COMMAND = "vote {} allow"

    def __init__(self, store: ApprovalStore, wait_s: float | None, team: Team | None) -> None:
        super().__init__(store, wait_s)
        self.team = team

    def __call__(self, pending: PendingApproval) -> ApprovalDecision | str:
        if self.wait_s == 0:
            self._say(pending, "deferred for votes")
            return "defer"
        remaining = pending.expires_at - time.time() - self.MARGIN_S
        wait = remaining if self.wait_s is None else min(self.wait_s, remaining)
        self._say(pending, "is waiting for votes")
        row = self._wait(pending.id, time.monotonic() + max(0.0, wait))
        if row is None:
            raise ApprovalUnavailable(f"approval {pending.short_id} left the store")
        if row.state in ("decided", "consumed") and row.decision is not None:
            return ApprovalDecision(row.decision, row.reason, row.decided_by, row.decided_params)
        if row.state == "consumed":
            raise ApprovalUnavailable(f"approval {pending.short_id} was closed elsewhere")
        keep = row.policy is not None and row.policy.get("on_expiry") == "keep"
        if row.state == "pending" and (keep or wait < remaining):
            return "defer"
        raise TimedOut(pending.request.timeout_s)

    def _wait(self, approval_id: str, until: float) -> StoredApproval | None:
        """The store's wait, woken at the escalation time to escalate (once, among everyone)."""
        while True:
            row = self.store.wait(approval_id, max(0.0, until - time.monotonic()))
            escalate_at = None if row is None or row.policy is None else row.policy["escalate_at"]
            if row is None or row.state != "pending" or escalate_at is None or self.team is None:
                return row
            if escalate_at <= time.time():
                escalate_due(self.store, self.team, only=row)
                return self.store.wait(approval_id, max(0.0, until - time.monotonic()))
            wake = time.monotonic() + (escalate_at - time.time())
            if wake >= until:
                return self.store.wait(approval_id, max(0.0, until - time.monotonic()))
            row = self.store.wait(approval_id, max(0.0, wake - time.monotonic()))
            if row is None or row.state != "pending":
                return row
