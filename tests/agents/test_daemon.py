"""``toolhooks agentd``, the resident runtime behind ``toolhooks hook`` (issue #26 item 2): real
hook subprocesses, a real daemon on a real Unix socket. Its life (started by the first hook, one
daemon for hooks that start it at once, idle exit, a config change picked up), its socket's
modes, and what it does with requests it cannot use (each answered, none ends it)."""

from __future__ import annotations

import json
import os
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_support import (
    Project,
    after,
    before,
    config,
    daemons_for,
    decision,
    stop_daemons_under,
    wait_for,
    wait_gone,
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project(tmp_path)
    made.write_config(config())
    return made


def test_the_first_hook_starts_the_daemon_and_later_hooks_use_it(project):
    done = project.hook(before("https://example.com", tool="WebFetch"))
    assert done.returncode == 0, done.stderr
    assert decision(done.stdout)[0] == "deny"
    pid = project.pid()
    assert pid is not None, (project.state / "agentd.log").read_text()
    allowed = project.hook(before("echo hi", call="toolu_2"))
    assert (allowed.returncode, json.loads(allowed.stdout)) == (0, {})
    status = project.status()
    assert (status["pid"], status["answered"]) == (pid, 2)
    assert status["config"] == str(project.root / "toolhooks.toml")
    # The log the config names relatively is the project root's, whoever answered.
    proposed = [e for e in project.events() if e["event"] == "tool.proposed"]
    assert [e["call_id"] for e in proposed] == ["toolu_1", "toolu_2"]
    assert {e.get("agent_id") for e in proposed} == {"claude-code"}


def test_the_socket_is_the_users_only(project):
    project.hook(before("echo hi"))
    folder = os.stat(project.state)
    sock = os.stat(project.state / "agentd.sock")
    assert stat.S_ISSOCK(sock.st_mode)
    assert (stat.S_IMODE(folder.st_mode), stat.S_IMODE(sock.st_mode)) == (0o700, 0o600)
    assert sock.st_uid == os.getuid()
    for name in ("agentd.pid", "agentd.log", "agentd.lock"):
        assert stat.S_IMODE(os.stat(project.state / name).st_mode) == 0o600


def test_an_existing_loose_toolhooks_folder_is_made_private(project):
    project.state.mkdir(mode=0o755)
    os.chmod(project.state, 0o755)
    project.hook(before("echo hi"))
    assert stat.S_IMODE(os.stat(project.state).st_mode) == 0o700


def test_hooks_that_start_the_daemon_at_once_get_one(project):
    hooks = [project.start_hook(before("echo hi", call=f"toolu_{i}")) for i in range(3)]
    for hook in hooks:
        out, err = hook.communicate(timeout=120)
        assert (hook.returncode, json.loads(out)) == (0, {}), err
    # The others a hook started found it serving (after waiting for its start) and left.
    pid = project.pid()
    wait_for(lambda: daemons_for(project.root) == [pid], "the other starters to leave")


def test_the_daemon_exits_when_idle_and_takes_its_socket_along(project):
    project.write_config(config(agents="idle_timeout_s = 0.5"))
    project.hook(before("echo hi"))
    pid = project.pid()
    assert pid is not None
    assert wait_gone(pid, timeout=60)
    assert not (project.state / "agentd.sock").exists()
    assert not (project.state / "agentd.pid").exists()
    # The next hook starts a new one.
    project.hook(before("echo hi", call="toolu_2"))
    assert project.pid() not in (None, pid)


def test_a_config_change_is_picked_up_without_a_new_daemon(project):
    assert decision(project.hook(before("echo hi")).stdout)[0] is None
    pid = project.pid()
    project.write_config(config(denied="exec"))
    denied = project.hook(before("echo hi", call="toolu_2"))
    assert decision(denied.stdout)[0] == "deny"
    assert (project.pid(), project.status()["reloads"]) == (pid, 1)


def test_a_config_broken_while_it_runs_is_refused_until_fixed(project):
    project.hook(before("echo hi"))
    project.write_config("[tools\nthis is not toml")
    refused = project.hook(before("echo hi", call="toolu_2"))
    answer, reason = decision(refused.stdout)
    assert answer == "deny" and "config" in reason and "toolhooks.toml" in reason
    assert project.status()["broken"]
    project.write_config(config())
    assert json.loads(project.hook(before("echo hi", call="toolu_3")).stdout) == {}
    assert project.status()["broken"] is None


def test_a_touched_but_unchanged_config_rebuilds_nothing(project):
    project.hook(before("echo hi"))
    os.utime(project.root / "toolhooks.toml")
    project.hook(before("echo hi", call="toolu_2"))
    assert project.status()["reloads"] == 0


def test_a_daemon_that_died_idle_leaves_a_socket_the_next_one_replaces(project):
    project.hook(before("echo hi"))
    pid = project.pid()
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid)
    assert (project.state / "agentd.sock").exists()  # left behind: nobody answers on it
    again = project.hook(before("echo hi", call="toolu_2"))
    assert json.loads(again.stdout) == {}
    assert project.pid() not in (None, pid)


