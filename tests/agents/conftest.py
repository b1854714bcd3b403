"""A bridge over a real runtime (real SQLite approvals and hand-over files under tmp_path), and
payloads shaped like the ones the real CLIs send (tests/agents/fixtures/)."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from toolhooks import load_config
from toolhooks.agents._bridge import AgentBridge
from toolhooks.agents._run import build_runtime
from toolhooks.testing import require
from toolhooks.testing._fixtures import EventRecorder

# The support module sits next to this file; pytest's importlib mode does not put it on sys.path.
sys.path.insert(0, str(Path(__file__).parent))

REDIS_URL = os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(autouse=True)
def _no_operator_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLHOOKS_STATE_URL", raising=False)
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)


@pytest.fixture(scope="session", autouse=True)
def _every_daemon_gone_at_the_end() -> Iterator[None]:
    """The daemons the tests' teardowns signalled (``_no_leftover_daemons``) have all exited
    when the session ends (SIGKILL after 30 s)."""
    yield
    from daemon_support import wait_ended

    wait_ended()


@pytest.fixture(autouse=True)
def _no_leftover_daemons(tmp_path: Path) -> Iterator[None]:
    """A ``toolhooks hook`` starts its project's daemon, which outlives the hook by design: end
    every one a test's hooks started under its tmp_path. SIGTERM, without waiting for its
    shutdown (up to 0.5 s, 0.4 s on average: 112 daemon tests' teardowns were 78 s of the
    suite); the session's end waits for them all."""
    yield
    from daemon_support import end_daemons_under

    end_daemons_under(tmp_path)


@pytest.fixture
def make_bridge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., tuple[AgentBridge, EventRecorder]]]:
    """``make_bridge(*plugins, **tables)``: a bridge on a runtime with the built-ins, ``plugins``
    and the config ``tables``; approvals and the hand-over in tmp_path. Closed after the test."""
    monkeypatch.chdir(tmp_path)
    made: list[AgentBridge] = []

    def make(*plugins: Any, **tables: Any) -> tuple[AgentBridge, EventRecorder]:
        approvals = {"db": str(tmp_path / ".toolhooks" / "approvals.db"), "wait_s": 0}
        approvals.update(tables.pop("approvals", {}))
        config = {"approvals": approvals, **tables}
        runtime = build_runtime(load_config(config))
        for plugin in plugins:
            runtime.register(plugin)
        recorder = EventRecorder()
        runtime._register_observer(recorder, EventRecorder.name)
        bridge = AgentBridge(runtime)
        made.append(bridge)
        return bridge, recorder

    yield make
    for bridge in made:
        bridge.close()
        bridge.rt.close()


@pytest.fixture
def state_table() -> Iterator[dict[str, Any]]:
    """A ``[state]`` table on the real Redis with a key prefix of this test's own."""
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        reachable = bool(client.ping())
        client.close()
    except redis.RedisError:
        reachable = False
    require(reachable, f"no Redis server at {REDIS_URL} (set TOOLHOOKS_TEST_REDIS_URL)")
    prefix = f"toolhooks-test-{uuid.uuid4().hex[:12]}"
    yield {"url": REDIS_URL, "key_prefix": prefix}
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
