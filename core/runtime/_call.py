"""One call from proposal to outcome: the pipeline's stages, with the approval step between
screening and the conclusion. The only place the stages and the approvals layer meet.

A call that was paused (here or, with a shared store, in another process) rejoins its approval
instead of running the chain again (``approvals._resume.rejoin``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..approvals._gate import defer, gate
from ..approvals._resume import rejoin
from ..events._scope import current_scope, leave_scope
from ..pipeline._driver import Pipeline
from ..pipeline._stages import (
    Context,
    Execute,
    Run,
    conclude,
    intake,
    proposed_data,
    rejected,
    screen,
)
from ..records._models import ToolCall
from ..records._results import Outcome, PendingApproval


def run_call(
    ctx: Context, raw: ToolCall | Mapping[str, Any], execute: Execute | None
) -> Pipeline[Outcome]:
    try:
        call, tool = intake(ctx.tools, raw)
    except Exception as exc:  # a bad proposal is an Outcome, never an exception
        return rejected(ctx, raw, exc)
    if ctx.paused or ctx.decided or ctx.shared_store:
        rejoined = yield from rejoin(ctx, call, tool, execute)
        if rejoined is not None:
            return rejoined
    run = Run(ctx, call, tool, execute)
    state = run.state
    token = current_scope.set(state)
    try:
        if run.tracing:
            ctx.record(
                state,
                "tool.proposed",
                None,
                proposed_data(call),
            )
        verdict = yield from screen(ctx, run)
        if verdict.status == "go" and state.approval_plugin is not None:
            gated = yield from gate(ctx, run, verdict)
            if isinstance(gated, PendingApproval):
                return defer(ctx, run, gated)
            verdict = gated
        return (yield from conclude(ctx, run, verdict))
    finally:
        run.state.done = True  # a handler thread left running cannot emit past tool.injected
        state.done = True
        leave_scope(token)
