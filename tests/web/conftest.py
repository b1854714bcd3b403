"""The desk under test: a real approval store (Redis; SQLite when the queue store is there), a
real agent runtime that defers into it, a real event log, and the app through an HTTP client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from toolhooks import Runtime
from toolhooks.config._settings import load_config
from toolhooks.plugins.event_log import EventLogPlugin
from toolhooks.testing import require

from .desk_agent import Gate, write

REDIS_URL = os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
SECRETS = {"alice": "alice-secret-token-0001", "bob": "bob-secret-token-00002"}


def redis_reachable(url: str = REDIS_URL) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


def sqlite_store_available() -> bool:
    """Whether the runtime opens the SQLite store for the queue route (landing separately)."""
    import tempfile

    from toolhooks.stores._memory import MemoryStore

    with tempfile.TemporaryDirectory() as folder:
        queue = {"approvals": {"route": "queue", "db": f"{folder}/approvals.db"}}
        runtime = Runtime(config=queue, load_entrypoints=False)
        try:
            return not isinstance(runtime.approvals, MemoryStore)
        finally:
            runtime.close()


@pytest.fixture(autouse=True)
def _no_outside_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose their store and tokens; an operator's environment must not leak in."""
    monkeypatch.delenv("TOOLHOOKS_STATE_URL", raising=False)
    monkeypatch.delenv("TOOLHOOKS_DESK_TOKENS", raising=False)
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)


def _redis_config(tmp_path: Path) -> Iterator[dict[str, Any]]:
    require(redis_reachable(), f"no Redis server at {REDIS_URL} (set TOOLHOOKS_TEST_REDIS_URL)")
    import redis

    prefix = f"toolhooks-desk-{uuid.uuid4().hex[:12]}"
    yield {"state": {"url": REDIS_URL, "key_prefix": prefix}}
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def _sqlite_config(tmp_path: Path) -> Iterator[dict[str, Any]]:
    require(
        sqlite_store_available(), "the SQLite approval store (toolhooks.stores._sqlite) is missing"
    )
    yield {"approvals": {"route": "queue", "wait_s": 0, "db": str(tmp_path / "approvals.db")}}


STORES: dict[str, Callable[[Path], Iterator[dict[str, Any]]]] = {
    "redis": _redis_config,
    "sqlite": _sqlite_config,
}


# The SQLite store joins the parameters once it exists (it is landing separately).
STORE_KINDS = ["redis", *(["sqlite"] if sqlite_store_available() else [])]


