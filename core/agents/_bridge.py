"""The bridge: one coding agent's hook event through the runtime, answered in its protocol.

Before a tool runs (``_before``): ``Runtime.decide`` with the agent's call id (Gemini CLI: one
generated here). Blocked: deny with the reason, and the call is concluded at once (after chain,
audit). Allowed with other params: the agent's new-input field where it has one, else deny naming
the change. An approval: ``_approvals``. Allowed: say nothing, so the agent's own rules still
apply. What happened is left in the hand-over for the after event.

After it ran (``_after``): the call is concluded with the agent's recorded result under the same
call id, so the after chain runs and the audit log holds one call: ``Runtime.call`` where this
runtime decided it, ``_pipeline.conclude_recorded`` where another process did. Notes and loop
warnings go back as context; a changed result (a redaction, a trim) replaces the agent's where
it lets a hook do that, and is recorded as ``agent.not_applied`` where it cannot.

``handle`` never raises: an unreadable event is refused in the agent's protocol (and logged), a
failure of toolhooks itself is refused too unless ``[agents] on_error = "allow"``.
"""

from __future__ import annotations

import getpass
import json
import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..records._frozen import thaw
from ..records._models import ToolCall, new_id
from ..records._results import Decision, Outcome, ToolError
from ..records._sender import Sender
from ..registry._hookimpl import hookimpl
from ..runtime._runtime import Runtime
from ._approvals import settle, wait_for, waiting_reason
from ._handover import CallRecord, HandOver, SQLiteHandOver, input_key
from ._hooks_json import joined
from ._pipeline import conclude_recorded, emit
from ._protocol import (
    AgentProtocol,
    HookAnswer,
    HookEvent,
    HookReply,
    ProtocolError,
    protocol,
    read_payload,
)

logger = logging.getLogger("toolhooks.agents")
DECIDED_LIMIT = 4096
HANDOVER_FILE = "agent-calls.db"
"""Next to the approvals database: the hand-over between a call's before and after events."""


