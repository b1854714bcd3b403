"""The bridge: one coding agent's hook event through the runtime, answered in its protocol.

``handle`` reads the event in the agent's protocol and hands it to ``_before`` (the call
decided before the tool runs) or ``_after`` (the call concluded with the agent's recorded
result); this module holds what both share: the call ids this runtime has open, each call's loop
warnings, and the bridge's own log lines. ``handle`` never raises: an unreadable event is refused
in the agent's protocol (and logged), a failure of toolhooks itself is refused too unless
``[agents] on_error = "allow"``.
"""

from __future__ import annotations

import getpass
import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..records._call_fields import new_id
from ..records._models import ToolCall
from ..records._sender import Sender
from ..registry._hookimpl import hookimpl
from ..runtime._runtime import Runtime
from ._after import after
from ._before import before
from ._handover import HandOver, SQLiteHandOver, input_key
from ._pipeline import emit
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
        self.warnings = LoopWarnings()
        runtime._register_observer(self.warnings, "toolhooks_agents")
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

    def refuse(self, agent: str, reason: str, size: int) -> HookReply:
        """Refuse an event that was never read whole (over the daemon's limit), in ``agent``'s
        protocol, and log it as ``agent.refused``."""
        proto = protocol(agent)
        self._refused(agent, None, reason, size)
        return proto.refuse(None, reason)

    def answer(self, proto: AgentProtocol, event: HookEvent) -> HookAnswer:
        """toolhooks' answer to ``event`` (before ``proto`` renders it)."""
        if event.phase == "before":
            return before(self, proto, event)
        if event.phase == "after":
            return after(self, proto, event)
        if event.phase == "prompt":
            self.trust(event)
        return HookAnswer(action="none")

    def trust(self, event: HookEvent) -> None:
        """The user's prompt is the session's trusted input (``from`` rules); a store that
        cannot be written is logged, and the prompt goes on (only ``from`` gets stricter)."""
        prompt = event.params.get("prompt")
        if not event.session_id or not isinstance(prompt, str) or not prompt:
            return
        try:
            self.rt.trust(event.session_id, prompt)
        except Exception:
            logger.exception("toolhooks: could not record the %s prompt as trusted", event.agent)

    # -- the call and its id ------------------------------------------------------------

    def new_call(self, event: HookEvent, call_id: str | None = None, **ids: Any) -> ToolCall:
        """The ``ToolCall`` of ``event`` under ``call_id`` (else the agent's, else a new one)."""
        return ToolCall(
            name=event.tool,
            params=ids.pop("params", event.params),
            id=call_id or event.call_id or f"{event.agent}_{uuid.uuid4().hex}",
            session_id=event.session_id,
            agent_id=event.agent,
            sender=Sender(id=self.sender),
            **ids,
        )

    def claim(self, event: HookEvent) -> str:
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

    def decided_by_me(self, call_id: str) -> bool:
        """Whether this bridge's runtime decided ``call_id`` (so ``Runtime.call`` concludes it)."""
        with self._lock:
            return self._open.pop(call_id, False) is not False

    # -- the log -----------------------------------------------------------------------------

    def announce(self, call: ToolCall, event: HookEvent) -> None:
        """``agent.hook``: which agent, its event and tool name, the cwd, in the call's trace."""
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
