"""Issue #17 item 7: ``toolhooks --help`` and ``--version`` start without pydantic, pluggy or
the runtime; a command imports what it needs when it runs. (What this saves is measured, not
asserted: see the CLI decisions in PLUGINS.md.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = (
    "pydantic",
    "pluggy",
    "toolhooks.runtime._runtime",
    "toolhooks.config._settings",
    "toolhooks.pipeline._conclude",
)
PROBE = """
import json, sys
from toolhooks.cli import main
code = main({argv!r})
print(json.dumps({{"code": code, "heavy": sorted(m for m in {heavy!r} if m in sys.modules)}}))
"""


def loaded_by(argv: list[str]) -> dict[str, object]:
    """What ``main(argv)`` imported, in a fresh interpreter (stdout's last line)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("argv", [["--help"], ["--version"], [], ["--wide", "--help"]])
def test_help_and_version_import_no_pydantic_pluggy_or_runtime(argv):
    result = loaded_by(argv)
    assert result["heavy"] == []
    assert result["code"] == (2 if argv == [] else 0)


def test_a_command_imports_what_it_needs_when_it_runs():
    result = loaded_by(["plugins", "--json"])
    assert result == {"code": 0, "heavy": sorted(HEAVY)}


def test_the_console_script_imports_no_pydantic_for_help():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolhooks", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "usage: toolhooks" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "toolhooks.cli._app" in imported  # the probe sees the command line's own imports
    assert not {name for name in imported if name.split(".")[0] in ("pydantic", "pluggy")}


def test_the_dispatcher_knows_every_agent_protocol():
    from toolhooks._main import AGENTS
    from toolhooks.agents._protocol import PROTOCOLS

    assert set(AGENTS) == set(PROTOCOLS)


def test_a_hook_through_the_daemon_imports_no_pydantic_pluggy_or_command_line(tmp_path):
    """Issue #26 item 2: ``toolhooks hook AGENT`` is the stdlib client; the daemon it talks to
    holds pydantic, pluggy and the runtime."""
    (tmp_path / "toolhooks.toml").write_text("[agents]\nidle_timeout_s = 120\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    event = json.dumps(
        {
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "echo hi"},
            "tool_use_id": "toolu_1",
            "cwd": str(tmp_path),
        }
    ).encode()

    def hook(*flags: str) -> subprocess.CompletedProcess[bytes]:
        argv = [sys.executable, *flags, "-m", "toolhooks", "hook", "claude-code"]
        return subprocess.run(
            argv, input=event, cwd=tmp_path, env=env, capture_output=True, timeout=120
        )

    try:
        assert hook().returncode == 0  # starts the daemon
        done = hook("-X", "importtime")
        assert done.returncode == 0 and json.loads(done.stdout) == {}, done.stderr
        imported = {
            line.rsplit("|", 1)[-1].strip()
            for line in done.stderr.decode().splitlines()
            if line.startswith("import time:")
        }
        assert "toolhooks.agents._client" in imported
        heavy = {n for n in imported if n.split(".")[0] in ("pydantic", "pluggy")}
        assert not heavy | (imported & {*HEAVY, "toolhooks.cli", "toolhooks.agents._protocol"})
    finally:
        subprocess.run(
            [sys.executable, "-m", "toolhooks", "agentd", "--stop"],
            cwd=tmp_path, env=env, capture_output=True, timeout=120,
        )  # fmt: skip
