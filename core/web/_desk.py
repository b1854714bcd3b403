"""What the desk does, without HTTP: read the approval store, record decisions, tell the result.

The desk never runs a tool and never resumes a call: it records a decision in the store
(``decide``: single use, pending rows only) and the agent that paused the call finishes it, with
the core's digest check and, for an edit, the before chain run again on the edited params. What
happened then is read back from the store (a new approval for the same call) and the event log.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..approvals._team import Team, VoteRefused, cast
from ..config._settings import LoadedConfig
from ..loading._lock import lock_path
from ..loading._lock_report import LockReport, lock_report
from ..records._errors import ConfigError, ParamsError, ToolhooksError
from ..records._frozen import freeze_params, thaw
from ..stores._contract import AmbiguousId, ApprovalStore, Grant, StoredApproval, Vote, VoteName
from ..stores._memory import MemoryStore
from ._calls import CallLog

Decision = Literal["allow-once", "allow-always", "deny", "edit"]
Result = Literal[
    "waiting", "decided", "expired", "running", "approved", "approved-as-edited",
    "blocked", "denied", "error", "new-approval",
]  # fmt: skip
FINAL_STATUSES = ("ok", "error", "blocked", "denied")
VOTES: dict[str, VoteName] = {"allow-once": "allow", "deny": "deny", "edit": "edit"}
"""The desk's decisions as votes on a team's approval (allow-always is not one)."""


class DeskError(ToolhooksError):
    """A request the desk refuses: ``status`` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True, kw_only=True)
class FollowUp:
    """What became of a decided approval, as far as the store and the event log tell."""

    result: Result
    status: str | None = None
    reason: str | None = None
    new_approval_id: str | None = None


def open_store(config: LoadedConfig) -> tuple[ApprovalStore, Any]:
    """The approval store exactly as an agent's runtime with this config opens it.

    Returns the store and the runtime that owns it (close it when done). A store only this
    process could see (no ``[state] url``, no queue route) is refused: nobody could decide there.
    """
    from ..runtime._runtime import Runtime

    runtime = Runtime(config=config, load_entrypoints=False)
    store = runtime.approvals
    if isinstance(store, MemoryStore):
        runtime.close()
        raise ConfigError(
            "the desk needs an approval store that agents share: set [approvals] route = "
            '"queue" (a SQLite file) or [state] url (Redis) in the config',
            file=config.file,
        )
    return store, runtime


def stamp(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))


