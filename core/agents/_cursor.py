"""Cursor's agent hooks (the IDE's agent and the ``cursor-agent`` CLI) in toolhooks' terms.

Written against Cursor's hooks reference as published in 2026 (``hooks.json`` ``version: 1``;
the generic ``preToolUse`` / ``postToolUse`` / ``postToolUseFailure`` events, the CLI builds
2026.02-2026.09). Sources:

- https://cursor.com/docs/agent/hooks (also https://cursor.com/docs/hooks.md): the events, the
  ``hooks.json`` shape (``version``, per-event lists of ``{command, timeout, matcher,
  failClosed}``; ``timeout`` in seconds), the project file ``.cursor/hooks.json`` and the user
  file ``~/.cursor/hooks.json``, the permission answer ``{permission, user_message,
  agent_message}``, ``updated_input`` on ``preToolUse``, ``additional_context`` and
  ``updated_mcp_tool_output`` after a tool, exit code 2 = deny with stderr as the reason.
- https://cursor.com/docs/reference/third-party-hooks: Cursor also runs Claude Code's hooks
  from ``.claude/settings.json``; the Claude Code protocol covers those.
- Payloads captured from ``cursor-agent`` 2026.02.13 (github.com/entireio/cli,
  ``cmd/entire/cli/agent/cursor/AGENT.md``): ``preToolUse`` carries ``tool_name``,
  ``tool_input``, ``tool_use_id``; ``postToolUse`` adds ``tool_output`` (a JSON string) and
  ``duration``; tool names ``Shell``, ``Read``, ``Write``, ``StrReplace``, ``Grep``, ``Glob``,
  ``Delete``, ``Task`` and ``MCP:<tool>``.

What Cursor can take: a deny with a message for the model (``agent_message``) and one for the
user; ``ask`` (Cursor's own prompt) on ``beforeShellExecution`` and ``beforeMCPExecution`` only
(``preToolUse`` documents allow and deny, and an ask there is reported to let the call run
unasked, so toolhooks never sends one: the ``[approvals]`` route decides); a rewritten input on
``preToolUse`` only; context for the
model after a tool; a replaced result for MCP tools only. ``failClosed: true`` makes Cursor
block the tool when the hook itself fails or times out, so install sets it.

toolhooks wires the generic events: one decision per tool call, with a call id and rewrites.
The older per-kind events (``beforeShellExecution``, ``beforeMCPExecution``,
``beforeReadFile``, ``afterShellExecution``, ``afterMCPExecution``, ``afterFileEdit``) are
understood too, for a hooks.json wired by hand or a Cursor older than ``preToolUse``; wiring
both would decide each call twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _fields, _hooklists
from ._places import hook_settings_path
from ._protocol import AgentProtocol, HookAnswer, HookEvent, HookReply, ProtocolError
from ._replies import denial, json_reply

AGENT = "cursor"
TIMEOUT_S = 600  # seconds; above any [approvals] wait_s, or Cursor ends the hook mid-approval

EVENTS = {"preToolUse": "before", "postToolUse": "after", "postToolUseFailure": "after"}
"""The tool events ``toolhooks hook install cursor`` wires."""
PROMPT_EVENT = "beforeSubmitPrompt"
"""The user's prompt (``prompt``, with ``attachments``), before Cursor sends it: toolhooks' trusted
input for ``from`` rules, answered ``{"continue": true}``. Install wires it too."""

KIND_EVENTS = {
    "beforeShellExecution": "before",
    "beforeMCPExecution": "before",
    "beforeReadFile": "before",
    "afterShellExecution": "after",
    "afterMCPExecution": "after",
    "afterFileEdit": "after",
}
OTHER_EVENTS = frozenset(
    {
        "sessionStart",
        "sessionEnd",
        "stop",
        "afterAgentResponse",
        "afterAgentThought",
        "preCompact",
        "subagentStart",
        "subagentStop",
        "beforeTabFileRead",
        "afterTabFileEdit",
        "workspaceOpen",
    }
)

TOOL_NAMES = {
    "Shell": "exec",
    "Read": "read",
    "Grep": "read",
    "Glob": "read",
    "LS": "read",
    "ReadLints": "read",
    "Write": "write",
    "Delete": "write",
    "StrReplace": "edit",
    "Edit": "edit",
    "MultiEdit": "edit",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "Task": "sessions_spawn",
    "Subagent": "sessions_spawn",
}
"""Cursor's tool -> toolhooks' name; ``MCP:<server>:<tool>`` -> ``<server>__<tool>``."""
CONVERSATION_TOOLS = frozenset({"TodoWrite", "AskQuestion"})
"""Tools that only talk to the user: not governed (phase ``other``)."""

# Permission events answer {"permission": ...}; Cursor blocks on any other shape.
PERMISSION_EVENTS = frozenset(
    {"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"}
)


def tool_name(name: str, payload: Mapping[str, Any]) -> str:
    """toolhooks' name for Cursor's tool ``name``."""
    if name.startswith("MCP:"):
        parts = name[4:].split(":", 1)
        server = parts[0] if len(parts) == 2 else server_of(payload)
        return f"{server}__{parts[-1]}"
    return TOOL_NAMES.get(name, name)


def output(name: str, raw: Any) -> Any:
    """A tool's output as the model reads it: Cursor reports it as a JSON string (a shell's
    ``{output, exitCode}``, an MCP tool's ``{content: [...]}``); its text where it has one."""
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return raw
    if not isinstance(value, Mapping):
        return raw
    if name == "Shell" and isinstance(value.get("output"), str):
        return value["output"]
    blocks = value.get("content")
    if name.startswith("MCP:") and isinstance(blocks, list):
        texts = [b.get("text") for b in blocks if isinstance(b, Mapping)]
        if texts and all(isinstance(t, str) for t in texts):
            return "\n".join(str(t) for t in texts)
    return raw


