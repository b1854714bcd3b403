"""Cline's hooks (the VS Code extension and the Cline CLI) in toolhooks' terms.

Written against Cline's hooks as documented and shipped in 2026 (Cline 3.36+ and the SDK-based
Cline of August 2026). Sources:

- https://docs.cline.bot/features/hooks/hook-reference (github.com/cline/cline
  ``docs/features/hooks/hook-reference.mdx``): a hook is an executable file named after its event
  (``PreToolUse``, ``PostToolUse``, ``TaskStart``, ...) in ``.clinerules/hooks/`` (workspace) or
  the user's Cline hooks folder; the payload's common fields (``clineVersion``, ``hookName``,
  ``timestamp``, ``taskId``, ``workspaceRoots``, ``userId``) and ``preToolUse`` ``{toolName,
  parameters}`` / ``postToolUse`` ``{toolName, parameters, result, success, executionTimeMs}``;
  the answer ``{cancel, contextModification, errorMessage}`` as the last JSON on stdout.
- https://docs.cline.bot/customization/hooks (``docs/customization/hooks.mdx``, 2026-01): the same
  answer; an earlier payload spelling (``tool`` for ``toolName``, ``durationMs``).
- github.com/cline/cline at 21cb8d25 (2026-08-22): ``apps/vscode/proto/cline/hooks.proto``
  (parameters are a string-to-string map), ``apps/vscode/src/core/hooks/utils.ts`` (the global
  folder is ``~/Documents/Cline/Hooks``; Unix hook files have no extension),
  ``apps/vscode/src/sdk/hooks-adapter.ts`` (``cancel`` stops the run with ``errorMessage`` as the
  reason; a hook that fails without JSON is logged and the tool runs: Cline fails open, so a
  refusal here is always a JSON answer) and the SDK's tool names (``run_commands``,
  ``read_files``, ``editor``, ``apply_patch``, ``search_codebase``, ``fetch_web_content``; MCP
  tools as ``<server>__<tool>``).

The user's message (``UserPromptSubmit``: ``userPromptSubmit.prompt``; the session is the
``taskId``) is the session's trusted input for ``from`` rules, let on with ``{"cancel": false}``.

What Cline can take: a cancel with a message for the user, and context the model reads on its next
turn. It has no prompt of its own for a hook, no rewritten input and no replaced result; those
answers become a cancel that says so (ask, rewrite) or are recorded as not applied (result). It
gives no tool-call id. Hooks must be switched on in Cline's settings (``hooksEnabled``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _fields
from ._places import HOOK_SETTINGS, hook_settings_path
from ._protocol import AgentProtocol, HookAnswer, HookEvent, HookReply, ProtocolError, user_prompt
from ._replies import denial, json_reply

AGENT = "cline"

EVENTS = {"PreToolUse": "before", "PostToolUse": "after"}
"""The tool hook files ``toolhooks hook install cline`` writes."""
PROMPT_EVENT = "UserPromptSubmit"
"""The user's message (``userPromptSubmit.prompt``): toolhooks' trusted input for ``from`` rules,
answered ``{"cancel": false}``. Install writes its file too, unless one toolhooks did not write is
there (Cline runs one file per event: the user's own prompt hook stays, ``from`` gets stricter)."""
OTHER_EVENTS = frozenset(
    {
        "TaskStart",
        "TaskResume",
        "TaskCancel",
        "TaskComplete",
        "PreCompact",
        "Notification",
    }
)

TOOL_NAMES = {
    "execute_command": "exec",
    "run_commands": "exec",
    "read_file": "read",
    "read_files": "read",
    "search_files": "read",
    "list_files": "read",
    "list_code_definition_names": "read",
    "search_codebase": "read",
    "write_to_file": "write",
    "replace_in_file": "edit",
    "editor": "edit",
    "apply_patch": "apply_patch",
    "web_fetch": "web_fetch",
    "fetch_web_content": "web_fetch",
    "web_search": "web_search",
    "browser_action": "browser",
    "new_task": "sessions_spawn",
}
"""Cline's tool -> toolhooks' name; ``use_mcp_tool`` and ``<server>__<tool>`` -> ``server__tool``."""
CONVERSATION_TOOLS = frozenset(
    {
        "ask_followup_question",
        "ask_question",
        "attempt_completion",
        "submit_and_exit",
        "plan_mode_respond",
        "focus_chain",
        "load_mcp_documentation",
        "skills",
    }
)
"""Tools that only talk to the user or manage the task: not governed (phase ``other``)."""

KNOWN = (*EVENTS, PROMPT_EVENT)

SCRIPT = """#!/bin/sh
# Cline {event} hook written by `toolhooks hook install cline`;
# `toolhooks hook install cline --undo` takes it out again.
exec {command}
"""


class ClineProtocol:
    name = AGENT
    schema_version = "Cline hooks (docs.cline.bot hook reference; cline/cline 21cb8d25, 2026-08)"
    events: Mapping[str, str] = {**EVENTS, PROMPT_EVENT: "prompt"}
    settings_kind = HOOK_SETTINGS[AGENT].kind

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        event_name = self.event_name(payload)
        session = _fields.optional_text(payload, "taskId")
        cwd = _fields.first_root(payload, "workspaceRoots") or _fields.optional_text(
            payload, "workspacePath"
        )
        if event_name == PROMPT_EVENT:
            part = payload.get("userPromptSubmit")
            text = part.get("prompt") if isinstance(part, Mapping) else None
            return user_prompt(AGENT, event_name, text, session_id=session, cwd=cwd, raw=payload)
        phase = EVENTS.get(event_name)
        data: Mapping[str, Any] = {}
        original = ""
        if phase is not None:
            data = _fields.section(payload, event_name[0].lower() + event_name[1:], agent=AGENT)
            original = _fields.optional_text(data, "toolName", "tool") or ""
            if not original:
                raise ProtocolError(f"cline payload: {event_name} names no 'toolName'")
        if phase is None or original in CONVERSATION_TOOLS:
            return HookEvent(
                agent=AGENT,
                phase="other",
                event_name=event_name,
                tool="",
                original_tool=original,
                params={},
                call_id=None,
                session_id=session,
                cwd=cwd,
                raw=payload,
            )
        tool, params = self._call(original, data)
        success = data.get("success")
        return HookEvent(
            agent=AGENT,
            phase=phase,
            event_name=event_name,
            tool=tool,
            original_tool=original,
            params=params,
            call_id=None,
            session_id=session,
            cwd=cwd,
            result=data.get("result"),
            failed=success is False,
            raw=payload,
        )

    @staticmethod
    def event_name(payload: Mapping[str, Any]) -> str:
        """``hookName``, or (payloads that do not name it) the event whose part is present."""
        named = payload.get("hookName")
        if named is not None:
            if not isinstance(named, str) or not (named in KNOWN or named in OTHER_EVENTS):
                raise ProtocolError(f"unknown Cline hook event {named!r}")
            return named
        for event in (*KNOWN, *sorted(OTHER_EVENTS)):
            if event[0].lower() + event[1:] in payload:
                return event
        raise ProtocolError("cline payload: no 'hookName' and no part of a known hook event")

    @staticmethod
    def _call(original: str, data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """toolhooks' tool name and the params, from Cline's string-valued parameters.

        Cline cannot take a changed input, so the params may carry toolhooks' usual names next
        to Cline's (``command`` for ``run_commands``' list of commands)."""
        raw = data.get("parameters")
        params: dict[str, Any] = dict(raw) if isinstance(raw, Mapping) else {}
        if original == "use_mcp_tool":
            server = _fields.text(params, "server_name", agent=AGENT, where="parameters")
            tool = _fields.text(params, "tool_name", agent=AGENT, where="parameters")
            try:
                arguments = _fields.arguments(params.get("arguments"), agent=AGENT, key="arguments")
            except ProtocolError:  # not JSON: the model's text, kept as it came
                arguments = {"arguments": params.get("arguments")}
            return f"{server}__{tool}", dict(arguments)
        if original == "run_commands" and "command" not in params:
            commands = _decoded(params.get("commands"))
            if isinstance(commands, list):
                params["command"] = "\n".join(
                    c if isinstance(c, str) else json.dumps(c) for c in commands
                )
        return TOOL_NAMES.get(original, original), params

    def capabilities(self, event: HookEvent) -> frozenset[str]:
        """Cline takes context for the model's next turn; nothing else beyond a cancel."""
        return frozenset({"context"}) if event.phase in ("before", "after") else frozenset()

    def render(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        if event.phase == "before":
            reason = denial(answer, agent="Cline", can_ask=False, can_rewrite=False)
            if reason is not None:
                return json_reply({"cancel": True, "errorMessage": reason})
        body: dict[str, Any] = {"cancel": False}
        if answer.context and event.phase in ("before", "after"):
            body["contextModification"] = answer.context
        return json_reply(body)

    def refuse(self, payload: Mapping[str, Any] | None, reason: str) -> HookReply:
        if payload is not None and (
            payload.get("hookName") == PROMPT_EVENT or "userPromptSubmit" in payload
        ):
            # Never cancel the user's message: a prompt not recorded as trusted only makes
            # ``from`` rules stricter (fail closed on the calls, not on the user).
            return json_reply({"cancel": False}, stderr=reason)
        # Cline honours the JSON whatever the exit code; older Cline also blocked on a non-zero one
        return json_reply({"cancel": True, "errorMessage": reason}, exit_code=2, stderr=reason)

    def settings_path(self, scope: str, project: Path, home: Path) -> Path:
        """The hook folder: one executable file per event (``settings_kind = "script-dir"``)."""
        return hook_settings_path(self.name, scope, project, home)

    def wire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        """``settings`` maps a hook file's name to its text; toolhooks' file for every event.

        Cline runs one file per event and folder, so a file toolhooks did not write is never
        replaced: that is an error naming it."""
        wired = dict(settings)
        for event in self.events:
            existing = wired.get(event)
            if existing is not None and not self.runs(existing, command):
                if event == PROMPT_EVENT:
                    continue  # the user's own prompt hook stays; tool calls are still checked
                raise ProtocolError(
                    f"a Cline {event} hook that toolhooks did not write is already there; "
                    "move it away or install for the other scope (--scope)"
                )
            wired[event] = SCRIPT.format(event=event, command=command)
        return wired

    def unwire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        return {name: text for name, text in settings.items() if not self.runs(text, command)}

    @staticmethod
    def runs(text: Any, command: str) -> bool:
        return isinstance(text, str) and f"\nexec {command}\n" in text


def _decoded(value: Any) -> Any:
    """A parameter Cline sent as JSON text (its parameters are all strings), decoded."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


PROTOCOL: AgentProtocol = ClineProtocol()