def test_sigterm_ends_it_cleanly(project):
    project.hook(before("echo hi"))
    pid = project.pid()
    os.kill(pid, signal.SIGTERM)
    assert wait_gone(pid)
    assert not (project.state / "agentd.sock").exists()


def test_agentd_start_status_and_stop_from_the_command_line(project):
    started = project.cli("agentd")
    assert started.returncode == 0, started.stderr
    pid = json.loads(started.stdout)["pid"]
    assert project.pid() == pid
    assert project.cli("agentd").returncode == 0  # already serving: the same one
    assert project.pid() == pid
    status = project.cli("agentd", "--status")
    assert json.loads(status.stdout)["pid"] == pid
    assert project.cli("agentd", "--stop").stdout.strip() == "stopped"
    assert wait_gone(pid)
    assert project.cli("agentd", "--status").returncode == 1


# -- requests it cannot use ---------------------------------------------------------------------


@pytest.fixture
def running(project: Project) -> Project:
    project.hook(before("echo hi"))
    assert project.pid() is not None
    return project


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """One daemon that every bad request of this module is sent to: it must outlive them all."""
    made = Project(tmp_path_factory.mktemp("shared"))
    made.write_config(config())
    made.hook(before("echo hi"))
    assert made.pid() is not None
    yield made
    stop_daemons_under(made.root)


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"garbage\r\n\r\n", b"400"),
        (b"GET /run/claude-code HTTP/1.1\r\nHost: agentd\r\n\r\n", b"405"),
        (b"POST /run/vim HTTP/1.1\r\nHost: agentd\r\nContent-Length: 2\r\n\r\n{}", b"404"),
        (b"POST /run/codex HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", b"413"),
        (b"POST /run/codex HTTP/1.1\r\nContent-Length: x\r\n\r\n", b"400"),
        (b"POST /run/codex HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n", b"431"),
        (b"POST /run/codex HTTP/1.1\r\nContent-Length: 10\r\n\r\n{}", b""),  # cut short
    ],
    ids=["not http", "wrong method", "unknown agent", "too big", "bad length", "huge head", "eof"],
)
def test_a_request_it_cannot_use_is_answered_and_the_daemon_lives_on(shared, request_bytes, status):
    pid = shared.pid()
    answer = shared.request(request_bytes)
    if status:
        assert answer.startswith(b"HTTP/1.1 " + status), answer[:200]
    else:
        assert answer.startswith(b"HTTP/1.1 400") or answer == b""
    assert shared.status()["pid"] == pid
    call = f"toolu_{len(shared.events())}"
    assert json.loads(shared.hook(before("echo hi", call=call)).stdout) == {}


def test_a_huge_event_is_refused_in_the_agents_protocol_and_logged(running):
    huge = b'{"tool_input": {"content": "' + b"x" * (10 * 1024 * 1024) + b'"}}'
    done = running.hook(huge)
    assert done.returncode == 2 and b"over the limit" in done.stderr
    [refused] = [e for e in running.events() if e["event"] == "agent.refused"]
    assert refused["bytes"] == len(huge)
    assert running.status()["answered"] == 2


def test_a_stalled_connection_does_not_hold_up_the_others(shared):
    stalled = shared.connect()
    try:
        stalled.sendall(b"POST /run/claude-code HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        call = f"toolu_{len(shared.events())}"
        assert json.loads(shared.hook(before("echo hi", call=call)).stdout) == {}
    finally:
        stalled.close()


def test_two_sessions_at_once_share_no_state(running):
    """Sessions A and B run the same command twice, their calls side by side through the same
    daemon (each step: A's and B's call at once). The loop detector warns at a session's second
    identical call; had the sessions shared a window, one of the first step's calls would have
    been the second, and warned."""
    warned: dict[str, list[bool]] = {"A": [], "B": []}

    def call(session: str, step: int) -> None:
        call_id = f"{session}-{step}"
        running.hook(before("echo same", session=session, call=call_id))
        answer = running.hook(after("echo same", session=session, call=call_id)).stdout
        warned[session].append(b"identical arguments" in answer)

    for step in range(2):
        threads = [threading.Thread(target=call, args=(name, step)) for name in warned]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
    assert warned == {"A": [False, True], "B": [False, True]}
    assert running.status()["answered"] == 1 + 8


def test_agentd_with_a_config_that_does_not_load_says_why_in_one_line(project):
    project.write_config('[tools]\nprofile = "nope"\n')
    done = project.cli("agentd")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("toolhooks: error: the daemon did not start: ConfigError: ")
    assert "toolhooks.toml:" in line and "nope" in line
    assert project.pid() is None
