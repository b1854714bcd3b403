"""Redis killed and restarted under a running runtime: fail closed, recover, nothing over a limit.

The server is this test's own ``redis-server`` on a free port, with an append-only file synced
on every write, as a production server whose counters must survive a restart is configured.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis
from toolhooks import Runtime, hookimpl
from toolhooks.plugins.call_limits import CallLimitsPlugin
from toolhooks.plugins.loop_detection import LoopDetectionPlugin
from toolhooks.testing import require


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OwnRedis:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_timeout=0.5, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.ping():
                    break
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=20)


@pytest.fixture
def own_redis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    require(shutil.which("redis-server") is not None, "redis-server is not installed")
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    if server.proc is not None and server.proc.poll() is None:
        server.kill()


def test_killed_and_restarted_redis_fails_closed_then_recovers_without_overcounting(own_redis):
    config = {
        "state": {"url": own_redis.url, "timeout_s": 0.5},
        "plugins": {
            "call_limits": {
                "limits": [{"name": "cap", "tools": ["x"], "max_calls": 30, "scope": "global"}]
            }
        },
    }
    rt = Runtime(
        plugins=[CallLimitsPlugin, LoopDetectionPlugin], config=config, load_entrypoints=False
    )

    def call(index: int):
        return rt.call(
            {"name": "x", "params": {"i": index}, "session_id": "s"}, execute=lambda p: "ok"
        )

    before = [call(i).status for i in range(20)]
    assert before == ["ok"] * 20
    own_redis.kill()
    down = [call(100 + i) for i in range(5)]
    assert [o.status for o in down] == ["blocked"] * 5
    assert all("unavailable" in (o.reason or "") for o in down)
    own_redis.start()
    after = [call(200 + i) for i in range(30)]
    assert [o.status for o in after].count("ok") == 10  # 20 + 10: the limit survived the restart
    assert after[-1].reason == (
        "Call limit 'cap' reached (30 calls per everyone); it resets only when the counter is "
        "reset or after 7 days without calls"
    )


class Gate:
    name = "gate"

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "Deploy?", "description": "to production"}}


def test_a_deferred_approval_survives_a_restart_and_runs_exactly_once(own_redis):
    ran: list[str] = []
    config = {"state": {"url": own_redis.url, "timeout_s": 0.5}}
    worker = Runtime(
        plugins=[Gate()], config=config, approver=lambda p: "defer", load_entrypoints=False
    )
    other = Runtime(
        plugins=[Gate()], config=config, approver=lambda p: "deny", load_entrypoints=False
    )
    for rt in (worker, other):
        rt.add_tool(lambda version: ran.append(version) or "deployed", name="deploy")
    first = worker.call({"name": "deploy", "params": {"version": "7"}, "session_id": "s"})
    assert first.status == "pending"
    own_redis.kill()
    down = other.resume(first.pending.id, "allow-once", by="ops")
    assert down.status != "ok" and ran == []
    assert "unavailable" in (down.reason or "")
    own_redis.start()
    done = other.resume(first.pending.id, "allow-once", by="ops")
    assert (done.status, done.call_id) == ("ok", first.call_id)
    again = worker.resume(first.pending.id, "allow-once", by="ops")
    assert again.status != "ok"
    assert ran == ["7"]
