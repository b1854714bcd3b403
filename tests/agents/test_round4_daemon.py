"""Issue #32, the daemon under attack (items 1, 3, 8, 9, 10 and 15): real hooks, a real daemon,
real sockets and files. Each test here failed on the code before its fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from daemon_support import Project, before, config, decision, receive_all, stop_daemons_under

SCRIPT = str(Path(sys.executable).parent / "toolhooks")
"""The console script, as an installed hook runs it (``python -m`` would put the test's cwd on
the hook's own path: that is the hook command's business, tested in test_install)."""

PLANTED = """\
import os
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "imported-{name}"), "w"):
    pass
raise ImportError("a planted {name}")
"""


def hook(root: Path, stdin: bytes, *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    return subprocess.run(
        [SCRIPT, "hook", "claude-code"], input=stdin, cwd=root, env={**clean, **(env or {})},
        capture_output=True, timeout=120,
    )  # fmt: skip


# -- item 1: the project folder is never on the daemon's import path ---------------------------


def test_modules_planted_in_the_project_are_not_imported_by_the_daemon(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write_config(config())
    for name in ("runpy", "pydantic", "pluggy"):
        (tmp_path / f"{name}.py").write_text(PLANTED.format(name=name))
    dist = tmp_path / "planted_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: planted-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[toolhooks.plugins]\nplanted = planted_plugin:Plugin\n")
    (tmp_path / "planted_plugin.py").write_text(PLANTED.format(name="plugin"))
    done = hook(tmp_path, before("https://example.com", tool="WebFetch"))
    assert done.returncode == 0, done.stderr
    assert decision(done.stdout)[0] == "deny"
    assert project.pid() is not None, (tmp_path / ".toolhooks" / "agentd.log").read_text()
    assert sorted(p.name for p in tmp_path.glob("imported-*")) == []


def test_the_hook_command_without_a_console_script_keeps_the_project_off_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolhooks.agents import _install

    python = sys.executable
    monkeypatch.setattr(_install.shutil, "which", lambda name: None)
    monkeypatch.setattr(_install.sys, "executable", str(tmp_path / "no-such-bin" / "python"))
    command = _install.hook_command("claude-code")
    assert "-m toolhooks" not in command
    real = command.replace(str(tmp_path / "no-such-bin" / "python"), python, 1)
    for name in ("runpy", "pydantic", "toolhooks"):
        (tmp_path / f"{name}.py").write_text(PLANTED.format(name=name))
    done = subprocess.run(
        ["sh", "-c", real.replace(" hook claude-code", " --version")], cwd=tmp_path,
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": ".:"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.glob("imported-*")) == []


# -- item 3: a held HTTP hook port stops the start ------------------------------------------------


def test_agentd_refuses_to_start_when_another_process_holds_the_http_port(tmp_path: Path) -> None:
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        project = Project(tmp_path)
        project.write_config(config(agents=f"http_port = {port}"))
        project.state.mkdir(mode=0o700)
        stale = project.state / "agentd.port"
        stale.write_text(f"{port}\n")  # a port file left from when the port was ours
        started = project.cli("agentd")
        assert started.returncode != 0
        assert f"127.0.0.1:{port}" in started.stderr and "another process" in started.stderr
        assert "Traceback" not in started.stderr
        assert not stale.exists()
        assert project.pid() is None
        assert project.cli("agentd", "--status").returncode != 0
    finally:
        holder.close()
