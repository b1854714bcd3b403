"""Each agent's tool names as toolhooks' names, so one policy means the same thing everywhere.

``[tools] profile = "coding"``, ``deny = ["exec"]`` or a plugin's ``tools=["write"]`` name
toolhooks' tools (the policy's built-in groups: ``group:fs`` is read, write, edit, apply_patch;
``group:runtime`` is exec, process; ``group:web`` is web_search, web_fetch). An agent's own tool
maps to the one of those it amounts to; the agent's name stays in the event
(``HookEvent.original_tool``) and in the log's ``agent.hook`` event.

The choices, shared by every agent's table (PLUGINS.md, "Coding agents"):

- searching, globbing and listing files are ``read``: they show the workspace's contents, so a
  policy that denies ``read`` must deny them too;
- deleting a file is ``write``; editing in place (str_replace, multi-edit, notebook cells) is
  ``edit``; a patch is ``apply_patch``;
- a sub-agent is ``sessions_spawn``; a background shell's output or kill is ``process``;
- an MCP tool is ``server__tool`` (the MCP proxy's names);
- tools that only talk to the user or keep the agent's own notes (ask the user, a todo list, plan
  mode) are not governed: their events are phase "other", answered with a no-op;
- any other tool keeps the agent's own name (a ``profile`` that does not grant it denies it).

Stdlib only: the protocols import this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

NOT_GOVERNED: Final = ""
"""The toolhooks name of a conversation-only tool: its events are phase "other"."""

CLAUDE_CODE: Final[Mapping[str, str]] = {
    "Bash": "exec",
    "BashOutput": "process",
    "KillShell": "process",
    "KillBash": "process",
    "TaskStop": "process",
    "Monitor": "process",
    "Read": "read",
    "NotebookRead": "read",
    "Glob": "read",
    "Grep": "read",
    "LS": "read",
    "ListMcpResourcesTool": "read",
    "ReadMcpResourceTool": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "Task": "sessions_spawn",
    "Agent": "sessions_spawn",
    "CronCreate": "cron",
    "CronDelete": "cron",
    "CronList": "cron",
    "TodoWrite": NOT_GOVERNED,
    "TaskCreate": NOT_GOVERNED,
    "TaskGet": NOT_GOVERNED,
    "TaskUpdate": NOT_GOVERNED,
    "TaskList": NOT_GOVERNED,
    "ExitPlanMode": NOT_GOVERNED,
    "EnterPlanMode": NOT_GOVERNED,
    "AskUserQuestion": NOT_GOVERNED,
}
"""Claude Code 2.1 (the PreToolUse ``tool_name``); MCP tools are ``mcp__<server>__<tool>``."""

CODEX: Final[Mapping[str, str]] = {
    # Codex reports its shell tools (shell, exec_command, local_shell) to hooks as "Bash".
    "Bash": "exec",
    "apply_patch": "apply_patch",
    "update_plan": NOT_GOVERNED,
}
"""Codex CLI 0.171 (the PreToolUse ``tool_name``); MCP tools are ``mcp__<server>__<tool>``."""

GEMINI: Final[Mapping[str, str]] = {
    "run_shell_command": "exec",
    "read_file": "read",
    "read_many_files": "read",
    "list_directory": "read",
    "glob": "read",
    "grep_search": "read",
    "search_file_content": "read",
    "read_mcp_resource": "read",
    "list_mcp_resources": "read",
    "get_internal_docs": "read",
    "write_file": "write",
    "replace": "edit",
    "web_fetch": "web_fetch",
    "google_web_search": "web_search",
    "write_todos": NOT_GOVERNED,
    "ask_user": NOT_GOVERNED,
    "enter_plan_mode": NOT_GOVERNED,
    "exit_plan_mode": NOT_GOVERNED,
    "update_topic": NOT_GOVERNED,
    "complete_task": NOT_GOVERNED,
    "tracker_create_task": NOT_GOVERNED,
    "tracker_update_task": NOT_GOVERNED,
    "tracker_get_task": NOT_GOVERNED,
    "tracker_list_tasks": NOT_GOVERNED,
    "tracker_add_dependency": NOT_GOVERNED,
    "tracker_visualize": NOT_GOVERNED,
}
"""Gemini CLI 0.61 (docs/reference/tools.md of that release); MCP tools are
``mcp_<server>_<tool>`` there, with no separator that tells server from tool apart
(``mcp_context.server_name`` in the payload does)."""


def mcp_name(server: str, tool: str) -> str:
    """toolhooks' name of MCP ``server``'s ``tool``: what the MCP proxy calls it too."""
    return f"{server}__{tool}"


def double_underscore_mcp(name: str) -> str | None:
    """``server__tool`` for ``mcp__server__tool`` (Claude Code, Codex), else None."""
    if not name.startswith("mcp__"):
        return None
    server, sep, tool = name[5:].partition("__")
    if not sep or not server or not tool:
        return None
    return mcp_name(server, tool)


def toolhooks_name(table: Mapping[str, str], name: str) -> str:
    """The toolhooks name of the agent tool ``name`` (``NOT_GOVERNED``: not governed)."""
    found = table.get(name)
    if found is not None:
        return found
    mcp = double_underscore_mcp(name)
    return mcp if mcp is not None else name
