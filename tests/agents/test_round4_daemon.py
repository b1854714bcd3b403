"""Issue #32, the daemon under attack (items 1, 3, 8, 9, 10 and 15): real hooks, a real daemon,
real sockets and files. Each test here failed on the code before its fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
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


def hook(
    root: Path, stdin: bytes, *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
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


# -- items 9 and 10: the HTTP hook listener ---------------------------------------------------


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, int, str]]:
    from test_http_hook import start

    root = tmp_path_factory.mktemp("round4-http")
    yield start(root)
    stop_daemons_under(root)


def raw_http(port: int, data: bytes, *, shut: bool = True) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(data)
        if shut:
            conn.shutdown(socket.SHUT_WR)
        answer = receive_all(conn)
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def test_the_token_is_checked_before_the_body_is_read(http: tuple[Project, int, str]) -> None:
    _, port, _ = http
    head = (
        f"POST /hook/claude-code HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Authorization: Bearer not-the-token-but-long-enough\r\nContent-Length: 30000000\r\n\r\n"
    )
    # No body follows: a daemon that reads the body first answers "closed before the body ended".
    status, body = raw_http(port, head.encode())
    assert status == 401, body


def refusals(project: Project) -> list[dict[str, object]]:
    return [e for e in project.events() if e["event"] == "agent.refused"]


@pytest.mark.parametrize("depth", [900, 5_000])
def test_tool_input_nested_near_and_past_the_parsers_limit_is_answered(
    http: tuple[Project, int, str], depth: int
) -> None:
    """Round 4's own attack: a depth the JSON parser takes (900) and one just past it (5,000);
    each is answered in the agent's protocol, and the daemon answers the next event."""
    _, port, token = http
    from test_http_hook import post

    deep = b'{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", '
    deep += b'"tool_use_id": "toolu_deep_%d", "tool_input": {"command": "echo hi", "x": ' % depth
    deep += b"[" * depth + b"]" * depth + b"}}"
    status, body = post(port, deep, token=token)
    assert status == 200, body
    if depth == 900:  # parsed, then refused by the call's own input check
        verdict, reason = decision(body)
        assert verdict == "deny" and "nested deeper than 64 levels" in reason
    else:
        assert json.loads(body)["decision"] == "block"
    assert post(port, before("echo hi", call=f"toolu_after_deep_{depth}"), token=token)[0] == 200


def test_tool_input_nested_100000_deep_is_blocked_and_logged(
    http: tuple[Project, int, str],
) -> None:
    project, port, token = http
    from test_http_hook import post

    before_count = len(refusals(project))
    deep = b'{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", '
    deep += b'"tool_input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    status, body = post(port, deep, token=token)
    assert status == 200, body
    assert json.loads(body)["decision"] == "block"
    assert "nested too deeply" in json.loads(body)["reason"]
    assert len(refusals(project)) == before_count + 1
    command = project.hook(deep)  # the command hook too: refused, in the agent's protocol
    assert command.returncode == 2 and b"nested too deeply" in command.stderr


def test_an_event_over_the_body_limit_is_blocked_and_logged(http: tuple[Project, int, str]) -> None:
    project, port, token = http
    from test_http_hook import post

    before_count = len(refusals(project))
    filler = b"x" * (33 * 1024 * 1024)
    big = before("echo hi")[:-1] + b', "padding": "' + filler + b'"}'
    status, body = post(port, big, token=token)
    assert status == 200, body
    assert json.loads(body)["decision"] == "block"
    assert "too big" in json.loads(body)["reason"]
    found = refusals(project)
    assert len(found) == before_count + 1
    assert "over the limit" in str(found[-1]["reason"]) and found[-1]["bytes"] == len(big)
    assert post(port, before("echo hi", call="toolu_after_big"), token=token)[0] == 200


