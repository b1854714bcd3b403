"""``toolhooks hook install AGENT [--scope] [--undo]``: the agent's own settings get every event
wired, what was there stays, and --undo gives back exactly what was there."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from toolhooks import ConfigError
from toolhooks.agents._install import install, undo

COMMAND = "/opt/venv/bin/toolhooks hook {agent}"
SETTINGS = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}
EVENTS = {
    "claude-code": ["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit"],
    "codex": ["PreToolUse", "PostToolUse", "UserPromptSubmit"],
    "gemini": ["BeforeTool", "AfterTool", "BeforeAgent"],
}
# Someone's settings, written their way (key order, indentation, no trailing newline).
THEIRS = """{
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "lint"}]}]
    }
}"""


def run(agent: str, project: Path, home: Path, *, remove: bool = False, scope: str = "project"):
    step = undo if remove else install
    return step(agent, scope, project, home, COMMAND.format(agent=agent))


@pytest.mark.parametrize("agent", list(SETTINGS))
def test_a_fresh_install_wires_every_event_and_undo_leaves_nothing(agent, tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    done = run(agent, project, home)
    path = project / SETTINGS[agent]
    assert done.changed and done.path == path
    hooks = json.loads(path.read_text())["hooks"]
    assert sorted(hooks) == sorted(EVENTS[agent])
    for groups in hooks.values():
        [group] = groups
        [handler] = group["hooks"]
        assert handler["command"] == COMMAND.format(agent=agent)
        assert handler["timeout"] == (600_000 if agent == "gemini" else 600)
    assert not run(agent, project, home).changed  # installing twice changes nothing
    assert run(agent, project, home, remove=True).changed
    assert list(project.iterdir()) == []  # the file and the folder install made are gone


def test_what_was_there_stays_and_undo_restores_it_byte_for_byte(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(THEIRS)
    os.chmod(path, 0o640)
    run("claude-code", tmp_path, tmp_path)
    data = json.loads(path.read_text())
    assert data["permissions"] == {"allow": ["Bash(ls:*)"]}
    pre = data["hooks"]["PreToolUse"]
    assert pre[0]["hooks"][0]["command"] == "lint" and len(pre) == 2
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    run("claude-code", tmp_path, tmp_path, remove=True)
    assert path.read_text() == THEIRS
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_undo_after_someone_edited_the_settings_keeps_their_edit(tmp_path):
    path = tmp_path / ".gemini" / "settings.json"
    run("gemini", tmp_path, tmp_path)
    data = json.loads(path.read_text())
    data["theme"] = "dark"
    path.write_text(json.dumps(data))
    done = run("gemini", tmp_path, tmp_path, remove=True)
    assert "your edits are kept" in done.message
    assert json.loads(path.read_text()) == {"theme": "dark"}


def test_undo_without_a_record_removes_only_toolhooks_hooks(tmp_path):
    path = tmp_path / ".codex" / "hooks.json"
    path.parent.mkdir()
    hooks = {"PreToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": "x"}]}]}
    ours = {
        "matcher": ".*",
        "hooks": [{"type": "command", "command": COMMAND.format(agent="codex")}],
    }
    path.write_text(json.dumps({"hooks": {"PreToolUse": [*hooks["PreToolUse"], ours]}}))
    run("codex", tmp_path, tmp_path, remove=True)
    assert json.loads(path.read_text()) == {"hooks": hooks}
    assert not run("codex", tmp_path, tmp_path, remove=True).changed


def test_user_scope_writes_under_home(tmp_path):
    done = run("claude-code", tmp_path / "project", tmp_path / "home", scope="user")
    assert done.path == tmp_path / "home" / ".claude" / "settings.json"


@pytest.mark.parametrize(("text", "why"), [("{not json", "not JSON"), ("[1]", "not a JSON object")])
def test_settings_that_cannot_be_read_are_left_alone_with_a_clear_error(tmp_path, text, why):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(ConfigError, match=why):
        run("claude-code", tmp_path, tmp_path)
    assert path.read_text() == text


def test_a_script_directory_agent_is_wired_and_restored(tmp_path):
    hooks = tmp_path / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "TaskStart").write_text("#!/bin/sh\necho '{}'\n")
    run("cline", tmp_path, tmp_path)
    wired = sorted(p.name for p in hooks.iterdir())
    assert "PreToolUse" in wired and "TaskStart" in wired
    assert stat.S_IMODE((hooks / "PreToolUse").stat().st_mode) == 0o755
    assert "cline" in (hooks / "PreToolUse").read_text()
    run("cline", tmp_path, tmp_path, remove=True)
    assert sorted(p.name for p in hooks.iterdir()) == ["TaskStart"]


def test_the_command_line(tmp_path):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    environ["HOME"] = str(tmp_path / "home")

    def toolhooks(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "toolhooks", "hook", "install", *args],
            cwd=tmp_path,
            env=environ,
            capture_output=True,
            text=True,
            timeout=60,
        )

    done = toolhooks("codex")
    assert done.returncode == 0, done.stderr
    assert "wired PreToolUse, PostToolUse" in done.stdout
    assert "undo: toolhooks hook install codex --undo" in done.stdout
    assert "[features] hooks = true" in done.stdout
    command = json.loads((tmp_path / ".codex" / "hooks.json").read_text())
    assert command["hooks"]["PreToolUse"][0]["hooks"][0]["command"].endswith("hook codex")
    assert toolhooks("codex", "--undo").returncode == 0
    assert not (tmp_path / ".codex").exists()
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text("{oops")
    broken = toolhooks("gemini")
    assert broken.returncode == 1
    assert broken.stderr.count("\n") == 1 and "settings.json" in broken.stderr
    assert toolhooks("vim").returncode == 2


def test_the_undo_record_is_no_hook_file_for_copilot(tmp_path):
    """Copilot reads every .json file of .github/hooks as hook settings: the record install keeps
    there must not be one of them."""
    project, home = tmp_path / "p", tmp_path / "h"
    project.mkdir()
    home.mkdir()
    install("copilot", "project", project, home, "toolhooks hook copilot")
    hook_files = sorted(p.name for p in (project / ".github" / "hooks").glob("*.json"))
    assert hook_files == ["toolhooks.json"]