@pytest.fixture(params=STORE_KINDS)
def config(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A config whose approval store agents share, and an event log under ``tmp_path``."""
    made = STORES[request.param](tmp_path)
    table = next(made)
    table.setdefault("plugins", {})["event_log"] = {"path": str(tmp_path / "events.jsonl")}
    yield table
    next(made, None)


@pytest.fixture
def agent(config: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``agent(**request)``: a runtime that defers every approval into the shared store."""
    monkeypatch.chdir(tmp_path)
    made: list[Runtime] = []

    def build(**request: Any) -> Runtime:
        runtime = Runtime(
            config=config,
            plugins=[Gate(**request), EventLogPlugin],
            tools=[write],
            approver=lambda pending: "defer",
            load_entrypoints=False,
        )
        made.append(runtime)
        return runtime

    yield build
    for runtime in made:
        runtime.close()


@pytest.fixture
def desk_app(config: dict[str, Any], tmp_path: Path):
    from toolhooks.web import CallLog, Desk, create_app, open_store
    from toolhooks.web._auth import Tokens, _digest

    store, owner = open_store(load_config(config))
    desk = Desk(store, CallLog(tmp_path / "events.jsonl"))
    app = create_app(desk, Tokens({name: _digest(secret) for name, secret in SECRETS.items()}))
    yield app
    owner.close()


class Api:
    """An HTTP client signed in as one token's owner, with that owner's CSRF token."""

    def __init__(self, client: Any, name: str) -> None:
        self.client = client
        self.name = name
        self.auth = {"authorization": f"Bearer {SECRETS[name]}"}
        me = client.get("/api/me", headers=self.auth)
        assert me.status_code == 200, me.text
        self.csrf = me.json()["csrf_token"]

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.client.get(path, headers=self.auth, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        headers = {**self.auth, "x-csrf-token": self.csrf}
        return self.client.post(path, json=body, headers=headers, **kwargs)

    def decide(self, approval_id: str, decision: str, **fields: Any) -> Any:
        return self.post(f"/api/approvals/{approval_id}/decision", {"decision": decision, **fields})


@pytest.fixture
def client(desk_app):
    from fastapi.testclient import TestClient

    # The desk answers to its own names only (issue #21 item 8): talk to it as 127.0.0.1.
    with TestClient(desk_app, base_url="http://127.0.0.1") as http:
        yield http


@pytest.fixture
def api(client) -> Callable[[str], Api]:
    return lambda name="alice": Api(client, name)


AGENT = Path(__file__).with_name("desk_agent.py")


class Served:
    """A ``toolhooks serve`` process: its URL, and its output so far."""

    def __init__(self, process: subprocess.Popen[str], url: str, lines: list[str]) -> None:
        self.process = process
        self.url = url
        self.lines = lines


def start_serve(config_file: Path, cwd: Path, env: dict[str, str], *extra: str) -> Served:
    """Start ``toolhooks serve --port 0`` and wait for the line that gives its URL."""
    command = [sys.executable, "-m", "toolhooks", "serve", "--config", str(config_file),
               "--port", "0", *extra]  # fmt: skip
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)  # fmt: skip
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:  # blocks until the server says where it is, or exits
        lines.append(line.rstrip("\n"))
        if line.startswith("toolhooks desk on "):
            return Served(process, line.split()[3], lines)
    process.wait(10)
    raise AssertionError("toolhooks serve exited:\n" + "\n".join(lines))


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    return {**env, **extra}


@pytest.fixture
def config_file(config: dict[str, Any], tmp_path: Path) -> Path:
    path = tmp_path / "desk-config.json"
    path.write_text(json.dumps(config))
    return path


@pytest.fixture
def served(config: dict[str, Any], tmp_path: Path) -> Iterator[Served]:
    """The desk as users run it: ``toolhooks serve`` in a process, named tokens from the env."""
    toml = tmp_path / "toolhooks.toml"
    toml.write_text(to_toml(config))
    tokens = ",".join(f"{name}={secret}" for name, secret in SECRETS.items())
    server = start_serve(toml, tmp_path, child_env(TOOLHOOKS_DESK_TOKENS=tokens))
    yield server
    stop(server.process)


def to_toml(config: dict[str, Any]) -> str:
    """The test's config as a TOML file (tables of scalars, one level of sub-tables)."""
    lines: list[str] = []

    def table(name: str, values: dict[str, Any]) -> None:
        lines.append(f"[{name}]")
        lines.extend(f"{key} = {json.dumps(value)}" for key, value in values.items()
                     if not isinstance(value, dict))  # fmt: skip
        for key, value in values.items():
            if isinstance(value, dict):
                table(f"{name}.{key}", value)

    for name, values in config.items():
        table(name, values)
    return "\n".join(lines) + "\n"


class AgentProcess:
    """``desk_agent.py`` in its own process: it defers, waits on the store, resumes."""

    def __init__(self, config_file: Path, params: dict[str, Any], cwd: Path, *flags: str) -> None:
        params_file = cwd / f"params-{uuid.uuid4().hex[:8]}.json"
        params_file.write_text(json.dumps(params))
        self.process = subprocess.Popen(
            [sys.executable, str(AGENT), str(config_file), str(params_file), *flags],
            cwd=cwd, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def said(self) -> dict[str, Any]:
        """The next JSON line the agent printed (it prints one per step)."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(10)
            assert self.process.stderr is not None
            raise AssertionError(f"the agent exited: {self.process.stderr.read()}")
        found: dict[str, Any] = json.loads(line)
        return found


@pytest.fixture
def agent_process(config_file: Path, tmp_path: Path) -> Iterator[Callable[..., AgentProcess]]:
    started: list[AgentProcess] = []

    def start(params: dict[str, Any], *flags: str) -> AgentProcess:
        process = AgentProcess(config_file, params, tmp_path, *flags)
        started.append(process)
        return process

    yield start
    for process in started:
        stop(process.process)
