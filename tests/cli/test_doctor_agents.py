"""`toolhooks doctor` shows which coding agents run toolhooks' hook, per scope (issue #26 item 4)."""

from __future__ import annotations

import json

import pytest
from toolhooks.agents import protocol


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return home


def doctor(cli, home):
    result = cli("doctor", "--json", env={"HOME": str(home)})
    rows = {}
    for row in result.json()["checks"]:
        if row["check"] == "agents" or row["check"].startswith("agent "):
            rows.setdefault(row["check"], []).append(row)
    return result, rows


def write_settings(path, settings):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def test_no_agent_wired_is_one_ok_row_naming_them(cli, home):
    (cli.cwd / ".cursor").mkdir()
    (cli.cwd / ".cursor" / "hooks.json").write_text('{"version": 1, "hooks": {}}')
    result, rows = doctor(cli, home)
    assert result.code == 0
    [row] = rows.pop("agents")
    assert row["status"] == "ok" and not rows
    for agent in ("cursor", "copilot", "windsurf", "cline"):
        assert agent in row["detail"]
    assert "toolhooks hook install" in row["fix"]


def test_an_agent_wired_for_every_event_is_ok_with_where(cli, home):
    cursor = protocol("cursor")
    settings = cursor.wire(
        {"hooks": {"stop": [{"command": "./done.sh"}]}}, "/v/bin/toolhooks hook cursor"
    )
    write_settings(cursor.settings_path("project", cli.cwd, home), settings)
    cline = protocol("cline")
    hooks = cline.settings_path("user", cli.cwd, home)
    hooks.mkdir(parents=True)
    for name, text in cline.wire({}, "'/v/bin/toolhooks' hook cline").items():
        (hooks / name).write_text(text)

    result, rows = doctor(cli, home)

    assert result.code == 0, result.out
    [row] = rows["agent cursor"]
    assert row["status"] == "ok"
    assert row["detail"] == (
        "wired, project (.cursor/hooks.json): preToolUse, postToolUse, postToolUseFailure, "
        "beforeSubmitPrompt"
    )
    [row] = rows["agent cline"]
    assert row["detail"] == (
        "wired, user (~/Documents/Cline/Hooks): PreToolUse, PostToolUse, UserPromptSubmit"
    )
    [idle] = rows["agents"]
    assert "copilot" in idle["detail"] and "cursor" not in idle["detail"]


def test_an_event_left_unwired_is_a_warning_with_the_install_command(cli, home):
    copilot = protocol("copilot")
    settings = copilot.wire({}, "toolhooks hook copilot")
    del settings["hooks"]["postToolUseFailure"]
    write_settings(copilot.settings_path("user", cli.cwd, home), settings)

    result, rows = doctor(cli, home)

    assert result.code == 0  # a warning does not fail the doctor
    [row] = rows["agent copilot"]
    assert row["status"] == "warning"
    assert "not for postToolUseFailure" in row["detail"]
    assert row["fix"] == "toolhooks hook install copilot --scope user"


def test_unreadable_settings_that_name_toolhooks_are_a_warning(cli, home):
    path = protocol("windsurf").settings_path("project", cli.cwd, home)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {"pre_run_command": [{"command": "toolhooks hook windsurf"}]')
    _, rows = doctor(cli, home)
    [row] = rows["agent windsurf"]
    assert row["status"] == "warning" and "cannot read .windsurf/hooks.json" in row["detail"]


def test_another_tools_hooks_do_not_count_as_toolhooks(cli, home):
    cursor = protocol("cursor")
    write_settings(
        cursor.settings_path("project", cli.cwd, home),
        cursor.wire({}, "other-guard hook cursor; echo toolhooks"),
    )
    _, rows = doctor(cli, home)
    assert "agent cursor" not in rows and "cursor" in rows["agents"][0]["detail"]


def test_the_table_shows_the_agent_rows(cli, home):
    windsurf = protocol("windsurf")
    write_settings(
        windsurf.settings_path("project", cli.cwd, home),
        windsurf.wire({}, "toolhooks hook windsurf"),
    )
    result = cli("doctor", env={"HOME": str(home)})
    assert result.code == 0, result.out
    assert "agent windsurf" in result.out and "wired, project (.windsurf/hooks.json)" in result.out
