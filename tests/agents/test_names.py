"""Each agent's tool names map onto the policy's own vocabulary, so one [tools] table governs
every agent alike."""

from __future__ import annotations

import pytest
from toolhooks.agents import _names
from toolhooks.plugins.policy._builtins import BUILTIN_GROUPS, BUILTIN_PROFILES

TABLES = {"claude-code": _names.CLAUDE_CODE, "codex": _names.CODEX, "gemini": _names.GEMINI}
KNOWN = {tool for members in BUILTIN_GROUPS.values() for tool in members}


@pytest.mark.parametrize("agent", list(TABLES))
def test_every_mapped_name_is_one_the_policy_groups_know(agent):
    unknown = {
        name: mapped
        for name, mapped in TABLES[agent].items()
        if mapped != _names.NOT_GOVERNED and mapped not in KNOWN
    }
    assert not unknown


def test_the_coding_profile_grants_every_agents_shell_files_and_web():
    coding = {
        tool for entry in BUILTIN_PROFILES["coding"] for tool in BUILTIN_GROUPS.get(entry, (entry,))
    }
    for table in TABLES.values():
        for name, mapped in table.items():
            if mapped in ("exec", "read", "write", "edit", "web_fetch", "web_search"):
                assert mapped in coding, name


def test_mcp_names():
    assert _names.double_underscore_mcp("mcp__git__status") == "git__status"
    assert _names.double_underscore_mcp("mcp__git__log__all") == "git__log__all"
    assert _names.double_underscore_mcp("mcp__broken") is None
    assert _names.toolhooks_name(_names.CODEX, "mcp__db__query") == "db__query"
