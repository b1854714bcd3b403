"""Wiring toolhooks into each agent's own settings (used by ``toolhooks hook install``): every
wired event gets the command once, what the user had stays, and unwiring gives back exactly what
was there."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from toolhooks.agents import ProtocolError, protocol

COMMAND = "/opt/venv/bin/toolhooks hook {agent}"
PROJECT, HOME = Path("/work/demo"), Path("/home/dev")

EXISTING: dict[str, dict[str, Any]] = {
    "cursor": {
        "version": 1,
        "hooks": {
            "afterFileEdit": [{"command": "./hooks/format.sh"}],
            "preToolUse": [{"command": "./hooks/audit.sh", "matcher": "Shell"}],
        },
        "x-team": {"owner": "platform"},
    },
    "copilot": {
        "version": 1,
        "hooks": {"preToolUse": [{"type": "command", "bash": "./scripts/audit.sh"}]},
    },
    "windsurf": {"hooks": {"post_write_code": [{"command": "black .", "show_output": False}]}},
    "cline": {"TaskStart": "#!/bin/sh\necho '{\"cancel\": false}'\n"},
}

PATHS = {
    "cursor": (".cursor/hooks.json", ".cursor/hooks.json"),
    "copilot": (".github/hooks/toolhooks.json", ".copilot/hooks/toolhooks.json"),
    "windsurf": (".windsurf/hooks.json", ".codeium/windsurf/hooks.json"),
    "cline": (".clinerules/hooks", "Documents/Cline/Hooks"),
}


def wired_commands(agent: str, settings: dict[str, Any], command: str) -> dict[str, int]:
    """Event -> how many entries run ``command``."""
    if agent == "cline":
        return {name: int(f"exec {command}" in text) for name, text in settings.items()}
    return {
        event: sum(command in entry.values() for entry in entries)
        for event, entries in settings["hooks"].items()
    }


@pytest.mark.parametrize("agent", sorted(EXISTING))
def test_settings_live_where_the_agent_reads_them(agent: str) -> None:
    project, user = PATHS[agent]
    assert protocol(agent).settings_path("project", PROJECT, HOME) == PROJECT / project
    assert protocol(agent).settings_path("user", PROJECT, HOME) == HOME / user


@pytest.mark.parametrize("agent", sorted(EXISTING))
def test_wire_adds_the_command_to_every_event_once_and_keeps_the_rest(agent: str) -> None:
    agent_protocol, command = protocol(agent), COMMAND.format(agent=agent)
    before = copy.deepcopy(EXISTING[agent])
    wired = agent_protocol.wire(EXISTING[agent], command)
    assert EXISTING[agent] == before, "wire must not change the settings it was given"
    counts = wired_commands(agent, wired, command)
    assert {event: counts.get(event) for event in agent_protocol.events} == dict.fromkeys(
        agent_protocol.events, 1
    )
    for key, value in before.items():  # the user's own keys, entries and files are all there
        if key != "hooks":
            assert wired[key] == value
    for event, entries in before.get("hooks", {}).items():
        assert wired["hooks"][event][: len(entries)] == entries
    assert agent_protocol.wire(wired, command) == wired, "wiring twice changes nothing"


@pytest.mark.parametrize("agent", sorted(EXISTING))
def test_unwire_gives_back_exactly_what_was_there(agent: str) -> None:
    agent_protocol, command = protocol(agent), COMMAND.format(agent=agent)
    wired = agent_protocol.wire(EXISTING[agent], command)
    assert agent_protocol.unwire(wired, command) == EXISTING[agent]
    if agent == "cline":  # one hook file per event: a second command cannot be wired next to it
        return
    other = agent_protocol.wire(wired, "toolhooks-other hook x")
    assert agent_protocol.unwire(other, command) == agent_protocol.wire(
        EXISTING[agent], "toolhooks-other hook x"
    ), "unwire takes out only the command it is given"


def test_cursor_blocks_the_tool_when_the_hook_fails_and_waits_for_approvals() -> None:
    wired = protocol("cursor").wire({}, "toolhooks hook cursor")
    assert wired["version"] == 1
    entry = wired["hooks"]["preToolUse"][0]
    assert entry["failClosed"] is True and entry["timeout"] >= 300


def test_copilot_gets_a_hook_file_of_its_own_with_a_timeout_above_approval_waits() -> None:
    wired = protocol("copilot").wire({}, "toolhooks hook copilot")
    assert wired["version"] == 1
    entry = wired["hooks"]["preToolUse"][0]
    assert entry["type"] == "command" and entry["bash"] == "toolhooks hook copilot"
    assert entry["timeoutSec"] >= 300  # a timed-out preToolUse hook lets the call through


def test_windsurf_shows_the_reason_in_cascade() -> None:
    wired = protocol("windsurf").wire({}, "toolhooks hook windsurf")
    assert wired["hooks"]["pre_run_command"] == [
        {"command": "toolhooks hook windsurf", "show_output": True}
    ]


def test_cline_hook_files_exec_the_command() -> None:
    wired = protocol("cline").wire({}, "toolhooks hook cline")
    assert set(wired) == {"PreToolUse", "PostToolUse", "UserPromptSubmit"}
    assert wired["PreToolUse"].startswith("#!/bin/sh\n")
    assert wired["PreToolUse"].endswith("\nexec toolhooks hook cline\n")
    assert protocol("cline").settings_kind == "script-dir"  # type: ignore[attr-defined]


def test_cline_never_replaces_a_hook_file_it_did_not_write() -> None:
    foreign = {"PreToolUse": "#!/bin/sh\n./my-guard.sh\n"}
    with pytest.raises(ProtocolError, match="did not write"):
        protocol("cline").wire(foreign, "toolhooks hook cline")


def test_a_settings_file_of_the_wrong_shape_is_a_clear_error() -> None:
    with pytest.raises(ProtocolError, match="'hooks' must be an object"):
        protocol("cursor").wire({"hooks": []}, "toolhooks hook cursor")
    with pytest.raises(ProtocolError, match=r"hooks\.pre_run_command must be a list"):
        protocol("windsurf").wire({"hooks": {"pre_run_command": {}}}, "toolhooks hook windsurf")
