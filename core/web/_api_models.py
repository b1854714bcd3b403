"""The JSON API's bodies (``_api``): what each route returns and the one body a route takes.

Every response model forbids extra fields, so the OpenAPI document (``/api/openapi.json``) is
the whole contract; ``approval_out``, ``grant_out`` and ``call_out`` build them from the store's
and the event log's records.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..approvals._policy import still_needed
from ..events._calls import RecordedCall
from ..stores._contract import Grant, StoredApproval, Vote
from ._desk import Decision, Result, rewritten_fields


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Rewritten(_Out):
    field: str
    plugin: str
    proposed: Any = None
    was_absent: bool
    value: Any = None


class VoteOut(_Out):
    person: str
    vote: str
    channel: str
    at: float
    reason: str | None


class Team(_Out):
    """A team's approval (a policy governs it): who decides, how many, by when."""

    policy: str
    quorum: int
    approvers: list[str]
    votes: list[VoteOut]
    still_needed: list[str]
    escalate_at: float | None
    escalate_to: list[str]
    escalated: bool
    on_expiry: str


class Approval(_Out):
    id: str
    short_id: str
    call_id: str
    trace_id: str
    session_id: str | None
    agent_id: str | None
    sender: str | None
    tool: str
    plugin: str
    title: str
    description: str
    severity: str
    allowed_decisions: list[str]
    params: dict[str, Any]
    proposed_params: dict[str, Any]
    rewritten: list[Rewritten]
    tool_schema: dict[str, Any] | None
    digest: str
    created_at: float
    expires_at: float
    expires_in_s: float
    state: str
    decision: str | None
    decided_params: dict[str, Any] | None
    decided_by: str | None
    decided_at: float | None
    reason: str | None
    consumed_at: float | None
    team: Team | None = None
    """None: one person decides it."""


def team_out(row: StoredApproval, votes: list[Vote], now: float) -> Team | None:
    policy = row.policy
    if policy is None:
        return None
    escalate_at = policy.get("escalate_at")
    return Team(
        policy=str(policy["name"]),
        quorum=int(policy["quorum"]),
        approvers=list(policy["approvers"]),
        votes=[
            VoteOut(person=v.person, vote=v.decision, channel=v.channel, at=v.at, reason=v.reason)
            for v in votes
        ],
        still_needed=still_needed(policy, votes, now) if row.state == "pending" else [],
        escalate_at=escalate_at,
        escalate_to=list(policy.get("escalate_to", ())),
        escalated=escalate_at is not None and now >= escalate_at,
        on_expiry=str(policy.get("on_expiry", "deny")),
    )


def approval_out(
    row: StoredApproval, now: float | None = None, votes: list[Vote] | None = None
) -> Approval:
    moment = time.time() if now is None else now
    return Approval(
        id=row.id,
        short_id=row.short_id,
        call_id=row.call_id,
        trace_id=row.trace_id,
        session_id=row.session_id,
        agent_id=row.agent_id,
        sender=row.sender_id,
        tool=row.tool,
        plugin=row.plugin,
        title=row.title,
        description=row.description,
        severity=row.severity,
        allowed_decisions=list(row.allowed_decisions),
        params=row.params,
        proposed_params=row.proposed_params,
        rewritten=[Rewritten(**item) for item in rewritten_fields(row)],
        tool_schema=row.schema,
        digest=row.digest,
        created_at=row.created_at,
        expires_at=row.expires_at,
        expires_in_s=max(0.0, row.expires_at - moment),
        state=row.state,
        decision=row.decision,
        decided_params=row.decided_params,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        reason=row.reason,
        consumed_at=row.consumed_at,
        team=team_out(row, votes or [], moment),
    )


class DecisionIn(BaseModel):
    """A decision: ``params`` (the whole params to run) only with ``edit``."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision
    reason: str | None = Field(default=None, max_length=2000)
    params: dict[str, Any] | None = None
    digest: str | None = Field(default=None, pattern="^[0-9a-f]{64}$")
    """The digest the decider saw: a team's vote counts only for exactly those params."""


class DecisionOut(_Out):
    approval: Approval


class OutcomeOut(_Out):
    result: Result
    status: str | None
    reason: str | None
    new_approval_id: str | None


class GrantOut(_Out):
    id: str
    plugin: str
    tool: str
    sender: str | None
    session: str | None
    created_at: float
    by: str | None


class Revoked(_Out):
    revoked: int


class Call(_Out):
    call_id: str
    trace_id: str | None
    session_id: str | None
    tool: str | None
    started: float
    updated: float
    status: str
    decision: str | None
    decided_by: str | None
    reason: str | None
    approval_ids: list[str]
    events: int


class CallDetail(_Out):
    call: Call
    events: list[dict[str, Any]]


class Me(_Out):
    name: str
    csrf_token: str


def grant_out(grant: Grant) -> GrantOut:
    return GrantOut(**grant.to_dict())


def call_out(summary: RecordedCall) -> Call:
    return Call(**summary.summary())
