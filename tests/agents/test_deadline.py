"""Issue #39 item 1: ``toolhooks hook AGENT`` always answers, within its own deadline, and a run
that does not answer is a deny in the agent's protocol. Hostile plugins (one that hangs, one that
spins, one that allocates without bound, one that kills its own process), a daemon killed
mid-request and one that never replies: each hook runs as the agent runs it, a real subprocess,
under a memory limit of the test's own (so that no regression can take the machine down) and a
timeout that only catches a hook that never answers."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daemon_support import Project, config, daemons_under, wait_for
from toolhooks.agents import _project
from toolhooks.config._agents import DEADLINE_S

FIXTURES = Path(__file__).parent / "fixtures"
BEFORE = {
    "claude-code": "claude-code/PreToolUse.json",
    "codex": "codex/PreToolUse.json",
    "gemini": "gemini/BeforeTool.json",
    "cursor": "cursor/preToolUse.json",
    "copilot": "copilot/preToolUse.json",
    "windsurf": "windsurf/pre_run_command.json",
    "cline": "cline/PreToolUse.json",
}
"""A before event of a shell command, per agent, as the agent sends it."""

DOCUMENTED_TIMEOUTS_S = {"claude-code": 600, "codex": 600, "gemini": 60, "copilot": 30, "cline": 30}
"""Each agent's documented default hook timeout (docs/decisions/hook-daemon.md; Cursor and
Windsurf document none)."""

HOSTILE = """
import os
import signal
import time

from toolhooks import hookimpl


class Hostile:
    '''Does to its process what the file "hostile" in its cwd (the project's root) says, on
    every shell command: a file, since a daemon keeps the environment it was started with.'''

    priority = 1000

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call):
        try:
            with open("hostile") as handle:
                how = handle.read()
        except FileNotFoundError:
            how = ""
        if how == "hang":
            while True:
                time.sleep(1)
        if how == "spin":
            while True:
                pass
        if how == "allocate":
            hoard = []
            while True:
                hoard.append(b"x" * (64 << 20))
        if how == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        return None
"""

OUTER_MEMORY_LIMIT = 4 << 30
"""The test's own limit on each hook process tree's address space: a hook that failed to limit
itself must not take the shared machine's memory."""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (OUTER_MEMORY_LIMIT, OUTER_MEMORY_LIMIT))


def before(agent: str) -> bytes:
    doc: dict[str, Any] = json.loads((FIXTURES / BEFORE[agent]).read_text())
    payload = doc["cases"][0]["payload"] if "cases" in doc else doc
    return json.dumps(payload).encode()


