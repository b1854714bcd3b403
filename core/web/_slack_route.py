"""``POST /slack/interactions``: Slack's button clicks, answered by ``toolhooks serve``.

No desk token: Slack cannot send one. The request is Slack's only when its signature verifies
with a target's signing secret, it is fresh and it was not seen before
(``approvals._slack_callback``); anything else changes nothing and gets 401 or 409.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from ..approvals._slack import CALLBACK_PATH
from ..approvals._slack_callback import interaction
from ._desk import Desk

router = APIRouter()


@router.post(CALLBACK_PATH, include_in_schema=False)
async def slack_interaction(request: Request) -> JSONResponse:
    desk: Desk = request.app.state.desk
    if desk.team is None:
        return JSONResponse({"detail": "no [[approvals.policies]] here"}, status_code=404)
    body = await request.body()
    headers = {name.lower(): value for name, value in request.headers.items()}
    reply = await run_in_threadpool(interaction, desk.team, desk.store, headers, body, time.time())
    # Shown to the person who clicked only; the channel's message is updated with the vote.
    answer = {"response_type": "ephemeral", "replace_original": False, "text": reply.text}
    return JSONResponse(answer, status_code=reply.status)
