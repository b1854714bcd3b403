"""Helpers for the approval tests: a gate plugin, an event recorder, sync/async drivers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from toolhooks import hookimpl
from toolhooks.testing import EventRecorder


class Gate:
    """Asks for approval on every call; rewrites ``path`` first when ``prefix`` is given."""

    name = "gate"
    priority = 50

    def __init__(self, prefix: str | None = None, **request: Any) -> None:
        self.prefix = prefix
        self.request = {"title": "Write a file?", "description": "it writes", **request}
        self.seen: list[dict[str, Any]] = []

    @hookimpl
    def before_tool_call(self, call):
        self.seen.append(dict(call.params))
        result: dict[str, Any] = {"require_approval": self.request}
        if self.prefix and not str(call.params.get("path", "")).startswith(self.prefix):
            result["params"] = {"path": self.prefix + str(call.params.get("path", ""))}
        return result


@pytest.fixture
def gate_plugin() -> type[Gate]:
    return Gate


class Driver:
    """``call`` / ``resume`` / ``decide`` through the sync or the async entry points."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def call(self, rt, call, **kwargs):
        if self.mode == "sync":
            return rt.call(call, **kwargs)
        return asyncio.run(rt.acall(call, **kwargs))

    def resume(self, rt, *args, **kwargs):
        if self.mode == "sync":
            return rt.resume(*args, **kwargs)
        return asyncio.run(rt.aresume(*args, **kwargs))

    def decide(self, rt, call):
        if self.mode == "sync":
            return rt.decide(call)
        return asyncio.run(rt.adecide(call))


@pytest.fixture(params=["sync", "async"])
def drive(request) -> Driver:
    return Driver(request.param)


@pytest.fixture
def make(toolhooks_make_runtime):
    """A runtime with a Gate (rewriting paths under /ws/), a recorder and a ``write`` tool."""

    def build(gate: Gate | None = None, approver: Any = "defer", **kwargs: Any):
        gate = gate if gate is not None else Gate(prefix="/ws/")
        recorder = EventRecorder()
        answer = approver
        if isinstance(approver, str):
            approver = lambda pending: answer  # noqa: E731
        rt = toolhooks_make_runtime(plugins=[gate, recorder], approver=approver, **kwargs)
        ran: list[dict[str, Any]] = []

        @rt.tool
        def write(path: str, text: str = "") -> str:
            ran.append({"path": path, "text": text})
            return f"wrote {len(text)} bytes to {path}"

        return rt, recorder, ran

    return build


REDIS_URL = __import__("os").environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _redis_reachable(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


@pytest.fixture
def state_table():
    """A ``[state]`` table on the real Redis with this test's own key prefix, removed after."""
    import uuid

    import redis
    from toolhooks.testing import require

    require(_redis_reachable(REDIS_URL), f"no Redis server at {REDIS_URL}")
    prefix = f"toolhooks-test-{uuid.uuid4().hex[:12]}"
    yield {"url": REDIS_URL, "key_prefix": prefix}
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
