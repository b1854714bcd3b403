"""Round 4 red team (issue #32, "attack the daemon once more"): a real ``toolhooks agentd`` with
its HTTP hook listener, real sockets and subprocesses. Each attack must be refused, or answered
without letting a tool run unchecked, and leave the daemon answering. Listed in RELIABILITY.md.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolhooks.agents._http import READ_DEADLINE_ENV, READ_DEADLINE_S, read_deadline_s

AGENTS_TESTS = Path(__file__).resolve().parents[1] / "agents"
sys.path.insert(0, str(AGENTS_TESTS))  # daemon_support (pytest's importlib mode adds no path)

from daemon_support import (  # noqa: E402
    Project,
    after,
    before,
    config,
    decision,
    receive_all,
    stop_daemons_under,
    wait_for,
)

SCRIPT = str(Path(sys.executable).parent / "toolhooks")
POLICY = config() + '\n[[rules]]\nid = "no-force-push"\ncommand = ["git", "push"]\n'
POLICY += 'flags = ["--force", "-f"]\ndecision = "deny"\nreason = "no force pushes"\n'


def start(root: Path, env: dict[str, str] | None = None) -> tuple[Project, int, str]:
    project = Project(root, extra_env=env)
    project.write_config(POLICY.replace("[agents]", "[agents]\nhttp_port = 0", 1))
    started = project.cli("agentd")
    assert started.returncode == 0, started.stderr
    port = int(json.loads(started.stdout)["http_port"])
    token = (project.state / "agentd.token").read_text().strip()
    return project, port, token


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, int, str]]:
    root = tmp_path_factory.mktemp("redteam-daemon")
    yield start(root)
    stop_daemons_under(root)


@pytest.fixture(autouse=True)
def _no_leftover_daemons(tmp_path: Path) -> Iterator[None]:
    yield
    stop_daemons_under(tmp_path)


def exchange(port: int, data: bytes) -> tuple[int, bytes]:
    """``data`` sent as is to the HTTP listener; the status and the body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        answer = receive_all(conn)
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def post(port: int, body: bytes, headers: str) -> tuple[int, bytes]:
    head = f"POST /hook/claude-code HTTP/1.1\r\n{headers}Content-Length: {len(body)}\r\n\r\n"
    return exchange(port, head.encode() + body)


def good(port: int, token: str) -> str:
    return f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"


def denied(answer: tuple[int, bytes]) -> bool:
    status, body = answer
    return status == 200 and decision(body)[0] == "deny"


