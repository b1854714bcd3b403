"""Windsurf's Cascade hooks in toolhooks' terms.

Written against Windsurf's Cascade Hooks page as published in 2026. Sources:

- https://docs.windsurf.com/windsurf/cascade/hooks (also ``.../hooks.md``): the events
  (``pre_``/``post_`` ``read_code``, ``write_code``, ``run_command``, ``mcp_tool_use``, plus
  ``pre_user_prompt``, ``post_cascade_response``, ``post_setup_worktree``), the three hook files
  merged in the order system -> user -> workspace (``/etc/windsurf/hooks.json``,
  ``~/.codeium/windsurf/hooks.json``, ``.windsurf/hooks.json`` in the workspace root), the entry
  ``{command, show_output, working_directory}``, the payload's common part (``agent_action_name``,
  ``trajectory_id``, ``execution_id``, ``timestamp``) and its ``tool_info`` per event, and the one
  way a pre-hook blocks: exit code 2, its stderr shown as the reason.
- The ``tool_info`` fields as third-party hooks read them (github.com/CorridorSecurity/hookshot
  ``docs/reference-cascade.md``; the Stroq 0.8.0 Windsurf adapter's tests): ``command_line`` and
  ``cwd``; ``file_path`` and ``edits`` (``old_string``/``new_string``); ``mcp_server_name``,
  ``mcp_tool_name``, ``mcp_tool_arguments`` and after the call ``mcp_result``.

The user's prompt (``pre_user_prompt``: ``tool_info.user_prompt``, the session's
``trajectory_id``) is the session's trusted input for ``from`` rules, let on with exit 0.

What Windsurf can take: a block (exit 2) with a reason, nothing else. It has no prompt of its own,
no rewritten input, no context for the model and no replaced result; those answers become a block
that says so (ask, rewrite) or are recorded as not applied (context, result). ``show_output`` is
set so the reason shows in Cascade's panel. Its ``execution_id`` is not documented as one id per
tool call, so toolhooks pairs a call's before and after itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _fields, _hooklists
from ._places import hook_settings_path
from ._protocol import AgentProtocol, HookAnswer, HookEvent, HookReply, ProtocolError, user_prompt
from ._replies import denial

AGENT = "windsurf"

EVENTS = {
    "pre_run_command": "before",
    "pre_mcp_tool_use": "before",
    "pre_read_code": "before",
    "pre_write_code": "before",
    "post_run_command": "after",
    "post_mcp_tool_use": "after",
    "post_read_code": "after",
    "post_write_code": "after",
}
"""The tool events ``toolhooks hook install windsurf`` wires."""
PROMPT_EVENT = "pre_user_prompt"
"""The user's prompt (``tool_info.user_prompt``) before Cascade processes it: toolhooks' trusted
input for ``from`` rules. Only exit code 2 blocks it, so exit 0 lets it on; install wires it too."""
OTHER_EVENTS = frozenset(
    {
        "post_cascade_response",
        "post_cascade_response_with_transcript",
        "post_setup_worktree",
    }
)

BLOCKED = 2
"""The only exit code Windsurf reads: a pre-hook that exits 2 blocks the action."""


class WindsurfProtocol:
    name = AGENT
    schema_version = "Windsurf Cascade Hooks (docs.windsurf.com/windsurf/cascade/hooks, 2026)"
    events: Mapping[str, str] = {**EVENTS, PROMPT_EVENT: "prompt"}

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        event_name = _fields.text(payload, "agent_action_name", agent=AGENT)
        session = _fields.optional_text(payload, "trajectory_id")
        if event_name == PROMPT_EVENT:
            info = payload.get("tool_info")
            text = info.get("user_prompt") if isinstance(info, Mapping) else None
            return user_prompt(AGENT, event_name, text, session_id=session, cwd=None, raw=payload)
        phase = EVENTS.get(event_name)
        if phase is None:
            if event_name not in OTHER_EVENTS:
                raise ProtocolError(f"unknown Windsurf hook event {event_name!r}")
            return HookEvent(
                agent=AGENT,
                phase="other",
                event_name=event_name,
                tool="",
                original_tool="",
                params={},
                call_id=None,
                session_id=session,
                cwd=None,
                raw=payload,
            )
        info = _fields.section(payload, "tool_info", agent=AGENT)
        kind = event_name.split("_", 1)[1]
        tool, original, params, result = self._call(kind, info)
        return HookEvent(
            agent=AGENT,
            phase=phase,
            event_name=event_name,
            tool=tool,
            original_tool=original,
            params=params,
            call_id=None,
            session_id=session,
            cwd=_fields.optional_text(info, "cwd"),
            result=result,
            raw=payload,
        )

    @staticmethod
    def _call(kind: str, info: Mapping[str, Any]) -> tuple[str, str, dict[str, Any], Any]:
        """toolhooks' tool name, Windsurf's, the params and (after) the result for one event.

        Windsurf cannot take a changed input, so the params may use toolhooks' usual names
        (``command`` for a shell command) without a way back to Windsurf's."""
        if kind == "run_command":
            command = _fields.text(info, "command_line", agent=AGENT, where="tool_info")
            params = {"command": command}
            if isinstance(info.get("cwd"), str):
                params["cwd"] = info["cwd"]
            return "exec", "run_command", params, info.get("output")
        if kind == "mcp_tool_use":
            server = _fields.text(info, "mcp_server_name", agent=AGENT, where="tool_info")
            tool = _fields.text(info, "mcp_tool_name", agent=AGENT, where="tool_info")
            arguments = info.get("mcp_tool_arguments")
            params = dict(_fields.arguments(arguments, agent=AGENT, key="mcp_tool_arguments"))
            return f"{server}__{tool}", f"{server}/{tool}", params, info.get("mcp_result")
        path = _fields.text(info, "file_path", agent=AGENT, where="tool_info")
        if kind == "read_code":
            return "read", "read_code", {"file_path": path}, info.get("content")
        edits = info.get("edits")
        edits = edits if isinstance(edits, list) else []
        # edits that replace nothing create the file: toolhooks calls that a write
        replaces = any(isinstance(e, Mapping) and e.get("old_string") for e in edits)
        return (
            ("edit" if replaces else "write"),
            "write_code",
            {"file_path": path, "edits": edits},
            None,
        )

    def capabilities(self, event: HookEvent) -> frozenset[str]:
        """Windsurf's hooks can block, and nothing beyond."""
        return frozenset()

    def render(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        if event.phase == "prompt":
            return HookReply(stdout="")  # exit 0: the prompt goes on unchanged
        if event.phase != "before":
            # shown to the user in Cascade's panel (show_output); the model never reads it
            return HookReply(stdout=answer.context or "")
        reason = denial(answer, agent="Windsurf", can_ask=False, can_rewrite=False)
        if reason is not None:
            return HookReply(stdout="", stderr=reason, exit_code=BLOCKED)
        return HookReply(stdout=answer.context or "")

    def refuse(self, payload: Mapping[str, Any] | None, reason: str) -> HookReply:
        if payload is not None and payload.get("agent_action_name") == PROMPT_EVENT:
            # Never hold back the user's prompt: a prompt not recorded as trusted only makes
            # ``from`` rules stricter (fail closed on the calls, not on the user).
            return HookReply(stdout="", stderr=reason)
        return HookReply(stdout="", stderr=reason, exit_code=BLOCKED)

    def settings_path(self, scope: str, project: Path, home: Path) -> Path:
        return hook_settings_path(self.name, scope, project, home)

    def wire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        keys = ("command",)
        entry = {"command": command, "show_output": True}
        wired = _hooklists.wire(settings, EVENTS, entry, command_keys=keys, agent=AGENT)
        # show_output does not apply to the prompt hook (Windsurf's hooks page)
        prompt = {"command": command}
        return _hooklists.wire(wired, [PROMPT_EVENT], prompt, command_keys=keys, agent=AGENT)

    def unwire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        return _hooklists.unwire(settings, command, command_keys=("command",))


PROTOCOL: AgentProtocol = WindsurfProtocol()
