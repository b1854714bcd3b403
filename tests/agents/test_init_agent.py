"""``toolhooks init --agent claude-code`` in an empty project, then the very hook command it wired,
fed Claude Code's own PreToolUse payload for ``rm -rf ~``: denied by the starter policy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "claude-code" / "PreToolUse.json"
BIN = Path(sys.executable).parent


def test_init_then_the_wired_hook_denies_a_recursive_delete_of_home(tmp_path: Path):
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [str(BIN / "toolhooks"), "init", "--agent", "claude-code"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (project / "toolhooks.toml").is_file()
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    [entry] = settings["hooks"]["PreToolUse"]
    [hook] = entry["hooks"]
    payload = json.loads(FIXTURE.read_text())
    payload.update(cwd=str(project), tool_input={"command": "rm -rf ~"})
    answer = subprocess.run(
        hook["command"], shell=True, cwd=project, env=env, input=json.dumps(payload),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert answer.returncode == 0, answer.stderr
    reply = json.loads(answer.stdout)["hookSpecificOutput"]
    assert reply["permissionDecision"] == "deny", reply
    assert "no-recursive-delete" in reply["permissionDecisionReason"]