# -- who may ask: token, Host, Origin ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "headers", "status"),
    [
        ("no token", "Host: 127.0.0.1:{port}\r\n", 401),
        ("a wrong token", "Host: 127.0.0.1:{port}\r\nAuthorization: Bearer x{token}\r\n", 401),
        ("a token prefix", "Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {half}\r\n", 401),
        ("basic auth", "Host: 127.0.0.1:{port}\r\nAuthorization: Basic {token}\r\n", 401),
        ("the token alone", "Host: 127.0.0.1:{port}\r\nAuthorization: {token}\r\n", 401),
        ("an empty bearer", "Host: 127.0.0.1:{port}\r\nAuthorization: Bearer \r\n", 401),
        ("no Host", "Authorization: Bearer {token}\r\n", 403),
        ("a rebinding Host", "Host: evil.example:{port}\r\nAuthorization: Bearer {token}\r\n", 403),
        ("a loopback-looking Host", "Host: 127.0.0.1.nip.io:{port}\r\nAuthorization: Bearer {token}\r\n", 403),
        ("localhost.evil", "Host: localhost.evil.example\r\nAuthorization: Bearer {token}\r\n", 403),
        ("another port", "Host: 127.0.0.1:1\r\nAuthorization: Bearer {token}\r\n", 403),
        ("an Origin", "Host: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\nAuthorization: Bearer {token}\r\n", 403),
        ("Origin null", "Host: 127.0.0.1:{port}\r\nOrigin: null\r\nAuthorization: Bearer {token}\r\n", 403),
        ("an empty Origin", "Host: 127.0.0.1:{port}\r\nOrigin:\r\nAuthorization: Bearer {token}\r\n", 403),
        ("a lower-case origin", "Host: 127.0.0.1:{port}\r\norigin: x\r\nAuthorization: Bearer {token}\r\n", 403),
    ],
)  # fmt: skip
def test_a_request_without_the_right_credentials_is_refused(
    served: tuple[Project, int, str], name: str, headers: str, status: int
) -> None:
    _, port, token = served
    filled = headers.format(port=port, token=token, half=token[: len(token) // 2])
    got, body = post(port, before("git push --force", call=f"toolu_cred_{name}"), filled)
    assert got == status, (name, body)


def test_the_token_in_the_query_string_is_not_a_token(served: tuple[Project, int, str]) -> None:
    _, port, token = served
    body = before("echo hi")
    head = (
        f"POST /hook/claude-code?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    assert exchange(port, head.encode() + body)[0] == 401


@pytest.mark.parametrize(
    "request_line",
    [
        "GET /status HTTP/1.1",  # the Unix socket's routes are not served over TCP
        "POST /stop HTTP/1.1",
        "POST /run/claude-code HTTP/1.1",
        "POST /hook/../stop HTTP/1.1",
        "POST //stop HTTP/1.1",
    ],
)
def test_the_unix_only_routes_are_not_on_the_tcp_listener(
    served: tuple[Project, int, str], request_line: str
) -> None:
    project, port, token = served
    head = f"{request_line}\r\n{good(port, token)}Content-Length: 0\r\n\r\n"
    status, _ = exchange(port, head.encode())
    assert status in (404, 405), status
    assert project.status()["pid"] == project.pid()  # still running


# -- malformed and hostile requests --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("content-length and chunked", "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"),
        ("a signed length", "Content-Length: +5\r\n\r\nhello"),
        ("a negative length", "Content-Length: -1\r\n\r\n"),
        ("two lengths", "Content-Length: 2\r\nContent-Length: 200\r\n\r\n{}"),
        ("gzip encoding", "Transfer-Encoding: gzip\r\n\r\n"),
        ("a bad chunk size", "Transfer-Encoding: chunked\r\n\r\nzz\r\n"),
        ("a head over 16 KiB", "X-Pad: " + "a" * 20_000 + "\r\n\r\n"),
        ("a header without a colon", "Broken header\r\n\r\n"),
        ("a folded header", "X-A: 1\r\n continued\r\n\r\n"),
    ],
)  # fmt: skip
def test_a_malformed_request_is_refused_and_the_daemon_goes_on(
    served: tuple[Project, int, str], name: str, data: str
) -> None:
    _, port, token = served
    head = f"POST /hook/claude-code HTTP/1.1\r\n{good(port, token)}{data}"
    status, body = exchange(port, head.encode())
    # A refusal (4xx), or a body too short to be an event: blocked in the agent's protocol.
    assert status >= 400 or json.loads(body).get("decision") == "block", (name, status, body)
    assert denied(post(port, before("git push -f", call=f"toolu_after_{name}"), good(port, token)))


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("not JSON", b"{not json"),
        ("not UTF-8", b'{"tool_name": "Bash", "x": "\xff\xfe"}'),
        ("a JSON list", b"[1, 2, 3]"),
        ("a huge number", b'{"tool_name": "Bash", "tool_input": {"command": 1e999999}}'),
        ("NaN", b'{"tool_name": "Bash", "tool_input": {"command": NaN}}'),
        ("a command that is a list", b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", '
         b'"tool_input": {"command": ["git", "push", "-f"]}}'),
        ("no tool name", b'{"hook_event_name": "PreToolUse", "tool_input": {"command": "x"}}'),
    ],
)  # fmt: skip
def test_an_event_toolhooks_cannot_read_is_blocked_not_passed(
    served: tuple[Project, int, str], name: str, body: bytes
) -> None:
    _, port, token = served
    status, answer = post(port, body, good(port, token))
    assert status == 200, (name, answer)
    parsed = json.loads(answer)
    verdict = parsed.get("decision") or parsed.get("hookSpecificOutput", {}).get(
        "permissionDecision"
    )
    assert verdict in ("block", "deny"), (name, parsed)


def test_a_duplicate_key_is_read_as_the_agent_reads_it(served: tuple[Project, int, str]) -> None:
    """JSON with tool_input twice: JavaScript (the agent) keeps the last; so must the daemon."""
    _, port, token = served
    body = (
        b'{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", '
        b'"tool_use_id": "toolu_dup", "tool_input": {"command": "echo hi"}, '
        b'"tool_input": {"command": "git push --force"}, "cwd": "/work/project"}'
    )
    assert denied(post(port, body, good(port, token)))


# -- replayed ids and forged results -------------------------------------------------------------