def denied(agent: str, code: int, stdout: bytes, stderr: bytes) -> str:
    """The reason of the deny in ``agent``'s protocol; fails when the answer is not a deny."""
    text = stdout.decode()
    if agent in ("claude-code", "codex", "gemini", "windsurf") and code == 2:
        return stderr.decode()
    assert code in (0, 2) and text, (code, stdout, stderr)
    answer = json.loads(text)
    if agent in ("claude-code", "codex"):
        specific = answer["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny", answer
        return str(specific["permissionDecisionReason"])
    if agent == "gemini":
        assert answer["decision"] == "deny", answer
        return str(answer["reason"])
    if agent == "cursor":
        assert answer["permission"] == "deny", answer
        return str(answer["agent_message"])
    if agent == "copilot":
        assert answer["permissionDecision"] == "deny", answer
        return str(answer["permissionDecisionReason"])
    assert agent == "cline" and answer["cancel"] is True, answer
    return str(answer["errorMessage"])


@pytest.fixture
def hostile(install_dist, tmp_path: Path) -> Project:
    site = install_dist("hostile-plugin", {"hostile_plugin": HOSTILE}, {"hostile": "hostile_plugin:Hostile"})  # fmt: skip
    made = Project(tmp_path / "project", {"PYTHONPATH": str(site)})
    made.root.mkdir()
    made.write_config(config(agents="deadline_s = 3"))
    return made


def run(project: Project, agent: str, *args: str, how: str = "") -> tuple[int, bytes, bytes]:
    import subprocess

    (project.root / "hostile").write_text(how)
    done = subprocess.run(
        [*project_argv(), "hook", agent, *args], input=before(agent), cwd=project.root,
        env=project.env, capture_output=True, timeout=90,
        preexec_fn=_limited,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def project_argv() -> list[str]:
    from daemon_support import TOOLHOOKS

    return list(TOOLHOOKS)


# -- the deadline itself -------------------------------------------------------------------------


def test_the_deadline_is_under_every_documented_hook_timeout_and_only_goes_down(tmp_path: Path):
    assert _project.DEADLINE_S == DEADLINE_S < min(DOCUMENTED_TIMEOUTS_S.values())
    config_file = tmp_path / "toolhooks.toml"
    made = _project.Project(config=str(config_file), root=str(tmp_path))
    for written, read in [("3", 3.0), ("0.75", 0.75), ("600", DEADLINE_S), ("0.1", DEADLINE_S),
                          ('"5"', DEADLINE_S), ("nan", DEADLINE_S), ("true", DEADLINE_S)]:  # fmt: skip
        config_file.write_text(f"[agents]\ndeadline_s = {written}\n")
        assert _project.deadline_s(made) == read, written


def test_a_deadline_above_the_ceiling_is_a_config_error(tmp_path: Path):
    from toolhooks.config._settings import ConfigError, load_config

    (tmp_path / "toolhooks.toml").write_text("[agents]\ndeadline_s = 60\n")
    with pytest.raises(ConfigError, match="deadline_s"):
        load_config(tmp_path / "toolhooks.toml")


# -- hostile runs, without the daemon -----------------------------------------------------------


@pytest.mark.parametrize("agent", list(BEFORE))
def test_a_plugin_that_never_returns_is_a_deny_at_the_deadline(hostile, agent):
    code, out, err = run(hostile, agent, "--no-daemon", how="hang")
    assert "deadline" in denied(agent, code, out, err)


@pytest.mark.parametrize("how", ["spin", "die", "allocate"])
def test_a_run_that_spins_dies_or_eats_memory_is_a_deny(hostile, how):
    for agent in ("claude-code", "cline"):  # an exit-code protocol and a JSON-only one
        code, out, err = run(hostile, agent, "--no-daemon", how=how)
        assert denied(agent, code, out, err)


def test_a_plugin_printing_to_stdout_does_not_corrupt_the_answer(install_dist, tmp_path: Path):
    noisy = """
from toolhooks import hookimpl


class Noisy:
    @hookimpl(tools=["exec"])
    def before_tool_call(self, call):
        print("chatter from a plugin")
        return {"block": True, "block_reason": "noisy says no"}
"""
    site = install_dist("noisy-plugin", {"noisy_plugin": noisy}, {"noisy": "noisy_plugin:Noisy"})
    project = Project(tmp_path / "project", {"PYTHONPATH": str(site)})
    project.root.mkdir()
    project.write_config(config())
    code, out, err = run(project, "claude-code", "--no-daemon")
    assert denied("claude-code", code, out, err) == "noisy says no"
    assert b"chatter from a plugin" in err


def test_an_ordinary_call_is_answered_by_the_child_as_before(hostile):
    code, out, err = run(hostile, "claude-code", "--no-daemon")
    assert (code, json.loads(out)) == (0, {}), err


# -- the daemon ---------------------------------------------------------------------------------


def test_a_daemon_killed_mid_request_by_what_it_runs_is_a_deny(hostile):
    # The daemon dies (EOF), the hook answers in a child, which the same plugin kills too.
    code, out, err = run(hostile, "claude-code", how="die")
    assert denied("claude-code", code, out, err)


def test_a_daemon_that_hangs_is_a_deny_at_the_deadline(hostile):
    try:
        code, out, err = run(hostile, "claude-code", how="hang")
    finally:  # its worker never returns: a graceful stop would wait for it
        for pid in daemons_under(hostile.root):
            os.kill(pid, signal.SIGKILL)
    assert "deadline" in denied("claude-code", code, out, err)


@contextlib.contextmanager
def silent_daemon(root: Path) -> Iterator[list[socket.socket]]:
    """A listener on the project's socket, as this user, that accepts and never replies."""
    state = root / ".toolhooks"
    state.mkdir(mode=0o700)
    here = os.getcwd()
    os.chdir(root)
    try:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(".toolhooks/agentd.sock")
    finally:
        os.chdir(here)
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                accepted.append(server.accept()[0])

    thread = threading.Thread(target=accept)
    thread.start()
    try:
        yield accepted
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        server.close()


@pytest.mark.parametrize("agent", ["claude-code", "cline"])
def test_a_daemon_that_never_replies_is_a_deny_at_the_deadline(hostile, agent):
    with silent_daemon(hostile.root) as accepted:
        code, out, err = run(hostile, agent)
        assert accepted, "the hook did not reach the silent daemon"
    assert "deadline" in denied(agent, code, out, err)


def headroom(pid: int | None) -> int:
    """How far the process's address space may still grow under its own limit, in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    size = next(
        int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmSize:")
    )
    limits = Path(f"/proc/{pid}/limits").read_text()
    soft = next(
        line.split()[3] for line in limits.splitlines() if line.startswith("Max address space")
    )
    return (1 << 62) if soft == "unlimited" else int(soft) - size


def test_a_run_that_eats_memory_in_the_daemon_is_a_deny_and_the_daemon_goes_on(hostile):
    code, out, err = run(hostile, "claude-code", how="allocate")
    assert denied("claude-code", code, out, err)
    pid = hostile.pid()
    wait_for(lambda: b"MemoryError" in (hostile.state / "agentd.log").read_bytes(), "the limit")
    # The deny reaches the hook before the failed run's frames (and the hoard they hold) are
    # dropped: the daemon goes on once it has its headroom back, not in the same instant.
    wait_for(lambda: headroom(pid) >= 1 << 30, "the daemon giving the hoard back")
    code, out, err = run(hostile, "claude-code")
    assert (code, json.loads(out)) == (0, {}), err
    assert hostile.pid() == pid is not None  # the same daemon answered
