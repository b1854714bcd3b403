"""The JSON API under ``/api`` (its OpenAPI document: ``/api/openapi.json``).

Every route needs a valid token (the app's middleware checks it); every POST also needs the
caller's CSRF token in the ``X-CSRF-Token`` header (``GET /api/me`` gives it).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..stores._contract import Grant, StoredApproval
from ._calls import CallSummary
from ._desk import Decision, Desk, DeskError, Outcome, Result, rewritten_fields

STREAM_POLL_S = 0.5
STREAM_HEARTBEAT_S = 15.0
Key = Annotated[str, Path(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_-]+$")]
CallId = Annotated[str, Path(min_length=1, max_length=256)]
Filter = Annotated[str | None, Query(min_length=1, max_length=200)]


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


def _grant(grant: Grant) -> GrantOut:
    return GrantOut(**grant.to_dict())


def _call(summary: CallSummary) -> Call:
    return Call(**summary.to_dict())


def _desk(request: Request) -> Desk:
    desk: Desk = request.app.state.desk
    return desk


router = APIRouter(prefix="/api")


@router.get("/me", response_model=Me)
def me(request: Request) -> Me:
    """Who the token belongs to, and the CSRF token its POSTs must carry."""
    identity = request.state.identity
    return Me(name=identity.name, csrf_token=request.app.state.tokens.csrf(identity))


@router.get("/approvals", response_model=list[Approval])
def list_approvals(
    request: Request,
    state: Annotated[str, Query(pattern="^(pending|history|all)$")] = "pending",
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[Approval]:
    """Approvals newest first: ``pending`` (waiting), ``history`` (decided or expired), ``all``."""
    desk = _desk(request)
    if state == "pending":
        rows = desk.waiting(limit)
    elif state == "history":
        rows = desk.history(limit)
    else:
        rows = desk.store.list(limit=limit)
    now = time.time()
    return [approval_out(row, now) for row in rows]


@router.get("/approvals/{key}", response_model=Approval)
def get_approval(request: Request, key: Key) -> Approval:
    """One approval by id, short id or unique prefix."""
    return approval_out(_desk(request).find(key))


@router.post("/approvals/{key}/decision", response_model=DecisionOut)
def decide(request: Request, key: Key, body: DecisionIn) -> DecisionOut:
    """Record a decision once; the agent that paused the call finishes it."""
    row = _desk(request).decide(
        key,
        body.decision,
        by=request.state.identity.name,
        reason=body.reason,
        params=body.params,
    )
    return DecisionOut(approval=approval_out(row))


@router.get("/approvals/{key}/outcome", response_model=OutcomeOut)
def outcome(request: Request, key: Key) -> OutcomeOut:
    """What became of the call after the decision (approved, blocked, a new approval, ...)."""
    found: Outcome = _desk(request).outcome(key)
    return OutcomeOut(
        result=found.result,
        status=found.status,
        reason=found.reason,
        new_approval_id=found.new_approval_id,
    )


@router.get("/grants", response_model=list[GrantOut])
def grants(request: Request) -> list[GrantOut]:
    """allow-always grants, newest first."""
    return [_grant(grant) for grant in _desk(request).grants()]


@router.post("/grants/{grant_id}/revoke", response_model=Revoked)
def revoke(request: Request, grant_id: Key) -> Revoked:
    """Forget one allow-always grant: the next such call asks again."""
    return Revoked(revoked=_desk(request).revoke(grant_id))


@router.get("/calls", response_model=list[Call])
def calls(
    request: Request,
    session: Filter = None,
    trace: Filter = None,
    tool: Filter = None,
    status: Filter = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[Call]:
    """Tool calls from the event log, newest first; each filter is an exact match."""
    found = _desk(request).calls.calls(
        session=session, trace=trace, tool=tool, status=status, limit=limit
    )
    return [_call(summary) for summary in found]


@router.get("/calls/{call_id}", response_model=CallDetail)
def call_detail(request: Request, call_id: CallId) -> CallDetail:
    """One call's events, oldest first."""
    desk = _desk(request)
    summary = desk.calls.call(call_id)
    if summary is None:
        raise DeskError(404, f"no call {call_id!r} in the event log")
    return CallDetail(call=_call(summary), events=desk.calls.timeline(call_id))


@router.get("/stream", include_in_schema=False)
async def stream(request: Request) -> StreamingResponse:
    """Server-sent events: ``approvals`` when the store changes, ``calls`` when the log does."""
    desk = _desk(request)

    async def events() -> AsyncIterator[str]:
        seen: dict[str, str] = {}
        quiet_since = time.monotonic()
        yield "retry: 2000\n\n"
        while not await request.is_disconnected():
            current = {
                "approvals": await run_in_threadpool(desk.fingerprint),
                "calls": await run_in_threadpool(desk.calls.version),
            }
            for name, value in current.items():
                if seen.get(name) != value:
                    seen[name] = value
                    yield f"event: {name}\ndata: {json.dumps({'at': time.time()})}\n\n"
                    quiet_since = time.monotonic()
            if time.monotonic() - quiet_since > STREAM_HEARTBEAT_S:
                yield ": still here\n\n"
                quiet_since = time.monotonic()
            await asyncio.sleep(STREAM_POLL_S)

    return StreamingResponse(events(), media_type="text/event-stream")