class LoopWarnings:
    """An ``on_event`` sink that keeps each call's loop warnings until the bridge takes them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._found: OrderedDict[str, list[str]] = OrderedDict()

    @hookimpl
    def on_event(self, event: Any) -> None:
        if event.event != "loop.warning":
            return
        message = event.data.get("message")
        if isinstance(message, str):
            with self._lock:
                self._found.setdefault(event.call_id, []).append(message)
                while len(self._found) > DECIDED_LIMIT:
                    self._found.popitem(last=False)

    def take(self, call_id: str) -> list[str]:
        with self._lock:
            return self._found.pop(call_id, [])


class AgentBridge:
    """Answers coding agents' hook events with one runtime (thread-safe: the daemon shares it)."""

    def __init__(self, runtime: Runtime, *, handover: HandOver | None = None) -> None:
        self.rt = runtime
        self.config = runtime.config
        self.settings = runtime.config.agents
        self.sender = self.settings.sender or _os_user()
        self.handover = handover if handover is not None else default_handover(runtime)
        self._warnings = LoopWarnings()
        runtime._register_observer(self._warnings, "toolhooks_agents")
        self._lock = threading.Lock()
        self._open: OrderedDict[str, tuple[str | None, str]] = OrderedDict()
        """Call id -> (session, input key) of the calls this runtime decided, until their after
        event."""

    def close(self) -> None:
        self.handover.close()

    # -- one event ---------------------------------------------------------------------------

    def handle(self, agent: str, raw: bytes) -> HookReply:
        """The reply to one hook event; never raises."""
        try:
            proto = protocol(agent)
        except ProtocolError as error:
            return HookReply(stdout="", stderr=f"toolhooks: {error}\n", exit_code=2)
        payload: dict[str, Any] | None = None
        try:
            payload = read_payload(raw, self.settings.max_payload_bytes)
            event = proto.parse(payload)
        except ProtocolError as error:
            self._refused(agent, payload, str(error), len(raw))
            return proto.refuse(payload, str(error))
        try:
            answer = self.answer(proto, event)
            return proto.render(event, answer)
        except Exception as error:
            logger.exception("toolhooks: the %s hook failed", agent)
            reason = f"toolhooks failed: {type(error).__name__}: {error}"
            self._refused(agent, payload, reason, len(raw))
            if self.settings.on_error == "allow":
                return proto.render(event, HookAnswer(action="none"))
            return proto.refuse(payload, reason)

    def answer(self, proto: AgentProtocol, event: HookEvent) -> HookAnswer:
        """toolhooks' answer to ``event`` (before ``proto`` renders it)."""
        if event.phase == "before":
            return self._before(proto, event)
        if event.phase == "after":
            return self._after(proto, event)
        return HookAnswer(action="none")

    # -- before ------------------------------------------------------------------------------

    def _call(self, event: HookEvent, call_id: str | None = None, **ids: Any) -> ToolCall:
        return ToolCall(
            name=event.tool,
            params=ids.pop("params", event.params),
            id=call_id or event.call_id or f"{event.agent}_{uuid.uuid4().hex}",
            session_id=event.session_id,
            agent_id=event.agent,
            sender=Sender(id=self.sender),
            **ids,
        )

    def _before(self, proto: AgentProtocol, event: HookEvent) -> HookAnswer:
        caps = proto.capabilities(event)
        call = self._call(event, self._claim(event))
        self._announce(call, event)
        decision = self.rt.decide(call)
        warnings = self._warnings.take(call.id)
        if decision.status == "blocked":
            outcome = self._conclude_unrun(call)
            reason = outcome.reason or decision.reason or "Blocked by toolhooks"
            return self._deny(caps, reason, outcome.notes)
        if decision.status == "pending":
            return self._approval(proto, event, call, decision, warnings)
        final = decision.params or {}
        record = self._record(call, final, "allowed", warnings)
        if final == thaw(call.params):
            self._hand_over(event, call, record)
            return HookAnswer(action="none")
        return self._rewrite(event, call, record, caps)

    def _rewrite(
        self, event: HookEvent, call: ToolCall, record: CallRecord, caps: frozenset[str]
    ) -> HookAnswer:
        if "rewrite" in caps:
            self._hand_over(event, call, record, also=record.final)
            return HookAnswer(action="rewrite", params=record.final)
        changed = _changes(thaw(call.params), record.final)
        reason = (
            f"toolhooks allows this call only with changed input ({changed}), and {event.agent} "
            f"cannot take a changed input from a hook. Not run; propose it as: "
            f"{json.dumps(record.final, ensure_ascii=False)}"
        )
        self.rt.call(call, execute=_not_run(reason))  # audited as not run
        self._decided_by_me(call.id)
        not_applied = "changed input: the agent takes none from a hook, so the call was denied"
        emit(self.rt, "agent.not_applied", call, {"agent": event.agent, "what": not_applied})
        return HookAnswer(action="deny", reason=reason, not_applied=not_applied)

    def _approval(
        self,
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
        if self.settings.ask_agent and "ask" in caps and "allow-once" in request.allowed_decisions:
            record = self._record(call, thaw(call.params), "asked", warnings, pending.id)
            self._hand_over(event, call, record)
            why = f"{request.title}: {request.description} (toolhooks approval {pending.short_id})"
            return HookAnswer(action="ask", reason=why)
        store = self.rt.approvals
        settled = settle(store, pending, wait_for(self.config, pending))
        row = settled.row
        if settled.duplicate or row is None or row.state in ("pending", "expired"):
            if row is not None and row.state != "pending":
                self._conclude_unrun(call)  # denied as a duplicate, or expired
            return self._deny(caps, waiting_reason(self.config, store, settled.named), [])
        if row.decision in ("allow-once", "allow-always"):
            record = self._record(call, thaw(call.params), "approval", warnings, row.id)
            self._hand_over(event, call, record)
            return HookAnswer(action="none")
        if row.decision == "edit" and row.decided_params is not None:
            record = self._record(call, row.decided_params, "approval", warnings, row.id)
            return self._rewrite(event, call, record, caps)
        outcome = self._conclude_unrun(call)  # denied
        return self._deny(caps, outcome.reason or row.reason or "Denied", outcome.notes)

    def _conclude_unrun(self, call: ToolCall) -> Outcome:
        """Conclude a call the agent will not run (blocked, denied): its after chain and audit
        events now. The executor is never called for such a call; it is there because an agent's
        tools are not registered, and a call with neither would end as "unknown tool"."""
        outcome = self.rt.call(call, execute=_not_run("not run: denied before it started"))
        self._decided_by_me(call.id)  # no after event will come for it
        return outcome

    def _deny(self, caps: frozenset[str], reason: str, notes: list[str]) -> HookAnswer:
        extra = joined(*notes)
        if extra and "context" not in caps:
            return HookAnswer(action="deny", reason=joined(reason, extra))
        return HookAnswer(action="deny", reason=reason, context=extra)

    def _record(
        self,
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
        self,
        event: HookEvent,
        call: ToolCall,
        record: CallRecord,
        also: Mapping[str, Any] | None = None,
    ) -> None:
        keys = [event.call_id] if event.call_id else [input_key(call.name, record.proposed)]
        if not event.call_id and also is not None:
            keys.append(input_key(call.name, also))  # the agent may report the new input
        self.handover.put(event.agent, event.session_id, keys, record)

    def _claim(self, event: HookEvent) -> str:
        """The toolhooks call id for a new call: the agent's, unless another call (another
        session, or another tool or input) still holds that id here (the runtime remembers
        decided calls by id: two calls must not meet there), then the agent's with a suffix of
        its own."""
        call_id = event.call_id or f"{event.agent}_{uuid.uuid4().hex}"
        # The id comes from the model's API: an open call is joined again only by the same
        # session proposing the same tool and input (a retry); anything else under that id gets
        # an id of its own, or it would be answered with the other call's decision.
        holder = (event.session_id, input_key(event.tool, event.params))
        with self._lock:
            if call_id in self._open and self._open[call_id] != holder:
                call_id = f"{call_id}~{uuid.uuid4().hex[:12]}"
            self._open[call_id] = holder
            while len(self._open) > DECIDED_LIMIT:
                self._open.popitem(last=False)
        return call_id

    def _decided_by_me(self, call_id: str) -> bool:
        """Whether this bridge's runtime decided ``call_id`` (so ``Runtime.call`` concludes it)."""
        with self._lock:
            return self._open.pop(call_id, False) is not False

    # -- after -------------------------------------------------------------------------------

    def _after(self, proto: AgentProtocol, event: HookEvent) -> HookAnswer:
        caps = proto.capabilities(event)
        keys = [event.call_id] if event.call_id else [input_key(event.tool, event.params)]
        record = self.handover.take(event.agent, event.session_id, keys)
        execute = _recorded(event)
        unseen: str | None = None
        if record is None:
            # The before event was not seen (hooks installed mid-call, a refused before event):
            # the call is checked now, late, and the model is told.
            call = self._call(event)
            self._announce(call, event)
            outcome = self.rt.call(call, execute=execute)
            unseen = "toolhooks did not see this call before it ran; it was checked afterwards."
        else:
            call = self._call(
                event, record.call_id, params=record.proposed, trace_id=record.trace_id
            )
            outcome = self._conclude(event, call, record, execute)
        context = _unique(outcome.notes, record.context if record else None, unseen)
        result_text = _changed_result(outcome)
        not_applied = None
        if result_text is not None and "replace_result" not in caps:
            not_applied = "result replaced (a redaction or trim): the agent kept the tool's own"
            emit(self.rt, "agent.not_applied", call, {"agent": event.agent, "what": not_applied})
            result_text = None
        return HookAnswer(
            action="none", context=context, result_text=result_text, not_applied=not_applied
        )

    def _conclude(
        self, event: HookEvent, call: ToolCall, record: CallRecord, execute: Any
    ) -> Outcome:
        if record.status == "asked" and record.approval_id is not None:
            # The agent ran it, so its user allowed it in the agent's own prompt.
            self.rt.approvals.decide(record.approval_id, "allow-once", by=f"{event.agent} user")
        mine = self._decided_by_me(call.id)
        if record.status == "allowed" and not mine:
            return conclude_recorded(self.rt, call, record, execute)
        return self.rt.call(call, execute=execute)

    # -- the log -----------------------------------------------------------------------------

    def _announce(self, call: ToolCall, event: HookEvent) -> None:
        data = {
            "agent": event.agent,
            "event_name": event.event_name,
            "original_tool": event.original_tool,
            "cwd": event.cwd,
        }
        emit(self.rt, "agent.hook", call, data)

    def _refused(
        self, agent: str, payload: Mapping[str, Any] | None, reason: str, size: int
    ) -> None:
        """An event that was not answered by the pipeline still leaves a line in the log."""
        payload = payload or {}
        tool = payload.get("tool_name")
        session = payload.get("session_id")
        call = ToolCall(
            name=tool if isinstance(tool, str) and tool and tool.isprintable() else "unknown",
            id=f"refused_{new_id()}",
            session_id=session if isinstance(session, str) else None,
            agent_id=agent,
        )
        event_name = payload.get("hook_event_name")
        data = {"agent": agent, "reason": reason, "bytes": size, "event_name": event_name}
        try:
            emit(self.rt, "agent.refused", call, data)
        except Exception:  # the log itself failing must not stop the answer
            logger.exception("toolhooks: could not log a refused %s hook event", agent)


def default_handover(runtime: Runtime) -> HandOver:
    """The hand-over file next to the approvals database (``[approvals] db``)."""
    return SQLiteHandOver(Path(runtime.config.approvals.db).expanduser().parent / HANDOVER_FILE)


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in the environment or the password database
        return "unknown"


def _recorded(event: HookEvent) -> Any:
    """The "tool" of an after event: the result the agent recorded (a failure raises it)."""

    def recorded(_params: dict[str, Any]) -> Any:
        if event.failed:
            raise ToolError(_text(event.result) or "the tool failed")
        return event.result

    return recorded


def _not_run(reason: str) -> Any:
    def refuse(_params: dict[str, Any]) -> Any:
        raise ToolError(reason)

    return refuse


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)


def _changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return ", ".join(keys) or "params"


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
