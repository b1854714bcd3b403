"""Where each agent keeps the hook settings ``toolhooks hook install`` writes, as one table: each
protocol's ``settings_path`` reads it, and so does the rules' own-state guard, which protects
every agent's settings without importing seven protocol modules (a cold process on a policy
would pay about 24 M instructions for them)."""

from __future__ import annotations

from pathlib import Path
from typing import Final, NamedTuple


class HookSettingsPlace(NamedTuple):
    """An agent's hook settings, relative to the project folder and to the home folder."""

    project: str
    user: str
    kind: str = "json"
    """``json``: one settings file; ``script-dir``: a folder of hook scripts (Cline)."""


HOOK_SETTINGS: Final = {
    "claude-code": HookSettingsPlace(".claude/settings.json", ".claude/settings.json"),
    "codex": HookSettingsPlace(".codex/hooks.json", ".codex/hooks.json"),
    "gemini": HookSettingsPlace(".gemini/settings.json", ".gemini/settings.json"),
    "cursor": HookSettingsPlace(".cursor/hooks.json", ".cursor/hooks.json"),
    "copilot": HookSettingsPlace(".github/hooks/toolhooks.json", ".copilot/hooks/toolhooks.json"),
    "windsurf": HookSettingsPlace(".windsurf/hooks.json", ".codeium/windsurf/hooks.json"),
    "cline": HookSettingsPlace(".clinerules/hooks", "Documents/Cline/Hooks", "script-dir"),
}
"""Agent name (as ``PROTOCOLS`` names it) -> where its hook settings are."""


def hook_settings_path(agent: str, scope: str, project: Path, home: Path) -> Path:
    """The hook settings of ``agent`` for ``scope`` (``project`` / ``user``)."""
    place = HOOK_SETTINGS[agent]
    return home / place.user if scope == "user" else project / place.project


def hook_settings_places(project: Path, home: Path) -> list[tuple[Path, bool]]:
    """Every agent's hook settings, for both scopes, each with whether it is a folder."""
    return [
        (hook_settings_path(agent, scope, project, home), place.kind == "script-dir")
        for agent, place in HOOK_SETTINGS.items()
        for scope in ("project", "user")
    ]
