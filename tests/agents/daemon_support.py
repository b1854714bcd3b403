"""Finding and ending the ``toolhooks agentd`` daemons a test's hooks started.

A hook starts its project's daemon in a session of its own (it outlives the hook by design), so
a test cannot wait for it as a child: it reads the pid the daemon wrote next to its socket,
checks that the process is that daemon, and polls until it is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def pid_of(root: Path) -> int | None:
    """The pid in ``root/.toolhooks/agentd.pid`` if that process is a running agentd."""
    try:
        pid = int((root / ".toolhooks" / "agentd.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if running(pid) else None


def running(pid: int) -> bool:
    """Whether ``pid`` is a live ``toolhooks agentd`` (a zombie left for init counts as gone)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return b"agentd" in cmdline.split(b"\0") and state != "Z"


def wait_gone(pid: int, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def daemons_under(root: Path) -> list[int]:
    """Every live agentd working in ``root`` or below, or named with a config there (found
    from /proc, so one still starting, before its pid file, is found too)."""
    root = root.resolve()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not running(int(entry.name)):
            continue
        with contextlib.suppress(OSError):
            cwd = Path(os.readlink(entry / "cwd"))
            if (
                cwd == root
                or root in cwd.parents
                or str(root).encode() in (entry / "cmdline").read_bytes()
            ):
                found.append(int(entry.name))
    return found


def stop_daemons_under(root: Path) -> list[int]:
    """SIGTERM every agentd ``daemons_under`` finds and wait for it (SIGKILL after 30 s); the
    pids found."""
    found = daemons_under(root)
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for pid in found:
        _wait_or_kill(pid)
    return found


def _wait_or_kill(pid: int) -> None:
    if not wait_gone(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        wait_gone(pid, 10.0)


_ENDING: dict[int, str] = {}
"""The daemons ``end_daemons_under`` sent SIGTERM and did not wait for: pid -> its start time
(``/proc/PID/stat`` field 22), so that a pid the system reused is never waited for or killed."""


def _started(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def end_daemons_under(root: Path) -> list[int]:
    """SIGTERM every agentd ``daemons_under`` finds, without waiting for it to exit: for a test's
    teardown, so that the next test runs while this one's daemon finishes its shutdown (up to
    the workers' 0.5 s accept poll, most of a daemon test's teardown). ``wait_ended`` waits for
    them all (SIGKILL after 30 s); the session's end calls it (tests/agents/conftest.py)."""
    found = daemons_under(root)
    for pid in found:
        started = _started(pid)
        if started is not None:
            _ENDING[pid] = started
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    return found


def wait_ended() -> list[int]:
    """Wait for every daemon ``end_daemons_under`` signalled (SIGKILL after 30 s); the pids that
    were still running when asked."""
    waited = []
    for pid, started in list(_ENDING.items()):
        del _ENDING[pid]
        if _started(pid) == started and running(pid):
            waited.append(pid)
            _wait_or_kill(pid)
    return waited


# -- a project whose hooks run through the daemon -----------------------------------------------

TOOLHOOKS = [sys.executable, "-m", "toolhooks"]
CONFIG = """\
[agents]
sender = "tester"
{agents}

[approvals]
db = ".toolhooks/approvals.db"

[plugins.event_log]
path = "events.jsonl"

[plugins.loop_detection]
warning_threshold = 2

[tools]
deny = ["{denied}"]
"""


def config(*, agents: str = "", denied: str = "web_fetch") -> str:
    """The test projects' config: relative paths (they must mean the project's root), the
    loop detector warning at the second identical call, one tool group denied."""
    return CONFIG.format(agents=agents, denied=denied)


def before(
    command: str, *, session: str = "s1", call: str = "toolu_1", tool: str = "Bash"
) -> bytes:
    """Claude Code's PreToolUse for ``command`` (a Bash command, or a WebFetch url)."""
    tool_input = {"url": command} if tool == "WebFetch" else {"command": command}
    return json.dumps(
        {
            "session_id": session,
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": call,
            "cwd": "/work/project",
            "permission_mode": "default",
        }
    ).encode()


def after(command: str, *, session: str = "s1", call: str = "toolu_1", output: str = "ok") -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": output, "stderr": "", "interrupted": False},
            "tool_use_id": call,
            "cwd": "/work/project",
        }
    ).encode()


def decision(stdout: bytes) -> tuple[str | None, str]:
    """Claude Code's permission decision in a PreToolUse answer, and its reason."""
    output = json.loads(stdout).get("hookSpecificOutput", {})
    return output.get("permissionDecision"), output.get("permissionDecisionReason", "")


class Project:
    """A folder with a toolhooks.toml whose hooks run as the agents run them: a subprocess
    ``python -m toolhooks hook AGENT`` (the console script's dispatcher), stdin in."""

    def __init__(self, root: Path, extra_env: dict[str, str] | None = None) -> None:
        self.root = root
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")},
            **(extra_env or {}),
        }

    @property
    def state(self) -> Path:
        return self.root / ".toolhooks"

    def write_config(self, text: str) -> None:
        (self.root / "toolhooks.toml").write_text(text)

    def hook(
        self, stdin: bytes, *args: str, agent: str = "claude-code", cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
        return subprocess.run(
            [*TOOLHOOKS, "hook", agent, *args], input=stdin, cwd=cwd or self.root,
            env={**self.env, **(env or {})}, capture_output=True, timeout=120,
        )  # fmt: skip

    def start_hook(self, stdin: bytes, agent: str = "claude-code") -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [*TOOLHOOKS, "hook", agent], cwd=self.root, env=self.env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert process.stdin is not None
        process.stdin.write(stdin)
        process.stdin.close()
        process.stdin = None  # so that communicate() reads the answer without flushing stdin
        return process

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*TOOLHOOKS, *args], cwd=self.root, env=self.env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip

    def pid(self) -> int | None:
        return pid_of(self.root)

    def request(self, data: bytes, *, close_write: bool = True) -> bytes:
        """``data`` sent to the daemon's socket as is; everything it answers."""
        conn = self.connect()
        try:
            conn.sendall(data)
            if close_write:
                conn.shutdown(socket.SHUT_WR)
            return receive_all(conn)
        finally:
            conn.close()

    def connect(self) -> socket.socket:
        """A connection to the daemon (by the socket's relative name, as the hooks do: a
        test's folder can be too long for a socket address)."""
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(60)
        here = os.getcwd()
        os.chdir(self.root)
        try:
            conn.connect(".toolhooks/agentd.sock")
        except OSError:
            conn.close()
            raise
        finally:
            os.chdir(here)
        return conn

    def status(self) -> dict[str, Any]:
        answer = self.request(b"GET /status HTTP/1.1\r\nHost: agentd\r\n\r\n")
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), answer
        status: dict[str, Any] = json.loads(body)
        return status

    def events(self) -> list[dict[str, Any]]:
        path = self.root / "events.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def receive_all(conn: socket.socket) -> bytes:
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def wait_for(condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.02)


def daemons_for(root: Path) -> list[int]:
    """Every live agentd process serving ``root`` (found by its command line)."""
    config = str(root / "toolhooks.toml").encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and running(int(entry.name)):
            with contextlib.suppress(OSError):
                if config in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found