def test_a_chunked_event_over_the_body_limit_is_blocked_too(http: tuple[Project, int, str]) -> None:
    """Round 4's own attack: no Content-Length to refuse early, the limit is met mid-body."""
    project, port, token = http
    before_count = len(refusals(project))
    head = (
        f"POST /hook/claude-code HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"x" * (1 << 20)
    one = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    status, body = raw_http(port, head + one * 33 + b"0\r\n\r\n", shut=False)
    assert status == 200, body
    assert json.loads(body)["decision"] == "block" and "too big" in json.loads(body)["reason"]
    assert len(refusals(project)) == before_count + 1


# -- item 15: the hook trusts the process on the socket, not the socket's file --------------------

FAKE_DAEMON = """\
import os, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(".toolhooks/agentd.sock")  # a file owned by the hook's own user (root here)
os.setgid(65534)
os.setuid(65534)  # the listener's credentials are taken now: another user's process
server.listen(8)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    conn.settimeout(5)
    got = b""
    try:
        while chunk := conn.recv(65536):
            got += chunk
            if b"\\r\\n\\r\\n" in got:
                break
    except OSError:
        pass
    print("got", len(got), flush=True)
    body = b"{}"
    try:
        conn.sendall(
            b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nX-Toolhooks-Exit-Code: 0\\r\\n"
            b"X-Toolhooks-Stdout-Length: 2\\r\\n\\r\\n" + body
        )
    except OSError:
        pass
    conn.close()
"""


def test_a_socket_file_of_ours_served_by_another_user_is_not_trusted(tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root: a listener of another user behind a socket file of ours")
    project = Project(tmp_path)
    project.write_config(config())
    project.state.mkdir(mode=0o700)
    fake = subprocess.Popen(
        [sys.executable, "-c", FAKE_DAEMON], cwd=tmp_path, stdout=subprocess.PIPE, text=True
    )
    try:
        assert fake.stdout is not None and fake.stdout.readline() == "ready\n"
        sock = project.state / "agentd.sock"
        assert sock.lstat().st_uid == os.getuid()  # what the hook used to check
        done = hook(tmp_path, before("https://example.com", tool="WebFetch"))
        assert done.returncode == 0, done.stderr
        assert decision(done.stdout)[0] == "deny"  # answered here, not by the other user
    finally:
        fake.kill()
        said, _ = fake.communicate()
    assert "got" not in said.replace("got 0", ""), said  # the event was never sent to it


# -- item 8: a state folder that is not ours alone, and names planted in it ------------------------


def planted_state(root: Path) -> tuple[Project, Path]:
    """A project whose .toolhooks/ holds links named like the daemon's files to a victim file."""
    project = Project(root)
    project.write_config(config())
    victim = root / "victim.txt"
    victim.write_text("precious\n")
    project.state.mkdir(mode=0o700)
    for name in ("agentd.log", "agentd.pid", "agentd.lock", "agentd.token", "agentd.port"):
        (project.state / name).symlink_to(victim)
    return project, victim


def need_root() -> None:
    if os.getuid() != 0:
        pytest.skip("needs root: a folder of another user is made with chown")


@pytest.mark.parametrize("how", ["writable by others", "another user's"])
def test_a_state_folder_not_ours_alone_is_refused(tmp_path: Path, how: str) -> None:
    project, victim = planted_state(tmp_path)
    if how == "writable by others":
        project.state.chmod(0o777)
        said = "can be written by others"
    else:
        need_root()
        os.chown(project.state, 65534, 65534)
        said = "belongs to another user (uid 65534)"
    done = hook(tmp_path, before("echo hi"))
    assert done.returncode == 0, done.stderr
    verdict, reason = decision(done.stdout)
    assert verdict == "deny" and "state folder is refused" in reason and said in reason
    started = project.cli("agentd")
    assert started.returncode != 0 and said in started.stderr, started.stderr
    assert "Traceback" not in started.stderr
    assert victim.read_text() == "precious\n"
    assert project.pid() is None


def test_links_planted_in_our_own_state_folder_are_not_followed(tmp_path: Path) -> None:
    project, victim = planted_state(tmp_path)  # 0700 and ours, but the links were put there
    done = hook(tmp_path, before("https://example.com", tool="WebFetch"))
    assert done.returncode == 0, done.stderr
    assert decision(done.stdout)[0] == "deny"  # answered in-process: no daemon can start here
    started = project.cli("agentd", "--foreground", "--idle-timeout", "5")
    assert started.returncode != 0, started.stderr
    assert victim.read_text() == "precious\n"


# -- item 2: a config of another user's further up is not ours --------------------------------


def test_another_users_config_in_a_shared_parent_is_ignored_and_said(tmp_path: Path) -> None:
    need_root()
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp
    theirs = shared / "toolhooks.toml"
    their_log = tmp_path / "their-log.jsonl"
    theirs.write_text(f'[plugins.event_log]\npath = "{their_log}"\n')
    os.chown(theirs, 65534, 65534)
    mine = shared / "project"
    mine.mkdir()
    done = hook(mine, before("echo secret-token-123"))
    assert done.returncode == 0, done.stderr
    assert f"ignoring the config {theirs}" in done.stderr.decode()
    assert "another user (uid 65534)" in done.stderr.decode()
    assert not their_log.exists()
