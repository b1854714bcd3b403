"""Approvals for teams: which policy governs a request, who may vote on it, and casting a vote.

A policy is resolved once, when the approval is asked, into the row's ``policy`` (a plain dict:
the approvers' names, the quorum, the requester, escalation and expiry). Every process that
takes a vote reads the same snapshot from the store, so a config changed meanwhile cannot change
who decides a request already asked. People are proven per channel (``Team.by_token``,
``by_slack``, ``by_os_user``); :func:`cast` checks the person against the snapshot and asks the
store to record the vote and decide, in one atomic step, when the votes do.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..config._settings import LoadedConfig
from ..config._team import GROUP, Policy, secret_of
from ..records._errors import ToolhooksError
from ..records._frozen import freeze_params, thaw
from ..records._log import LazyLogger
from ..records._models import ToolCall
from ..records._results import ApprovalRequest
from ..stores._contract import AmbiguousId, ApprovalStore, StoredApproval, Tally, Vote, VoteName
from ._notify import Notifier
from ._policy import may_vote, rule_of

logger = LazyLogger("toolhooks")

CHANNELS = ("desk", "cli", "slack", "approver")


class VoteRefused(ToolhooksError):
    """A vote that cannot count: who, or what, and why, in one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Member:
    """A person of ``[approvals.people]`` with the proofs their config gives."""

    name: str
    groups: tuple[str, ...]
    token: str | None
    """The config's token reference: ``sha256:<hex>`` or ``env:NAME``."""
    slack: str | None
    os_user: str | None

    def token_matches(self, presented: str) -> bool:
        if self.token is None or not presented:
            return False
        wanted = _sha256(presented)
        if self.token.startswith("sha256:"):
            return hmac.compare_digest(self.token[7:], wanted)
        secret = secret_of(self.token)
        return secret is not None and hmac.compare_digest(_sha256(secret), wanted)

    def token_digest(self) -> str | None:
        """The SHA-256 of their token (the desk keeps tokens by it), or None."""
        if self.token is None:
            return None
        if self.token.startswith("sha256:"):
            return self.token[7:]
        secret = secret_of(self.token)
        return None if secret is None else _sha256(secret)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Team:
    """``[approvals]``' people, policies and notify targets, as the runtime and voters use them."""

    def __init__(self, config: LoadedConfig) -> None:
        table = config.approvals
        self.config = config
        self.people: dict[str, Member] = {
            name: Member(
                name=name,
                groups=tuple(person.groups),
                token=person.token,
                slack=person.slack,
                os_user=person.os_user,
            )
            for name, person in table.people.items()
        }
        self.policies: list[Policy] = list(table.policies)
        self.targets: Mapping[str, Any] = table.notify
        self.waiter: Any = None
        """What waits for votes in this process (``_team_wait.TeamApprover``), made by the gate."""
        self._notifier: Notifier | None = None

    def notifier(self, store: ApprovalStore) -> Notifier:
        """This process's deliveries to ``[approvals.notify]`` (one queue, one thread)."""
        if self._notifier is None or self._notifier.store is not store:
            self._notifier = Notifier(self.targets, store)
        return self._notifier

    def tell(self, store: ApprovalStore, event: str, row: StoredApproval) -> None:
        """Queue ``event`` about ``row`` for its policy's targets (never blocks; never raises:
        the approval is in the store whatever becomes of its notification)."""
        if row.policy is None or not row.policy.get("notify"):
            return
        try:
            self.notifier(store).send(event, row, store.votes(row.id))
        except Exception as exc:
            logger.warning("toolhooks: cannot notify of approval %s: %s", row.short_id, exc)

    # -- people ------------------------------------------------------------------------------

    def members(self, names: Iterable[str]) -> list[str]:
        """The people ``names`` (people and ``group:`` names) stand for, sorted."""
        found: set[str] = set()
        for name in names:
            if name.startswith(GROUP):
                group = name[len(GROUP) :]
                found |= {p for p, m in self.people.items() if group in m.groups}
            elif name in self.people:
                found.add(name)
        return sorted(found)

    def by_token(self, presented: str | None) -> str | None:
        """The person whose token this is, or None."""
        if not presented:
            return None
        matches = [m.name for m in self.people.values() if m.token_matches(presented)]
        return matches[0] if len(matches) == 1 else None

    def by_token_digest(self, digest: str) -> str | None:
        matches = [m.name for m in self.people.values() if m.token_digest() == digest]
        return matches[0] if len(matches) == 1 else None

    def by_slack(self, user_id: str) -> str | None:
        matches = [m.name for m in self.people.values() if m.slack == user_id]
        return matches[0] if len(matches) == 1 else None

    def by_os_user(self, os_user: str | None, token: str | None) -> str:
        """The person running ``toolhooks approvals`` as ``os_user``, proven by ``token`` where
        that OS user is shared by several people (or given anyway); refused otherwise."""
        if token:
            person = self.by_token(token)
            if person is None:
                raise VoteRefused("the token given is no person's of [approvals.people]")
            member = self.people[person]
            if member.os_user is not None and member.os_user != os_user:
                raise VoteRefused(
                    f"the token is {person}'s, who votes as OS user {member.os_user!r}, "
                    f"not {os_user!r}"
                )
            return person
        users = [m.name for m in self.people.values() if os_user and m.os_user == os_user]
        if not users:
            raise VoteRefused(
                f"OS user {os_user!r} is no person's os_user in [approvals.people]: "
                "give your token (--token-env)"
            )
        if len(users) > 1:
            raise VoteRefused(
                f"OS user {os_user!r} is shared by {', '.join(sorted(users))}: "
                "give your token (--token-env) to say which of you votes"
            )
        return users[0]

    def requesters(self, sender_id: str | None) -> list[str]:
        """The people a call's sender is: by name, Slack id or OS user."""
        if not sender_id:
            return []
        return sorted(
            m.name for m in self.people.values() if sender_id in (m.name, m.slack, m.os_user)
        )

    # -- policies ----------------------------------------------------------------------------

    def policy_for(self, plugin: str, tool: str, description: str) -> tuple[int, Policy] | None:
        """The first policy whose ``plugins``, ``rules`` and ``tools`` all match, or None."""
        for index, policy in enumerate(self.policies):
            if policy.plugins is not None and plugin not in policy.plugins:
                continue
            if policy.tools is not None and tool not in policy.tools:
                continue
            if policy.rules is not None and rule_of(plugin, description) not in policy.rules:
                continue
            return index, policy
        return None

    def snapshot(
        self, plugin: str, call: ToolCall, request: ApprovalRequest, now: float | None = None
    ) -> dict[str, Any] | None:
        """The policy governing the request as the row keeps it, or None (one person decides)."""
        found = self.policy_for(plugin, call.name, request.description)
        if found is None:
            return None
        index, policy = found
        asked = time.time() if now is None else now
        sender = None if call.sender is None else call.sender.id
        return {
            "name": policy.name or f"policy-{index}",
            "quorum": policy.quorum,
            "approvers": self.members(policy.approvers),
            "requesters": self.requesters(sender),
            "requester_may_approve": policy.requester_may_approve,
            "escalate_at": (
                None if policy.escalate_after_s is None else asked + policy.escalate_after_s
            ),
            "escalate_to": self.members(policy.escalate_to),
            "on_expiry": policy.on_expiry,
            "notify": list(policy.notify),
        }