def test_a_replayed_tool_use_id_does_not_carry_an_earlier_allow(
    served: tuple[Project, int, str],
) -> None:
    _, port, token = served
    first = post(port, before("echo hi", call="toolu_replay"), good(port, token))
    assert first[0] == 200 and decision(first[1])[0] != "deny", first
    # the same id, now for a denied command (and again, after its PostToolUse)
    assert denied(post(port, before("git push --force", call="toolu_replay"), good(port, token)))
    post(port, after("echo hi", call="toolu_replay"), good(port, token))
    assert denied(post(port, before("git push -f", call="toolu_replay"), good(port, token)))


def test_a_forged_post_tool_use_without_the_token_is_refused(
    served: tuple[Project, int, str],
) -> None:
    _, port, _ = served
    status, _ = post(port, after("git push -f", call="toolu_forged"), f"Host: 127.0.0.1:{port}\r\n")
    assert status == 401


def test_a_post_tool_use_for_a_call_never_asked_about_changes_nothing(
    served: tuple[Project, int, str],
) -> None:
    _, port, token = served
    status, body = post(port, after("git push -f", call="toolu_never"), good(port, token))
    assert status == 200, body
    assert denied(post(port, before("git push -f", call="toolu_never"), good(port, token)))


# -- slow and many connections ---------------------------------------------------------------------


SHORT_DEADLINE_S = 2.0
"""The request deadline of the slowloris test's daemon (``READ_DEADLINE_ENV``): the same code
cuts the same peers as with the production 10 s, which ``test_the_daemon_keeps_the_production_
request_deadline`` proves is the deadline without the variable; a round of cuts then costs 2 s,
not 10 (two rounds were 21 s of the suite). Still four times the peers' 0.5 s between bytes, so
they are cut by the whole-request deadline while they keep sending, never by a read's timeout."""


def test_the_daemon_keeps_the_production_request_deadline(
    served: tuple[Project, int, str], tmp_path: Path
) -> None:
    """The daemon the other attacks here meet has the 10 s deadline (no variable set); the
    variable only shortens it: a longer one is ignored, and said so in the daemon's log."""
    project, _, _ = served
    assert READ_DEADLINE_S == 10.0
    assert project.status()["read_deadline_s"] == READ_DEADLINE_S
    other, _, _ = start(tmp_path, {READ_DEADLINE_ENV: "60"})
    assert other.status()["read_deadline_s"] == READ_DEADLINE_S
    log = (other.state / "agentd.log").read_text()
    assert f"{READ_DEADLINE_ENV}='60' ignored" in log, log


@pytest.mark.parametrize(
    "value", ["60", "10.5", "0", "-1", "0.5", "0.001", "nan", "inf", "-inf", "ten", ""]
)
def test_the_deadline_variable_cannot_lengthen_remove_or_starve_the_deadline(value: str) -> None:
    """Longer would let slow peers hold the workers longer; under a second, real hooks could
    miss it, and an agent whose HTTP hook fails (Claude Code) runs the tool."""
    deadline, ignored = read_deadline_s({READ_DEADLINE_ENV: value})
    assert deadline == READ_DEADLINE_S
    assert ignored is not None and READ_DEADLINE_ENV in ignored


def test_the_deadline_variable_shortens_the_deadline() -> None:
    assert read_deadline_s({}) == (READ_DEADLINE_S, None)
    assert read_deadline_s({READ_DEADLINE_ENV: "2"}) == (2.0, None)
    assert read_deadline_s({READ_DEADLINE_ENV: "10"}) == (10.0, None)
    assert read_deadline_s({READ_DEADLINE_ENV: "1"}) == (1.0, None)