class Desk:
    """The approval store and the event log, as the pages and the API use them."""

    def __init__(
        self, store: ApprovalStore, calls: CallLog, config: LoadedConfig | None = None
    ) -> None:
        self.store = store
        self.calls = calls
        self.config = config
        self.team = None if config is None or not config.approvals.policies else Team(config)
        """``[approvals]``' people and policies: a team's approval takes votes, not decisions."""
        self._lock_seen: tuple[object, LockReport] | None = None

    def plugin_lock(self) -> LockReport | None:
        """How the installed plugins stand against the config's plugin lock (None: the desk was
        given no config). Worked out again when the lock file changes; the installed files are
        hashed once per process, like the runtime does."""
        if self.config is None:
            return None
        path = lock_path(self.config)
        try:
            info = path.stat() if path is not None else None
        except OSError:
            info = None
        stamp = (path, info.st_mtime_ns, info.st_size) if info is not None else (path, None, None)
        seen = self._lock_seen
        if seen is None or seen[0] != stamp:
            seen = self._lock_seen = (stamp, lock_report(self.config))
        return seen[1]

    def find(self, key: str) -> StoredApproval:
        try:
            row = self.store.get(key)
        except AmbiguousId as exc:
            raise DeskError(409, str(exc)) from None
        if row is None:
            raise DeskError(404, f"no approval {key!r}")
        return row.effective()

    def waiting(self, limit: int = 200) -> list[StoredApproval]:
        """Pending approvals, newest first."""
        return self.store.list(states=("pending",), limit=limit)

    def history(self, limit: int = 200) -> list[StoredApproval]:
        """Decided, consumed and expired approvals, newest first."""
        return self.store.list(states=("decided", "consumed", "expired"), limit=limit)

    def decide(
        self,
        key: str,
        decision: str,
        *,
        by: str,
        reason: str | None = None,
        params: Mapping[str, Any] | None = None,
        token_digest: str | None = None,
        digest: str | None = None,
    ) -> StoredApproval:
        """Record ``decision`` once; a second decider, or a late one, gets a 409 saying why.

        A team's approval (a policy governs it) takes the decision as the vote of the person
        whose own token signed in (``token_digest``); the desk's other tokens cannot vote."""
        row = self.find(key)
        self._refuse_if_closed(row)
        if row.policy is not None:
            return self._vote(row, decision, token_digest, by, reason, params, digest)
        if decision != "deny" and decision not in row.allowed_decisions:
            allowed = ", ".join(row.allowed_decisions)
            raise DeskError(422, f"decision {decision!r} is not allowed here (allowed: {allowed})")
        edited: dict[str, Any] | None = None
        if decision == "edit":
            if params is None:
                raise DeskError(422, "an edit must give the whole params to run")
            try:
                edited = thaw(freeze_params(params))
            except (ParamsError, TypeError, ValueError) as exc:
                raise DeskError(422, f"edited params are invalid: {exc}") from None
        elif params is not None:
            raise DeskError(422, f"params are only given with an edit, not with {decision!r}")
        won = self.store.decide(row.id, decision, params=edited, by=by, reason=reason)
        if won is None:  # someone else was faster, or the deadline passed meanwhile
            self._refuse_if_closed(self.find(row.id))
            raise DeskError(409, f"approval {row.short_id} could not be decided")
        return won

    def _vote(
        self,
        row: StoredApproval,
        decision: str,
        token_digest: str | None,
        by: str,
        reason: str | None,
        params: Mapping[str, Any] | None,
        digest: str | None,
    ) -> StoredApproval:
        person = None
        if self.team is not None and token_digest is not None:
            person = self.team.by_token_digest(token_digest)
        if person is None:
            raise DeskError(
                403,
                f"{by} is no person of [approvals.people]: approval {row.short_id} is decided by "
                "votes (sign in with your own token to vote)",
            )
        vote = VOTES.get(decision)
        if vote is None:
            raise DeskError(422, f"approval {row.short_id} is decided by votes: allow it once")
        try:
            tally = cast(
                self.store, row.id, person, vote, "desk", digest=digest, reason=reason,
                params=params, team=self.team,
            )  # fmt: skip
        except VoteRefused as exc:
            raise DeskError(409, str(exc)) from None
        return tally.row

    def votes(self, row: StoredApproval) -> list[Vote]:
        """The votes on a team's approval (none for another)."""
        return [] if row.policy is None else self.store.votes(row.id)

    @staticmethod
    def _refuse_if_closed(row: StoredApproval) -> None:
        if row.state == "expired":
            raise DeskError(409, f"approval {row.short_id} expired at {stamp(row.expires_at)}")
        if row.state != "pending":
            who = f" by {row.decided_by}" if row.decided_by else ""
            raise DeskError(
                409, f"approval {row.short_id} was already decided: {row.decision}{who}"
            )

    def outcome(self, key: str) -> FollowUp:
        row = self.find(key)
        if row.state in ("pending", "expired"):
            return FollowUp(result="waiting" if row.state == "pending" else "expired")
        if row.state == "decided":
            return FollowUp(result="decided")
        newer = self.store.for_call(row.call_id)
        if newer is not None and newer.id != row.id and newer.state == "pending":
            return FollowUp(result="new-approval", status="pending", new_approval_id=newer.id)
        summary = self.calls.call(row.call_id)
        if summary is None or summary.status not in FINAL_STATUSES:
            return FollowUp(result="running")
        result: Result
        if summary.status in ("ok", "error"):
            edited = row.decision == "edit"
            result = "approved-as-edited" if edited else "approved"
            if summary.status == "error":
                result = "error"
        else:
            result = "blocked" if summary.status == "blocked" else "denied"
        return FollowUp(result=result, status=summary.status, reason=summary.reason)

    def grants(self) -> list[Grant]:
        return sorted(self.store.grants(), key=lambda g: g.created_at, reverse=True)

    def revoke(self, grant_id: str) -> int:
        if not any(grant.id == grant_id for grant in self.store.grants()):
            raise DeskError(404, f"no grant {grant_id!r}")
        return self.store.revoke(grant_id=grant_id)

    def fingerprint(self) -> str:
        """Changes when an approval starts or stops waiting (decided, expired, purged)."""
        rows = self.store.list(states=("pending",), limit=200)
        return "|".join(f"{row.id}:{row.state}" for row in rows)


def rewritten_fields(row: StoredApproval) -> list[dict[str, Any]]:
    """Fields a hook changed: the proposed value beside the one that would run."""
    missing = object()
    fields = []
    for name, plugin in sorted(row.rewritten_by.items()):
        proposed = row.proposed_params.get(name, missing)
        fields.append(
            {
                "field": name,
                "plugin": plugin,
                "proposed": None if proposed is missing else proposed,
                "was_absent": proposed is missing,
                "value": row.params.get(name),
            }
        )
    return fields
