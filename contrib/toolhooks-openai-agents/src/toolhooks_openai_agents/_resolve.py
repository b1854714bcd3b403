"""Answering a paused call with any toolhooks decision, and the RunConfig that completes the fit.

``RunState.approve`` / ``reject`` cover allow-once and deny. ``resolve`` adds what the SDK has no
word for (allow-always, edit), and makes a denial show the model toolhooks' own text::

    result = await Runner.run(agent, "...", run_config=guard_run_config(rt))
    while result.interruptions:
        state = result.to_state()
        for item in result.interruptions:
            await aresolve(rt, state, item, "edit", params={"path": "/workspace/draft.txt"})
        result = await Runner.run(agent, state, run_config=guard_run_config(rt))
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from typing import Any

from agents import RunConfig, RunState, ToolApprovalItem
from agents.run_config import ToolErrorFormatterArgs
from toolhooks import Outcome, Runtime

from ._approval import BY, settled_denial

_APPROVE = ("allow-once", "allow-always", "edit")


def resolve(
    runtime: Runtime,
    state: RunState[Any],
    interruption: ToolApprovalItem,
    decision: str,
    *,
    params: Mapping[str, Any] | None = None,
    by: str | None = None,
    reason: str | None = None,
) -> None:
    """Answer one interruption with a toolhooks decision; the run then resumes with ``state``.

    allow-once, allow-always and edit (with the whole ``params`` to run) approve the call in the
    SDK, and the tool call finishes it with this decision when the run resumes (edit runs the
    chain again on the new params). deny concludes the call now and rejects it in the SDK with
    toolhooks' text. An unknown call or a decision the request does not allow is a deny.
    """
    row = _approve(runtime, state, interruption, decision, params, by, reason)
    if row is _APPROVED:
        return
    message = None if row is None else runtime.resume(row.id, "deny", by=by or BY, reason=reason)
    state.reject(interruption, rejection_message=None if message is None else message.content)


async def aresolve(
    runtime: Runtime,
    state: RunState[Any],
    interruption: ToolApprovalItem,
    decision: str,
    *,
    params: Mapping[str, Any] | None = None,
    by: str | None = None,
    reason: str | None = None,
) -> None:
    """:func:`resolve` for code running on an event loop."""
    row = _approve(runtime, state, interruption, decision, params, by, reason)
    if row is _APPROVED:
        return
    message: Outcome | None = None
    if row is not None:
        message = await runtime.aresume(row.id, "deny", by=by or BY, reason=reason)
    state.reject(interruption, rejection_message=None if message is None else message.content)


def _approve(
    runtime: Runtime,
    state: RunState[Any],
    interruption: ToolApprovalItem,
    decision: str,
    params: Mapping[str, Any] | None,
    by: str | None,
    reason: str | None,
) -> Any:
    """Record an approving decision and approve in the SDK (``_APPROVED``); else the pending
    row to deny (None: no toolhooks approval is waiting for this call)."""
    call_id = getattr(interruption.raw_item, "call_id", None)
    row = runtime.approvals.for_call(call_id) if isinstance(call_id, str) else None
    if row is None or row.state != "pending":
        return None
    if decision in _APPROVE:
        edited = dict(params) if params is not None else None
        if runtime.approvals.decide(row.id, decision, params=edited, by=by or BY, reason=reason):
            state.approve(interruption)
            return _APPROVED
    return row


_APPROVED = object()


def guard_run_config(runtime: Runtime, run_config: RunConfig | None = None) -> RunConfig:
    """``run_config`` (or a new one) set up so that no call escapes the runtime's record.

    - A call to a tool the model was not offered (hidden by toolhooks, or unknown) becomes a
      tool output with toolhooks' reason instead of a ``ModelBehaviorError`` that ends the run;
      the call is recorded like any other.
    - ``RunState.reject`` concludes the call in toolhooks at once, and the model reads
      toolhooks' "Denied by user" (an explicit ``rejection_message`` still wins).

    Any ``tool_error_formatter`` already set keeps formatting tool exceptions.
    """
    base = run_config if run_config is not None else RunConfig()
    previous = base.tool_error_formatter

    async def formatter(args: ToolErrorFormatterArgs[Any]) -> str | None:
        if args.kind == "tool_not_found":
            outcome = await runtime.acall(
                {"name": args.tool_name, "params": {}, "id": args.call_id}
            )
            return outcome.content
        if args.kind == "approval_rejected":
            settled = settled_denial(runtime, args.call_id)
            if settled is not None:
                return settled
            row = runtime.approvals.for_call(args.call_id)
            if row is not None and row.state in ("pending", "decided"):
                outcome = await runtime.aresume(row.id, "deny", by=BY)
                return outcome.content
        if previous is None:
            return None
        message = previous(args)
        if inspect.isawaitable(message):
            return await message
        return message

    return dataclasses.replace(
        base, tool_not_found_behavior="return_error_to_model", tool_error_formatter=formatter
    )