def test_a_peer_sending_a_byte_at_a_time_cannot_hold_the_workers(tmp_path: Path) -> None:
    """Slowloris: 70 connections (more than the 64 workers) each sending a header byte every
    half second. The socket timeout bounds each read only, so before the request deadline they
    held every worker for as long as they kept sending, and a real HTTP hook was never answered
    (Claude Code then runs the tool: a failed HTTP hook does not block)."""
    project, port, token = start(tmp_path, {READ_DEADLINE_ENV: str(SHORT_DEADLINE_S)})
    assert project.status()["read_deadline_s"] == SHORT_DEADLINE_S
    stop = threading.Event()
    connected: list[float] = []
    closed: list[float] = []

    def drip() -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
            conn.sendall(b"POST /hook/claude-code HTTP/1.1\r\nX-Slow: ")
            connected.append(time.monotonic())
            while not stop.is_set():
                try:
                    conn.sendall(b"a")
                except OSError:
                    closed.append(time.monotonic())
                    return
                stop.wait(0.5)

    threads = [threading.Thread(target=drip, daemon=True) for _ in range(70)]
    for thread in threads:
        thread.start()
    try:
        # Every peer in before the hook: the workers are all held when it arrives.
        wait_for(lambda: len(connected) == 70, "the 70 dripping peers connected", timeout=30)
        answer: list[tuple[int, bytes]] = []
        hook = threading.Thread(
            target=lambda: answer.append(
                post(port, before("git push --force", call="toolu_slow"), good(port, token))
            ),
            daemon=True,
        )
        hook.start()
        wait_for(lambda: answer, "the real hook's answer while 70 peers drip", timeout=90)
        answered = time.monotonic()
        assert denied(answer[0])
        # It waited for a worker the deadline freed (the attack did hold them all): no peer is
        # cut before its deadline runs from its accept, which came after its connect.
        assert answered >= min(connected) + SHORT_DEADLINE_S, answered - min(connected)
        wait_for(lambda: len(closed) >= 64, "the daemon cutting the dripping peers", timeout=90)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert project.status()["pid"] == project.pid()


def test_many_idle_connections_do_not_stop_the_unix_socket(tmp_path: Path) -> None:
    """200 idle TCP connections opened at once (the production deadline: nothing waits for it):
    63 hold every TCP worker, 65 fill the listen queue, the rest retry their SYN. Opened one by
    one, each of the last 72 waited for a round of cuts and its SYN's back-off (24 s)."""
    project, port, token = start(tmp_path)
    idle = []
    for _ in range(200):
        conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        conn.setblocking(False)
        conn.connect_ex(("127.0.0.1", port))
        idle.append(conn)
    try:
        # The TCP side is full: an HTTP hook sent now is not answered (within a second).
        with pytest.raises(TimeoutError):
            post_within(port, before("echo probe", call="toolu_probe"), good(port, token), 1.0)
        done = project.hook(before("git push --force", call="toolu_idle"))
        assert done.returncode in (0, 2), done.stderr
        assert decision(done.stdout)[0] == "deny"
    finally:
        for conn in idle:
            conn.close()
    assert denied(post(port, before("git push -f", call="toolu_after_idle"), good(port, token)))


def post_within(port: int, body: bytes, headers: str, timeout: float) -> bytes:
    """``post``, but ``TimeoutError`` when the daemon does not answer in ``timeout`` seconds."""
    head = f"POST /hook/claude-code HTTP/1.1\r\n{headers}Content-Length: {len(body)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(head.encode() + body)
        conn.shutdown(socket.SHUT_WR)
        return receive_all(conn)


# -- the project folder: planted modules, a symlinked state folder ----------------------------------


PLANTED = """\
import os
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "imported-{name}"), "w").close()
"""


def test_modules_planted_in_the_project_are_not_imported_by_hook_or_daemon(
    tmp_path: Path,
) -> None:
    project = Project(tmp_path)
    project.write_config(POLICY)
    for name in (
        "sitecustomize",
        "usercustomize",
        "json",
        "socket",
        "tomllib",
        "typing_extensions",
    ):
        (tmp_path / f"{name}.py").write_text(PLANTED.format(name=name))
    package = tmp_path / "toolhooks"
    package.mkdir()
    (package / "__init__.py").write_text(PLANTED.format(name="toolhooks"))
    (tmp_path / "evil.pth").write_text("import os; open('imported-pth', 'w').close()\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    done = subprocess.run(
        [SCRIPT, "hook", "claude-code"], input=before("git push --force"), cwd=tmp_path,
        env=clean, capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode in (0, 2), done.stderr
    assert decision(done.stdout)[0] == "deny"
    wait_for(project.pid, "the daemon the hook started")
    assert sorted(p.name for p in tmp_path.glob("imported-*")) == []


def test_a_symlinked_state_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (elsewhere / "victim").write_text("precious\n")
    root = tmp_path / "project"
    root.mkdir()
    project = Project(root)
    project.write_config(POLICY)
    (root / ".toolhooks").symlink_to(elsewhere)
    done = project.hook(before("git push --force"))
    assert decision(done.stdout)[0] == "deny", done.stderr
    started = project.cli("agentd", "--foreground", "--idle-timeout", "5")
    assert started.returncode != 0 and "Traceback" not in started.stderr, started.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["victim"]
