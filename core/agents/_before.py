"""A coding agent's before event: the call decided, and the agent told to run it, run it changed,
ask its user, or not run it.

``Runtime.decide`` with the agent's call id (Gemini CLI: one generated here). Blocked: deny with
the reason, and the call is concluded at once (after chain, audit). Allowed with other params:
the agent's new-input field where it has one, else deny naming the change. An approval: the
agent's own prompt where the request allows ``allow-once`` and the agent has one, else the
``[approvals]`` store (``_approvals``). Allowed: say nothing, so the agent's own rules still
apply. What happened is left in the hand-over for the after event (``_after``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..records._decisions import Decision
from ..records._frozen import thaw
from ..records._models import ToolCall
from ..records._results import Outcome, ToolError
from ._approvals import settle, wait_for, waiting_reason
from ._handover import CallRecord, input_key
from ._hooks_json import joined
from ._pipeline import emit
from ._protocol import AgentProtocol, HookAnswer, HookEvent

if TYPE_CHECKING:
    from ._bridge import AgentBridge


def before(bridge: AgentBridge, proto: AgentProtocol, event: HookEvent) -> HookAnswer:
    """toolhooks' answer to a before event."""
    caps = proto.capabilities(event)
    call = bridge.new_call(event, bridge.claim(event))
    bridge.announce(call, event)
    decision = bridge.rt.decide(call)
    warnings = bridge.warnings.take(call.id)
    if decision.status == "blocked":
        outcome = _conclude_unrun(bridge, call)
        reason = outcome.reason or decision.reason or "Blocked by toolhooks"
        return _deny(caps, reason, outcome.notes)
    if decision.status == "pending":
        return _approval(bridge, proto, event, call, decision, warnings)
    final = decision.params or {}
    record = _record(call, final, "allowed", warnings)
    if final == thaw(call.params):
        _hand_over(bridge, event, call, record)
        return HookAnswer(action="none")
    return _rewrite(bridge, event, call, record, caps)


def _rewrite(
    bridge: AgentBridge,
    event: HookEvent,
    call: ToolCall,
    record: CallRecord,
    caps: frozenset[str],
) -> HookAnswer:
    if "rewrite" in caps:
        _hand_over(bridge, event, call, record, also=record.final)
        return HookAnswer(action="rewrite", params=record.final)
    changed = _changes(thaw(call.params), record.final)
    reason = (
        f"toolhooks allows this call only with changed input ({changed}), and {event.agent} "
        f"cannot take a changed input from a hook. Not run; propose it as: "
        f"{json.dumps(record.final, ensure_ascii=False)}"
    )
    bridge.rt.call(call, execute=_not_run(reason))  # audited as not run
    bridge.decided_by_me(call.id)
    not_applied = "changed input: the agent takes none from a hook, so the call was denied"
    emit(bridge.rt, "agent.not_applied", call, {"agent": event.agent, "what": not_applied})
    return HookAnswer(action="deny", reason=reason, not_applied=not_applied)


def _approval(
    bridge: AgentBridge,
    proto: AgentProtocol,
    event: HookEvent,
    call: ToolCall,
    decision: Decision,
    warnings: list[str],
) -> HookAnswer:
    pending = decision.pending
    assert pending is not None
    caps = proto.capabilities(event)
    request = pending.request
    settings = bridge.settings
    if settings.ask_agent and "ask" in caps and "allow-once" in request.allowed_decisions:
        record = _record(call, thaw(call.params), "asked", warnings, pending.id)
        _hand_over(bridge, event, call, record)
        why = f"{request.title}: {request.description} (toolhooks approval {pending.short_id})"
        return HookAnswer(action="ask", reason=why)
    store = bridge.rt.approvals
    settled = settle(store, pending, wait_for(bridge.config, pending))
    row = settled.row
    if settled.duplicate or row is None or row.state in ("pending", "expired"):
        if row is not None and row.state != "pending":
            _conclude_unrun(bridge, call)  # denied as a duplicate, or expired
        return _deny(caps, waiting_reason(bridge.config, store, settled.named), [])
    if row.decision in ("allow-once", "allow-always"):
        record = _record(call, thaw(call.params), "approval", warnings, row.id)
        _hand_over(bridge, event, call, record)
        return HookAnswer(action="none")
    if row.decision == "edit" and row.decided_params is not None:
        record = _record(call, row.decided_params, "approval", warnings, row.id)
        return _rewrite(bridge, event, call, record, caps)
    outcome = _conclude_unrun(bridge, call)  # denied
    return _deny(caps, outcome.reason or row.reason or "Denied", outcome.notes)


def _conclude_unrun(bridge: AgentBridge, call: ToolCall) -> Outcome:
    """Conclude a call the agent will not run (blocked, denied): its after chain and audit
    events now. The executor is never called for such a call; it is there because an agent's
    tools are not registered, and a call with neither would end as "unknown tool"."""
    outcome = bridge.rt.call(call, execute=_not_run("not run: denied before it started"))
    bridge.decided_by_me(call.id)  # no after event will come for it
    return outcome


def _deny(caps: frozenset[str], reason: str, notes: list[str]) -> HookAnswer:
    extra = joined(*notes)
    if extra and "context" not in caps:
        return HookAnswer(action="deny", reason=joined(reason, extra))
    return HookAnswer(action="deny", reason=reason, context=extra)


def _record(
    call: ToolCall,
    final: Mapping[str, Any],
    status: str,
    warnings: list[str],
    approval_id: str | None = None,
) -> CallRecord:
    return CallRecord(
        call_id=call.id,
        trace_id=call.trace_id,
        tool=call.name,
        proposed=thaw(call.params),
        final=dict(final),
        status=status,
        approval_id=approval_id,
        context=joined(*warnings),
    )


def _hand_over(
    bridge: AgentBridge,
    event: HookEvent,
    call: ToolCall,
    record: CallRecord,
    also: Mapping[str, Any] | None = None,
) -> None:
    keys = [event.call_id] if event.call_id else [input_key(call.name, record.proposed)]
    if not event.call_id and also is not None:
        keys.append(input_key(call.name, also))  # the agent may report the new input
    bridge.handover.put(event.agent, event.session_id, keys, record)


def _not_run(reason: str) -> Any:
    def refuse(_params: dict[str, Any]) -> Any:
        raise ToolError(reason)

    return refuse


def _changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return ", ".join(keys) or "params"
