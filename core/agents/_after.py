"""A coding agent's after event: the call it ran concluded with the result it recorded.

The call is concluded under the call id its before event used (``_before``), so the after chain
runs and the audit log holds one call: ``Runtime.call`` where this runtime decided it,
``_pipeline.conclude_recorded`` where another process did (the hand-over tells). Notes and loop
warnings go back as context; a changed result (a redaction, a trim) replaces the agent's where it
lets a hook do that, and is recorded as ``agent.not_applied`` where it cannot. An after event
whose before event was never seen is checked now, late, and the model is told.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..records._models import ToolCall
from ..records._results import Outcome, ToolError
from ._handover import CallRecord, input_key
from ._hooks_json import joined
from ._pipeline import conclude_recorded, emit
from ._protocol import AgentProtocol, HookAnswer, HookEvent

if TYPE_CHECKING:
    from ._bridge import AgentBridge


def after(bridge: AgentBridge, proto: AgentProtocol, event: HookEvent) -> HookAnswer:
    """toolhooks' answer to an after event."""
    caps = proto.capabilities(event)
    keys = [event.call_id] if event.call_id else [input_key(event.tool, event.params)]
    record = bridge.handover.take(event.agent, event.session_id, keys)
    execute = _recorded(event)
    unseen: str | None = None
    if record is None:
        # The before event was not seen (hooks installed mid-call, a refused before event):
        # the call is checked now, late, and the model is told.
        call = bridge.new_call(event)
        bridge.announce(call, event)
        outcome = bridge.rt.call(call, execute=execute)
        unseen = "toolhooks did not see this call before it ran; it was checked afterwards."
    else:
        call = bridge.new_call(
            event, record.call_id, params=record.proposed, trace_id=record.trace_id
        )
        outcome = _conclude(bridge, event, call, record, execute)
    context = _unique(outcome.notes, record.context if record else None, unseen)
    result_text = _changed_result(outcome)
    not_applied = None
    if result_text is not None and "replace_result" not in caps:
        not_applied = "result replaced (a redaction or trim): the agent kept the tool's own"
        emit(bridge.rt, "agent.not_applied", call, {"agent": event.agent, "what": not_applied})
        result_text = None
    return HookAnswer(
        action="none", context=context, result_text=result_text, not_applied=not_applied
    )


def _conclude(
    bridge: AgentBridge, event: HookEvent, call: ToolCall, record: CallRecord, execute: Any
) -> Outcome:
    if record.status == "asked" and record.approval_id is not None:
        # The agent ran it, so its user allowed it in the agent's own prompt.
        bridge.rt.approvals.decide(record.approval_id, "allow-once", by=f"{event.agent} user")
    mine = bridge.decided_by_me(call.id)
    if record.status == "allowed" and not mine:
        return conclude_recorded(bridge.rt, call, record, execute)
    return bridge.rt.call(call, execute=execute)


def _recorded(event: HookEvent) -> Any:
    """The "tool" of an after event: the result the agent recorded (a failure raises it)."""

    def recorded(_params: dict[str, Any]) -> Any:
        if event.failed:
            raise ToolError(_text(event.result) or "the tool failed")
        return event.result

    return recorded


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)


def _changed_result(outcome: Outcome) -> str | None:
    """The text the model should read instead of the tool's own result, or None."""
    if outcome.status in ("ok", "error"):
        return outcome.content if outcome.content_changed else None
    # blocked, denied, pending: the call should not have run; its result is withheld
    return outcome.content or outcome.reason or "toolhooks withheld this result"


def _unique(notes: list[str], *more: str | None) -> str | None:
    seen: list[str] = []
    for text in [*notes, *more]:
        if text and not any(text in kept for kept in seen):
            seen.append(text)
    return joined(*seen)
