"""Gemini CLI's hook protocol (written against Gemini CLI 0.61.0: docs/hooks/reference.md of that
release and its hook runner).

Events around a tool call: ``BeforeTool`` and ``AfterTool``. Payload: ``session_id``, ``cwd``,
``hook_event_name``, ``timestamp``, ``tool_name``, ``tool_input``, ``mcp_context`` (MCP tools:
``server_name``, ``tool_name``); after adds ``tool_response`` (``llmContent``,
``returnDisplay``, ``error``). There is no call id: the bridge generates one and finds it again
for the after event by session, tool and input.

Answers, JSON on stdout with exit 0: ``decision`` ``"deny"`` with a ``reason`` (before: the
tool does not run and the model reads the reason; after: the reason *replaces* the result, shown
as "Tool result blocked: ..."), ``"ask"`` (the user's confirmation), and
``hookSpecificOutput.tool_input`` (before: the new input) or ``.additionalContext`` (after:
appended to the result). ``additionalContext`` in a before answer does not reach the model, so
the bridge hands it on to the after answer. ``BeforeAgent`` (after the user submits a prompt,
before planning; payload ``session_id``, ``cwd``, ``prompt``) is the user's prompt, toolhooks'
trusted input for ``from`` rules, answered with ``{}`` so the prompt goes on unchanged. Settings: ``.gemini/settings.json`` (project) or
``~/.gemini/settings.json`` (user). Stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._hooks_json import (
    HOOK_TIMEOUT_S,
    blocking_exit,
    field,
    joined,
    json_reply,
    other_event,
    prompt_event,
    tool_input,
    unwire_hooks,
    wire_hooks,
)
from ._names import GEMINI, NOT_GOVERNED, mcp_name, toolhooks_name
from ._places import hook_settings_path
from ._protocol import HookAnswer, HookEvent, HookReply, ProtocolError

HANDLER_NAME = "toolhooks"


class GeminiProtocol:
    name = "gemini"
    schema_version = "gemini-cli 0.61.0"
    events: Mapping[str, str] = {
        "BeforeTool": "before",
        "AfterTool": "after",
        "BeforeAgent": "prompt",
    }

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        name = field(payload, "hook_event_name")
        assert name is not None
        phase = self.events.get(name)
        if phase is None:
            raise ProtocolError(f"gemini sent an event toolhooks does not know: {name!r}")
        if phase == "prompt":
            return prompt_event(self.name, name, payload)
        original = field(payload, "tool_name")
        assert original is not None
        tool = _tool_name(original, payload.get("mcp_context"))
        if tool == NOT_GOVERNED:
            return other_event(self.name, name, payload)
        response = payload.get("tool_response")
        failed = isinstance(response, dict) and bool(response.get("error"))
        return HookEvent(
            agent=self.name,
            phase=phase,
            event_name=name,
            tool=tool,
            original_tool=original,
            params=tool_input(payload),
            call_id=None,
            session_id=field(payload, "session_id", required=False),
            cwd=field(payload, "cwd", required=False),
            result=response if phase == "after" else None,
            failed=failed,
            raw=payload,
        )

    def capabilities(self, event: HookEvent) -> frozenset[str]:
        if event.phase == "before":
            return frozenset({"rewrite", "ask"})
        if event.phase == "after":
            return frozenset({"context", "replace_result"})
        return frozenset()

    def render(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        if event.phase == "before":
            if answer.action == "deny":
                return json_reply({"decision": "deny", "reason": answer.reason or "Blocked"})
            if answer.action == "ask":
                return json_reply({"decision": "ask", "systemMessage": answer.reason or ""})
            if answer.action == "rewrite":
                assert answer.params is not None
                return json_reply({"hookSpecificOutput": {"tool_input": dict(answer.params)}})
            return json_reply({})
        if event.phase == "after":
            if answer.result_text is not None:
                # The reason replaces what the model reads; the context would be dropped (a
                # blocked result returns before the context is appended), so it goes along.
                text = joined(answer.result_text, answer.context)
                return json_reply({"decision": "deny", "reason": text})
            if answer.context:
                return json_reply({"hookSpecificOutput": {"additionalContext": answer.context}})
        return json_reply({})

    def refuse(self, payload: Mapping[str, Any] | None, reason: str) -> HookReply:
        name = payload.get("hook_event_name") if payload is not None else None
        phase = self.events.get(name) if isinstance(name, str) else None
        if phase == "before":
            return json_reply({"decision": "deny", "reason": f"toolhooks: {reason}"})
        if phase == "after":
            text = f"toolhooks could not check this result, so it is withheld: {reason}"
            return json_reply({"decision": "deny", "reason": text})
        if phase == "prompt":
            return json_reply({})  # never erase the user's prompt: only ``from`` gets stricter
        return blocking_exit(reason)

    def settings_path(self, scope: str, project: Path, home: Path) -> Path:
        return hook_settings_path(self.name, scope, project, home)

    def wire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        handler = {
            "type": "command",
            "name": HANDLER_NAME,
            "command": command,
            "timeout": HOOK_TIMEOUT_S * 1000,  # milliseconds here
        }
        return wire_hooks(settings, self.events, handler, ".*")

    def unwire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        return unwire_hooks(settings, command)


def _tool_name(original: str, mcp: Any) -> str:
    """An MCP tool (named ``mcp_<server>_<tool>``, ambiguous) by its ``mcp_context``."""
    if isinstance(mcp, dict):
        server, tool = mcp.get("server_name"), mcp.get("tool_name")
        if isinstance(server, str) and isinstance(tool, str) and server and tool:
            return mcp_name(server, tool)
    return toolhooks_name(GEMINI, original)


PROTOCOL = GeminiProtocol()
