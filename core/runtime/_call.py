"""One call from proposal to outcome: the pipeline's stages, with the approval step between
screening and the conclusion. The only place the stages and the approvals layer meet.

A call that was paused (here or, with a shared store, in another process) rejoins its approval
instead of running the chain again (``approvals._resume.rejoin``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..events._scope import current_scope
from ..pipeline._conclude import conclude
from ..pipeline._context import Context, Execute, Run
from ..pipeline._driver import Pipeline
from ..pipeline._intake import intake, proposed_data, rejected
from ..pipeline._screen import screen
from ..records._models import ToolCall
from ..records._results import Outcome, PendingApproval


def made_here(raw: ToolCall | Mapping[str, Any]) -> bool:
    """The call's id was made for it just now (a proposal without one): no other runtime, and no
    earlier call, can have paused it, so neither a shared store nor this runtime's own memory of
    paused calls needs to be asked (a Redis round trip, 60-150 µs, saved on every such call)."""
    return not isinstance(raw, ToolCall) and raw.get("id") is None


def run_call(
    ctx: Context, raw: ToolCall | Mapping[str, Any], execute: Execute | None
) -> Pipeline[Outcome]:
    try:
        call, tool = intake(ctx.tools, raw)
    except Exception as exc:  # a bad proposal is an Outcome, never an exception
        return rejected(ctx, raw, exc)
    if (ctx.paused or ctx.decided or ctx.shared_store) and not made_here(raw):
        # The approvals' modules are imported by the calls that may need them (a pause to
        # rejoin, an approval to ask for), not at start: most processes never pause a call.
        from ..approvals._resume import rejoin

        rejoined = yield from rejoin(ctx, call, tool, execute)
        if rejoined is not None:
            return rejoined
    run = Run(ctx, call, tool, execute)
    token = current_scope.set(run)
    try:
        if run.tracing:
            ctx.record(run, "tool.proposed", None, proposed_data(call))
        verdict = yield from screen(ctx, run)
        if verdict.status == "go" and run.state.approval_plugin is not None:
            from ..approvals._gate import gate
            from ..approvals._pause import approval_failed, defer

            try:
                gated = yield from gate(ctx, run, verdict)
                if isinstance(gated, PendingApproval):
                    return defer(ctx, run, gated)
            except Exception as exc:  # fail closed: an approval nobody can record is no approval
                gated = approval_failed(verdict, exc)
            verdict = gated
        return (yield from conclude(ctx, run, verdict))
    finally:
        run.leave(token)
