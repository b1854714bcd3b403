"""Claude Code's ``type: "http"`` hook straight to the daemon (``[agents] http_port``): the same
JSON in and out as the command hook, on 127.0.0.1 only, for a caller with the token only, and
never for a web page (loopback ``Host``, no ``Origin``). Also the daemon's Unix socket spoken to
by ``curl --unix-socket``, the form an installed hook may use to skip Python altogether."""

from __future__ import annotations

import json
import shutil
import socket
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_support import Project, before, config, decision, receive_all, stop_daemons_under


def start(root: Path) -> tuple[Project, int, str]:
    """A project whose daemon also listens for HTTP hooks: the project, its port and token."""
    project = Project(root)
    project.write_config(config(agents="http_port = 0"))
    started = project.cli("agentd")
    assert started.returncode == 0, started.stderr
    port = json.loads(started.stdout)["http_port"]
    assert port == int((project.state / "agentd.port").read_text())
    token = (project.state / "agentd.token").read_text().strip()
    return project, port, token


@pytest.fixture
def fresh(tmp_path: Path) -> tuple[Project, int, str]:
    """A daemon of this test's own (ended by tests/agents/conftest.py)."""
    return start(tmp_path)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, int, str]]:
    """One daemon for the tests that only send it requests (each starts in about a second)."""
    root = tmp_path_factory.mktemp("http-hook")
    yield start(root)
    stop_daemons_under(root)


def post(
    port: int, body: bytes, *, token: str | None, host: str | None = None, path: str = "/hook/claude-code",
    extra: str = "",
) -> tuple[int, bytes]:  # fmt: skip
    """One POST to the daemon's HTTP listener; the status and the body."""
    head = f"POST {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n"
    head += "Content-Type: application/json\r\n"
    if token is not None:
        head += f"Authorization: Bearer {token}\r\n"
    head += extra
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
        answer = receive_all(conn)
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def test_the_http_hook_answers_as_the_command_hook_does(fresh):
    project, port, token = fresh
    status, body = post(port, before("https://example.com", tool="WebFetch"), token=token)
    command = project.hook(before("https://example.com", tool="WebFetch", call="toolu_2"))
    assert status == 200
    assert decision(body) == decision(command.stdout)
    assert decision(body)[0] == "deny"
    allowed = post(port, before("echo hi", call="toolu_3"), token=token)
    assert (allowed[0], json.loads(allowed[1])) == (200, {})
    calls = [e["call_id"] for e in project.events() if e["event"] == "tool.proposed"]
    assert calls == ["toolu_1", "toolu_2", "toolu_3"]


def test_the_token_file_is_the_users_only_and_kept_across_restarts(fresh):
    project, _, token = fresh
    path = project.state / "agentd.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    project.cli("agentd", "--stop")
    restarted = project.cli("agentd")
    assert restarted.returncode == 0, restarted.stderr
    assert path.read_text().strip() == token


@pytest.mark.parametrize(
    "token", [None, "", "wrong-token-of-the-right-length-123456789", "Basic"], ids=repr
)
def test_without_the_token_it_is_refused(served, token):
    project, port, real = served
    given = None if token is None else (token if token != "Basic" else None)
    extra = f"Authorization: Basic {real}\r\n" if token == "Basic" else ""
    proposed = len([e for e in project.events() if e["event"] == "tool.proposed"])
    status, body = post(port, before("echo hi"), token=given, extra=extra)
    assert status == 401 and b"Bearer" in body
    assert len([e for e in project.events() if e["event"] == "tool.proposed"]) == proposed


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "[::1]"])
def test_a_host_that_is_not_this_loopback_address_is_refused(served, host):
    _, port, token = served
    status, _ = post(port, before("echo hi"), token=token, host=host.format(port=port))
    assert status == 403


def test_localhost_is_this_loopback_address(served):
    _, port, token = served
    assert post(port, before("echo hi"), token=token, host=f"localhost:{port}")[0] == 200


def test_a_web_page_is_refused_even_with_the_token(served):
    _, port, token = served
    status, _ = post(port, before("echo hi"), token=token, extra="Origin: http://evil.example\r\n")
    assert status == 403


def test_only_hooks_are_served_over_http(served):
    _, port, token = served
    assert post(port, b"", token=token, path="/stop")[0] == 404
    assert post(port, b"{}", token=token, path="/run/claude-code")[0] == 404


def test_it_listens_on_loopback_only(served):
    _, port, _ = served
    listening = [
        line.split()[1]
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
        if line.split()[3] == "0A"  # LISTEN
    ]
    assert f"0100007F:{port:04X}" in listening
    assert f"00000000:{port:04X}" not in listening


def test_a_chunked_body_is_read(served):
    _, port, token = served
    body = before("https://example.com", tool="WebFetch", call="toolu_chunked")
    chunked = (
        b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:10], body[10:]))
        + b"0\r\n\r\n"
    )
    head = (
        f"POST /hook/claude-code HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(head.encode() + chunked)
        answer = receive_all(conn)
    assert answer.startswith(b"HTTP/1.1 200")
    assert decision(answer.partition(b"\r\n\r\n")[2])[0] == "deny"


def test_a_blocking_exit_becomes_a_block_decision(served):
    """An event the protocol cannot place is refused with exit 2 by a command hook; an HTTP hook
    has no exit code, so the same refusal is Claude Code's JSON block."""
    _, port, token = served
    teleport = json.loads(before("echo hi"))
    teleport["hook_event_name"] = "Teleport"
    status, body = post(port, json.dumps(teleport).encode(), token=token)
    answer = json.loads(body)
    assert status == 200 and answer["decision"] == "block" and "Teleport" in answer["reason"]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_on_the_unix_socket_is_a_hook_without_python(served):
    project, _, _ = served
    done = subprocess.run(
        ["curl", "-sS", "--fail-with-body", "--unix-socket", ".toolhooks/agentd.sock",
         "--data-binary", "@-", "http://agentd/hook/claude-code"],
        input=before("https://example.com", tool="WebFetch", call="toolu_curl"), cwd=project.root,
        capture_output=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert decision(done.stdout)[0] == "deny"
