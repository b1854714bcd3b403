"""The JSON API's bodies (``_api``): what each route returns and the one body a route takes.

Every response model forbids extra fields, so the OpenAPI document (``/api/openapi.json``) is
the whole contract; ``approval_out``, ``grant_out`` and ``call_out`` build them from the store's
and the event log's records.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..events._calls import RecordedCall
from ..stores._contract import Grant, StoredApproval
from ._desk import Decision, Result, rewritten_fields


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Rewritten(_Out):
    field: str
    plugin: str
    proposed: Any = None
    was_absent: bool
    value: Any = None


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


def approval_out(row: StoredApproval, now: float | None = None) -> Approval:
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
    )


class DecisionIn(BaseModel):
    """A decision: ``params`` (the whole params to run) only with ``edit``."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision
    reason: str | None = Field(default=None, max_length=2000)
    params: dict[str, Any] | None = None


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
