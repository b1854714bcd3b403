"""The JSON API under ``/api`` (its OpenAPI document: ``/api/openapi.json``).

Every route needs a valid token (the app's middleware checks it); every POST also needs the
caller's CSRF token in the ``X-CSRF-Token`` header (``GET /api/me`` gives it). The bodies the
routes return and take are ``_api_models``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ._api_models import (
    Approval,
    Call,
    CallDetail,
    DecisionIn,
    DecisionOut,
    GrantOut,
    Me,
    OutcomeOut,
    Revoked,
    approval_out,
    call_out,
    grant_out,
)
from ._desk import Desk, DeskError, FollowUp

STREAM_POLL_S = 0.5
STREAM_HEARTBEAT_S = 15.0
Key = Annotated[str, Path(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_-]+$")]
CallId = Annotated[str, Path(min_length=1, max_length=256)]
Filter = Annotated[str | None, Query(min_length=1, max_length=200)]


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
    return [approval_out(row, now, desk.votes(row)) for row in rows]


@router.get("/approvals/{key}", response_model=Approval)
def get_approval(request: Request, key: Key) -> Approval:
    """One approval by id, short id or unique prefix."""
    desk = _desk(request)
    row = desk.find(key)
    return approval_out(row, votes=desk.votes(row))


@router.post("/approvals/{key}/decision", response_model=DecisionOut)
def decide(request: Request, key: Key, body: DecisionIn) -> DecisionOut:
    """Record a decision once; the agent that paused the call finishes it. A team's approval
    takes it as the vote of the person whose own token this is."""
    desk = _desk(request)
    identity = request.state.identity
    row = desk.decide(
        key,
        body.decision,
        by=identity.name,
        reason=body.reason,
        params=body.params,
        token_digest=identity.token_digest,
        digest=body.digest,
    )
    return DecisionOut(approval=approval_out(row, votes=desk.votes(row)))


@router.get("/approvals/{key}/outcome", response_model=OutcomeOut)
def outcome(request: Request, key: Key) -> OutcomeOut:
    """What became of the call after the decision (approved, blocked, a new approval, ...)."""
    found: FollowUp = _desk(request).outcome(key)
    return OutcomeOut(
        result=found.result,
        status=found.status,
        reason=found.reason,
        new_approval_id=found.new_approval_id,
    )


@router.get("/grants", response_model=list[GrantOut])
def grants(request: Request) -> list[GrantOut]:
    """allow-always grants, newest first."""
    return [grant_out(grant) for grant in _desk(request).grants()]


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
    return [call_out(summary) for summary in found]


@router.get("/calls/{call_id}", response_model=CallDetail)
def call_detail(request: Request, call_id: CallId) -> CallDetail:
    """One call's events, oldest first."""
    desk = _desk(request)
    summary = desk.calls.call(call_id)
    if summary is None:
        raise DeskError(404, f"no call {call_id!r} in the event log")
    return CallDetail(call=call_out(summary), events=desk.calls.timeline(call_id))


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
