"""The default approval store: in memory, this process only, gone when it exits."""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from .._public import public
from ..records._frozen import freeze_params, thaw
from ._contract import (
    DEFAULT_RETENTION_S,
    AmbiguousId,
    Grant,
    StoredApproval,
    Tally,
    Vote,
    closed_reason,
    grant_matches,
    id_key,
    past_retention,
    quorum_decision,
    revoke_matches,
)


class MemoryStore:
    """The default store: this process only, gone when it exits. Thread-safe."""

    def __init__(self, retention_s: float = DEFAULT_RETENTION_S) -> None:
        self.retention_s = retention_s
        self._rows: dict[str, StoredApproval] = {}
        self._grants: list[Grant] = []
        self._votes: dict[str, dict[str, Vote]] = {}
        self._claims: dict[str, tuple[float, str]] = {}
        self._changed = threading.Condition()

    @property
    def where(self) -> str:
        return "this process's memory"

    def add(self, approval: StoredApproval) -> None:
        """Record a pending approval; the same id again only moves a pending row's deadline."""
        with self._changed:
            known = self._rows.get(approval.id)
            if known is None:
                self._rows[approval.id] = approval
            elif known.state == "pending":
                self._rows[approval.id] = replace(known, expires_at=approval.expires_at)

    def get(self, key: str) -> StoredApproval | None:
        with self._changed:
            row = self._rows.get(key)
            if row is None:
                wanted = id_key(key)
                if not wanted:
                    return None
                found = [r for r in self._rows.values() if id_key(r.id).startswith(wanted)]
                if len(found) > 1:
                    raise AmbiguousId(key, (r.id for r in found))
                row = found[0] if found else None
        return None if row is None else row.effective()

    def for_call(self, call_id: str) -> StoredApproval | None:
        with self._changed:
            rows = [
                r for r in self._rows.values() if r.call_id == call_id and r.consumed_at is None
            ]
        if not rows:
            return None
        return max(rows, key=lambda r: r.created_at).effective()

    def reusable(self, digest: str, plugin: str) -> StoredApproval | None:
        """An unexpired, unconsumed row for the same digest and plugin (a restarted agent)."""
        now = time.time()
        with self._changed:
            rows = [
                r
                for r in self._rows.values()
                if r.digest == digest
                and r.plugin == plugin
                and r.state in ("pending", "decided")
                and r.expires_at > now
            ]
        return max(rows, key=lambda r: r.created_at) if rows else None

    def list(
        self, *, states: Iterable[str] | None = None, limit: int = 200
    ) -> builtins.list[StoredApproval]:
        wanted = None if states is None else set(states)
        now = time.time()
        with self._changed:
            rows = [r.effective(now) for r in self._rows.values()]
        rows = [r for r in rows if wanted is None or r.state in wanted]
        rows.sort(key=lambda r: (r.created_at, r.id), reverse=True)
        return rows[:limit]

    def decide(
        self,
        approval_id: str,
        decision: str,
        *,
        params: Mapping[str, Any] | None = None,
        by: str | None = None,
        reason: str | None = None,
    ) -> StoredApproval | None:
        with self._changed:
            row = self._rows.get(approval_id)
            now = time.time()
            if row is None or row.effective(now).state != "pending":
                return None
            decided = replace(
                row,
                state="decided",
                decision=decision,
                decided_params=None if params is None else thaw(freeze_params(params)),
                decided_by=by,
                decided_at=now,
                reason=reason,
            )
            self._rows[approval_id] = decided
            self._changed.notify_all()
            return decided

    def consume(self, approval_id: str) -> StoredApproval | None:
        with self._changed:
            row = self._rows.get(approval_id)
            if row is None or row.consumed_at is not None:
                return None
            consumed = replace(row, state="consumed", consumed_at=time.time())
            self._rows[approval_id] = consumed
            self._changed.notify_all()
            return consumed

    def wait(self, approval_id: str, timeout_s: float) -> StoredApproval | None:
        deadline = time.monotonic() + max(0.0, timeout_s)
        with self._changed:
            while True:
                row = self._rows.get(approval_id)
                if row is None:
                    return None
                row = row.effective()
                remaining = deadline - time.monotonic()
                if row.state != "pending" or remaining <= 0:
                    return row
                # Wake at the row's deadline too, so that expiry is seen without a decision.
                self._changed.wait(min(remaining, max(0.01, row.expires_at - time.time())))

    def grant(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None, by: str | None
    ) -> None:
        with self._changed:
            scope = None if sender is not None else session
            for grant in self._grants:
                if grant_matches(grant, plugin, tool, sender, scope):
                    return
            self._grants.append(
                Grant.new(plugin=plugin, tool=tool, sender=sender, session=session, by=by)
            )

    def is_granted(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None
    ) -> bool:
        with self._changed:
            return any(grant_matches(g, plugin, tool, sender, session) for g in self._grants)

    def grants(self) -> builtins.list[Grant]:
        with self._changed:
            return sorted(self._grants, key=lambda g: (g.created_at, g.id))

    def revoke(
        self,
        *,
        grant_id: str | None = None,
        plugin: str | None = None,
        tool: str | None = None,
        sender: str | None = None,
    ) -> int:
        with self._changed:
            kept = [
                g for g in self._grants if not revoke_matches(g, grant_id, plugin, tool, sender)
            ]
            removed = len(self._grants) - len(kept)
            self._grants = kept
            return removed

    def purge(self, now: float | None = None) -> int:
        moment = time.time() if now is None else now
        with self._changed:
            doomed = [
                key
                for key, row in self._rows.items()
                if past_retention(row, moment, self.retention_s)
            ]
            for key in doomed:
                del self._rows[key]
                self._votes.pop(key, None)
            return len(doomed)

    def vote(self, vote: Vote, *, quorum: int) -> Tally | None:
        with self._changed:
            row = self._rows.get(vote.approval_id)
            if row is None:
                return None
            row = row.effective()
            ballots = self._votes.setdefault(row.id, {})
            refused = closed_reason(row, vote)
            if refused is not None or vote.person in ballots:
                cast = tuple(sorted(ballots.values(), key=lambda v: (v.at, v.person)))
                return Tally(row=row, votes=cast, refused=refused)
            ballots[vote.person] = vote
            cast = tuple(sorted(ballots.values(), key=lambda v: (v.at, v.person)))
            outcome = quorum_decision(cast, quorum)
            if outcome is None:
                return Tally(row=row, votes=cast, counted=True)
            decision, by, reason = outcome
            params = vote.params if decision == "edit" else None
            decided = self.decide(row.id, decision, params=params, by=by, reason=reason)
            assert decided is not None  # pending and unexpired, under the same lock
            return Tally(row=decided, votes=cast, counted=True, decided=True)

    def votes(self, approval_id: str) -> builtins.list[Vote]:
        with self._changed:
            ballots = self._votes.get(approval_id, {})
            return sorted(ballots.values(), key=lambda v: (v.at, v.person))

    def claim(self, key: str, ttl_s: float, value: str = "1") -> bool:
        now = time.monotonic()
        with self._changed:
            held = self._claims.get(key)
            if held is not None and held[0] > now:
                return False
            self._claims[key] = (now + ttl_s, value)
            return True

    def claimed(self, key: str) -> str | None:
        with self._changed:
            held = self._claims.get(key)
        return held[1] if held is not None and held[0] > time.monotonic() else None

    def close(self) -> None:
        return None


public("toolhooks", MemoryStore)