def cast(
    store: ApprovalStore,
    key: str,
    person: str,
    decision: VoteName,
    channel: str,
    *,
    digest: str | None = None,
    reason: str | None = None,
    params: Mapping[str, Any] | None = None,
    team: Team | None = None,
) -> Tally:
    """``person``'s vote on the approval ``key`` names; VoteRefused says why it cannot count.

    ``digest``: what the voter saw (None: the row's own, for a channel that showed the row just
    now, the CLI); a vote for other params never counts.
    """
    try:
        row = store.get(key)
    except AmbiguousId as exc:
        raise VoteRefused(str(exc)) from None
    if row is None:
        raise VoteRefused(f"no approval {key!r}")
    policy = row.policy
    if policy is None:
        raise VoteRefused(
            f"approval {row.short_id} is governed by no team policy: one person decides it "
            "(approve or deny it)"
        )
    now = time.time()
    if team is not None:
        escalate_due(store, team, now, only=row)
    if not may_vote(policy, person, now):
        raise VoteRefused(
            f"{person} may not vote on approval {row.short_id} "
            f"(policy {policy['name']}: {', '.join(policy['approvers'])})"
        )
    if (
        decision != "deny"
        and person in policy["requesters"]
        and not policy["requester_may_approve"]
    ):
        raise VoteRefused(
            f"{person} asked for this call (its sender) and may not approve it "
            f"(policy {policy['name']}: requester_may_approve = false)"
        )
    edited: dict[str, Any] | None = None
    if decision == "edit":
        if "edit" not in row.allowed_decisions:
            raise VoteRefused(f"approval {row.short_id} does not allow editing its params")
        if params is None:
            raise VoteRefused("an edit must give the whole params to run")
        edited = thaw(freeze_params(params))
    vote = Vote(
        approval_id=row.id,
        person=person,
        decision=decision,
        digest=row.digest if digest is None else digest,
        channel=channel,
        at=now,
        reason=reason,
        params=edited,
    )
    tally = store.vote(vote, quorum=int(policy["quorum"]))
    if tally is None:
        raise VoteRefused(f"approval {row.short_id} left the store")
    if tally.refused is not None:
        raise VoteRefused(tally.refused)
    if team is not None and tally.counted:
        team.tell(store, "approval.vote", tally.row)
    return tally


def escalate_due(
    store: ApprovalStore,
    team: Team,
    now: float | None = None,
    only: StoredApproval | None = None,
) -> list[str]:
    """Escalate every pending approval whose escalation time has come (``only``: that one), each
    once among every process sharing the store; its targets are told. Returns the ids this call
    escalated. Whoever looks first fires it: a waiting agent, ``toolhooks serve``, a vote."""
    moment = time.time() if now is None else now
    rows = [only] if only is not None else store.list(states=("pending",), limit=1000)
    fired: list[str] = []
    for row in rows:
        policy = row.policy
        escalate_at = None if policy is None else policy.get("escalate_at")
        if escalate_at is None or escalate_at > moment or row.effective(moment).state != "pending":
            continue
        if not store.claim(f"escalated:{row.id}", max(row.expires_at - moment, 0) + 86_400.0):
            continue
        fired.append(row.id)
        team.tell(store, "approval.escalated", row)
    return fired
