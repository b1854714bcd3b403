"""Intake: a proposal (a ``ToolCall`` or a plain mapping) becomes the call the stages work on, or
a recorded rejection; and the ``tool.proposed`` event's data, which ``toolhooks whatif`` rebuilds
the call from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records._call_fields import new_id
from ..records._errors import InvalidToolCall
from ..records._models import ToolCall
from ..records._results import Outcome
from ._context import Context
from ._invoke import describe_error
from ._tools import Tool
from ._verdict import CORE


def intake(
    tools: dict[str, Tool], raw: ToolCall | Mapping[str, Any]
) -> tuple[ToolCall, Tool | None]:
    """The proposal as a ToolCall carrying its tool's spec, and the tool (None if unknown)."""
    if type(raw) is ToolCall:
        tool = tools.get(raw.name)
        if tool is not None and raw.spec is not tool.spec:
            return raw.with_spec(tool.spec), tool
        return raw, tool
    name = raw.get("name") if type(raw) is dict or isinstance(raw, Mapping) else None
    tool = tools.get(name) if type(name) is str else None
    return ToolCall.from_mapping(raw, None if tool is None else tool.spec), tool  # type: ignore[arg-type]


def rejected(ctx: Context, raw: Any, problem: Exception) -> Outcome:
    """A proposal that is not a valid tool call: an Outcome, recorded, never an exception."""
    try:
        name = raw.get("name") if isinstance(raw, Mapping) else None
    except Exception:  # a mapping that raises on access
        name = None
    if not isinstance(problem, (InvalidToolCall, TypeError)):
        problem = InvalidToolCall(f"it cannot be read: {describe_error(problem)}")
    tool = name[:256] if isinstance(name, str) and name.isprintable() else None
    call_id, trace_id = f"call_{new_id()}", new_id()
    reason = f"Invalid tool call: {problem}"
    emit = ctx.events.emit
    emit("tool.blocked", trace_id, call_id, None, tool, CORE, {"by": CORE, "reason": reason})
    emit(
        "tool.injected",
        trace_id,
        call_id,
        None,
        tool,
        None,
        {"status": "blocked", "chars": len(reason), "quiet": []},
    )
    return Outcome(
        status="blocked",
        content=reason,
        call_id=call_id,
        trace_id=trace_id,
        tool=tool or "",
        blocked_by=CORE,
        reason=reason,
    )


def proposed_data(call: ToolCall) -> dict[str, Any]:
    """The data of a call's ``tool.proposed`` event: everything ``toolhooks whatif`` needs to
    rebuild the call from the log. Fields that are unset (no run id, a bare sender id, no tags)
    are left out, so the usual line is no longer than it was before they were added."""
    sender = call.sender
    data: dict[str, Any] = {
        "params": call.params,  # read-only already (FrozenDict): no copy for the event
        "origin": call.origin,
        "agent_id": call.agent_id,
        "sender": None if sender is None else sender.id,
    }
    if call.run_id is not None:
        data["run_id"] = call.run_id
    if call.context_window_tokens is not None:
        data["context_window_tokens"] = call.context_window_tokens
    if sender is not None and (
        sender.name or sender.channel or sender.roles or sender.is_owner or sender.tenant
    ):
        # What policies key on besides the id (roles, channel, name, owner, tenant).
        detail: dict[str, Any] = {}
        if sender.name is not None:
            detail["name"] = sender.name
        if sender.channel is not None:
            detail["channel"] = sender.channel
        if sender.roles:
            detail["roles"] = list(sender.roles)
        if sender.is_owner:
            detail["is_owner"] = True
        if sender.tenant is not None:
            detail["tenant"] = sender.tenant
        data["sender_detail"] = detail
    spec = call.spec
    if spec is not None and spec.tags:
        data["tags"] = sorted(spec.tags)
    return data
