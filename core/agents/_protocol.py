"""The agent-neutral records of a coding agent's hook call and the shape every agent's protocol has.

A coding agent (Claude Code, Codex CLI, Gemini CLI, Cursor, ...) runs ``toolhooks hook AGENT``
around each tool call with one JSON payload on stdin. The agent's protocol module turns that
payload into a ``HookEvent``; the bridge decides a ``HookAnswer``; the protocol renders it as the
``HookReply`` the agent reads (stdout, stderr, exit code). This module imports only the stdlib:
the hook client that runs before any daemon answers imports it too.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

PHASES = ("before", "after", "prompt", "other")
"""``other`` is every event that is not around a tool call (session start, prompt submit, stop):
answered with a no-op so an agent wired for every event keeps working."""

ACTIONS = ("allow", "deny", "ask", "rewrite", "none")

CAPABILITIES = frozenset({"rewrite", "ask", "context", "replace_result"})
"""What an agent may take from a hook for one event (``AgentProtocol.capabilities``): a new input
(``rewrite``), its own permission prompt (``ask``), text the model reads (``context``), a result
that replaces the tool's (``replace_result``)."""

MAX_PAYLOAD_BYTES = 8 * 1024 * 1024
"""``[agents] max_payload_bytes``' default: a bigger hook event is refused (fail closed)."""


class ProtocolError(ValueError):
    """A payload this agent's protocol cannot read; the message says what was wrong with it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HookReply:
    """Exactly what the hook process prints and exits with."""

    stdout: str
    stderr: str = ""
    exit_code: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class HookEvent:
    """One agent event around a tool call, in toolhooks' terms (``raw`` keeps the agent's own)."""

    agent: str
    phase: str
    event_name: str
    tool: str
    original_tool: str
    params: Mapping[str, Any]
    call_id: str | None
    session_id: str | None
    cwd: str | None
    result: Any = None
    failed: bool = False
    raw: Mapping[str, Any]

    def __post_init__(self) -> None:
        if self.phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, not {self.phase!r}")


def user_prompt(
    agent: str,
    event_name: str,
    text: Any,
    *,
    session_id: str | None,
    cwd: str | None,
    raw: Mapping[str, Any],
) -> HookEvent:
    """An agent's prompt event: the user's words (``params["prompt"]``, empty when the payload
    holds no text), the session's trusted input for ``from`` rules."""
    return HookEvent(
        agent=agent,
        phase="prompt",
        event_name=event_name,
        tool="",
        original_tool="",
        params={"prompt": text if isinstance(text, str) else ""},
        call_id=None,
        session_id=session_id,
        cwd=cwd,
        raw=raw,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class HookAnswer:
    """What toolhooks decided about one event; each protocol renders it in its agent's terms.

    ``params`` (rewrite) are in the agent's own parameter names; ``not_applied`` says what this
    agent's protocol could not carry out (a replacement result it cannot take), so the log
    records it instead of pretending it happened."""

    action: str
    reason: str | None = None
    params: Mapping[str, Any] | None = None
    context: str | None = None
    result_text: str | None = None
    not_applied: str | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"action must be one of {ACTIONS}, not {self.action!r}")
        if self.action == "rewrite" and self.params is None:
            raise ValueError("a rewrite answer needs the new params")


class AgentProtocol(Protocol):
    """One agent's hook protocol: reading its payloads, answering them, wiring its settings."""

    name: str
    schema_version: str
    events: Mapping[str, str]

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """The event in ``payload``; raises ``ProtocolError`` naming what is wrong."""
        ...

    def capabilities(self, event: HookEvent) -> frozenset[str]:
        """Which of ``CAPABILITIES`` this agent takes from a hook for ``event``."""
        ...

    def render(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        """``answer`` as this agent reads it for ``event``."""
        ...

    def refuse(self, payload: Mapping[str, Any] | None, reason: str) -> HookReply:
        """Fail closed in this agent's protocol: the payload was bad or toolhooks failed."""
        ...

    def settings_path(self, scope: str, project: Path, home: Path) -> Path:
        """The settings file ``toolhooks hook install`` edits for ``scope`` (project / user)."""
        ...

    def wire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        """``settings`` with ``command`` wired to every event in ``events``, the rest kept."""
        ...

    def unwire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        """``settings`` without ``command`` anywhere, the rest kept."""
        ...


PROTOCOLS: dict[str, str] = {
    "claude-code": "toolhooks.agents._claude:PROTOCOL",
    "codex": "toolhooks.agents._codex:PROTOCOL",
    "gemini": "toolhooks.agents._gemini:PROTOCOL",
    "cursor": "toolhooks.agents._cursor:PROTOCOL",
    "copilot": "toolhooks.agents._copilot:PROTOCOL",
    "windsurf": "toolhooks.agents._windsurf:PROTOCOL",
    "cline": "toolhooks.agents._cline:PROTOCOL",
}
"""Agent name -> ``module:attribute`` of its protocol, imported on demand (``protocol``), so a
hook for one agent imports that agent's module only."""


def read_payload(raw: bytes, limit: int = MAX_PAYLOAD_BYTES) -> dict[str, Any]:
    """The JSON object on a hook's stdin; ``ProtocolError`` saying what is wrong with it."""
    if len(raw) > limit:
        raise ProtocolError(f"the hook event is {len(raw)} bytes, over the limit of {limit}")
    if not raw.strip():
        raise ProtocolError("the hook event is empty (nothing on stdin)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProtocolError(f"the hook event is not UTF-8 (byte {error.start})") from None
    try:
        payload = json.loads(text)
    except ValueError as error:
        raise ProtocolError(f"the hook event is not JSON (truncated?): {error}") from None
    except RecursionError:  # an answer is owed all the same: refused, in the agent's protocol
        raise ProtocolError("the hook event is JSON nested too deeply to read") from None
    if not isinstance(payload, dict):
        raise ProtocolError(f"the hook event is JSON but not an object ({type(payload).__name__})")
    return payload


def protocol(agent: str) -> AgentProtocol:
    """The protocol of ``agent``; ``ProtocolError`` for an agent toolhooks does not know."""
    target = PROTOCOLS.get(agent)
    if target is None:
        known = ", ".join(sorted(PROTOCOLS))
        raise ProtocolError(f"unknown agent {agent!r} (known: {known})")
    module, _, attribute = target.partition(":")
    try:
        found: AgentProtocol = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise ProtocolError(f"the {agent} protocol is not available: {error}") from None
    return found