def server_of(payload: Mapping[str, Any]) -> str:
    """The MCP server's name where the payload has one; ``mcp`` where it does not (Cursor
    names some MCP tools ``MCP:<tool>`` only)."""
    return _fields.optional_text(payload, "mcp_server_name", "server_name") or "mcp"


class CursorProtocol:
    name = AGENT
    schema_version = "Cursor hooks.json version 1 (cursor.com/docs/agent/hooks, 2026)"
    events: Mapping[str, str] = {**EVENTS, PROMPT_EVENT: "prompt"}

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        event_name = _fields.text(payload, "hook_event_name", agent=AGENT)
        if event_name == PROMPT_EVENT:
            return self._other(event_name, payload, prompt=True)
        phase = EVENTS.get(event_name) or KIND_EVENTS.get(event_name)
        if phase is None:
            if event_name in OTHER_EVENTS:
                return self._other(event_name, payload)
            raise ProtocolError(f"unknown Cursor hook event {event_name!r}")
        original, params, result = self._call(event_name, payload)
        if original in CONVERSATION_TOOLS:
            return self._other(event_name, payload)
        return HookEvent(
            agent=AGENT,
            phase=phase,
            event_name=event_name,
            tool=tool_name(original, payload),
            original_tool=original,
            params=params,
            call_id=_fields.optional_text(payload, "tool_use_id"),
            session_id=_fields.optional_text(payload, "session_id", "conversation_id"),
            cwd=_fields.optional_text(payload, "cwd")
            or _fields.optional_text(params, "cwd", "working_directory")
            or _fields.first_root(payload, "workspace_roots"),
            result=result,
            failed=event_name == "postToolUseFailure",
            raw=payload,
        )

    def _call(
        self, event_name: str, payload: Mapping[str, Any]
    ) -> tuple[str, Mapping[str, Any], Any]:
        """The agent's tool name, its input and (after) its result, for one tool event."""
        if event_name in EVENTS:
            name = _fields.text(payload, "tool_name", agent=AGENT)
            params = _fields.arguments(payload.get("tool_input"), agent=AGENT, key="tool_input")
            if event_name == "postToolUseFailure":
                return name, params, payload.get("error_message")
            return name, params, output(name, payload.get("tool_output"))
        if event_name in ("beforeShellExecution", "afterShellExecution"):
            command = _fields.text(payload, "command", agent=AGENT)
            params = {"command": command, "cwd": payload.get("cwd")}
            return (
                "Shell",
                {k: v for k, v in params.items() if v is not None},
                payload.get("output"),
            )
        if event_name in ("beforeMCPExecution", "afterMCPExecution"):
            tool = _fields.text(payload, "tool_name", agent=AGENT)
            params = _fields.arguments(payload.get("tool_input"), agent=AGENT, key="tool_input")
            name = f"MCP:{server_of(payload)}:{tool}"
            return name, params, output(name, payload.get("result_json"))
        path = _fields.text(payload, "file_path", agent=AGENT)
        if event_name == "beforeReadFile":  # the file's content stays out of the audit log
            return "Read", {"file_path": path}, None
        return "Edit", {"file_path": path, "edits": payload.get("edits", [])}, None

    def _other(
        self, event_name: str, payload: Mapping[str, Any], *, prompt: bool = False
    ) -> HookEvent:
        text = payload.get("prompt")
        return HookEvent(
            agent=AGENT,
            phase="prompt" if prompt else "other",
            event_name=event_name,
            tool="",
            original_tool=str(payload.get("tool_name") or ""),
            params={"prompt": text if isinstance(text, str) else ""} if prompt else {},
            call_id=None,
            session_id=_fields.optional_text(payload, "session_id", "conversation_id"),
            cwd=_fields.first_root(payload, "workspace_roots"),
            raw=payload,
        )

    def capabilities(self, event: HookEvent) -> frozenset[str]:
        """What this event's answer can carry beyond allow / deny."""
        name = event.event_name
        if name == "preToolUse":  # its documented permissions are allow and deny: no ask
            return frozenset({"rewrite"})
        if name in ("beforeShellExecution", "beforeMCPExecution"):
            return frozenset({"ask"})
        mcp = event.original_tool.startswith("MCP:")
        if name in ("postToolUse", "afterMCPExecution"):
            return frozenset({"context", "replace_result"} if mcp else {"context"})
        if name == "postToolUseFailure":
            return frozenset({"context"})
        return frozenset()

    def render(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        if event.phase in ("other", "prompt"):
            return json_reply(self._no_op(event.event_name))
        can = self.capabilities(event)
        if event.phase == "after":
            body: dict[str, Any] = {}
            if answer.context and "context" in can:
                body["additional_context"] = answer.context
            if answer.result_text is not None and "replace_result" in can:
                text = {"type": "text", "text": answer.result_text}
                body["updated_mcp_tool_output"] = {"content": [text]}
            return json_reply(body)
        reason = denial(answer, agent="Cursor", can_ask="ask" in can, can_rewrite="rewrite" in can)
        if reason is not None:
            return json_reply(self._deny(event.event_name, reason))
        if answer.action == "ask":
            return json_reply(self._messages({"permission": "ask"}, answer.reason))
        body = {"permission": "allow"}
        if answer.action == "rewrite":
            body["updated_input"] = dict(answer.params or {})
        return json_reply(body)

    def refuse(self, payload: Mapping[str, Any] | None, reason: str) -> HookReply:
        event_name = str((payload or {}).get("hook_event_name") or "preToolUse")
        if event_name == PROMPT_EVENT:
            # Never hold back the user's prompt: a prompt not recorded as trusted only makes
            # ``from`` rules stricter (fail closed on the calls, not on the user).
            return json_reply(self._no_op(event_name), stderr=reason)
        return json_reply(self._deny(event_name, reason), exit_code=2, stderr=reason)

    def _deny(self, event_name: str, reason: str) -> dict[str, Any]:
        if event_name == "beforeReadFile":  # its answer has the permission field only
            return {"permission": "deny"}
        after = EVENTS.get(event_name) == "after" or KIND_EVENTS.get(event_name) == "after"
        if after or (event_name in OTHER_EVENTS and event_name != "subagentStart"):
            return {}  # nothing left to block; exit 2 and stderr still say what failed
        # a permission event, or one toolhooks does not know: deny
        return self._messages({"permission": "deny"}, reason)

    @staticmethod
    def _messages(body: dict[str, Any], reason: str | None) -> dict[str, Any]:
        if reason:
            body["user_message"] = reason
            body["agent_message"] = reason
        return body

    @staticmethod
    def _no_op(event_name: str) -> dict[str, Any]:
        if event_name in PERMISSION_EVENTS or event_name in ("subagentStart", "beforeTabFileRead"):
            return {"permission": "allow"}
        if event_name == "beforeSubmitPrompt":
            return {"continue": True}
        return {}

    def settings_path(self, scope: str, project: Path, home: Path) -> Path:
        return hook_settings_path(self.name, scope, project, home)

    def wire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        keys = ("command",)
        wired = _hooklists.wire(
            settings, EVENTS, self.entry(command), command_keys=keys, agent=AGENT
        )
        # Not failClosed: a hook that fails must never hold back the user's prompt.
        prompt = {"command": command, "timeout": TIMEOUT_S}
        wired = _hooklists.wire(wired, [PROMPT_EVENT], prompt, command_keys=keys, agent=AGENT)
        return wired if "version" in wired else {"version": 1, **wired}

    def unwire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        return _hooklists.unwire(settings, command, command_keys=("command",))

    @staticmethod
    def entry(command: str) -> dict[str, Any]:
        return {"command": command, "timeout": TIMEOUT_S, "failClosed": True}


PROTOCOL: AgentProtocol = CursorProtocol()
