"""A real Redis for the shared-state tests: 127.0.0.1:6379 or $TOOLHOOKS_TEST_REDIS_URL.

Each test gets its own key prefix, so parallel runs (and other sessions on one server) never see
each other's counters, sessions or approvals; the keys are deleted afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from toolhooks.testing import require

REDIS_URL = os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_reachable(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


@pytest.fixture(autouse=True)
def _no_state_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose their state explicitly; an operator's environment must not leak in."""
    monkeypatch.delenv("TOOLHOOKS_STATE_URL", raising=False)


@pytest.fixture
def redis_url() -> str:
    require(
        redis_reachable(REDIS_URL), f"no Redis server at {REDIS_URL} (set TOOLHOOKS_TEST_REDIS_URL)"
    )
    return REDIS_URL


@pytest.fixture
def state_table(redis_url: str) -> Iterator[dict[str, object]]:
    """A ``[state]`` table with a key prefix of this test's own; its keys are removed after."""
    import redis

    prefix = f"toolhooks-test-{uuid.uuid4().hex[:12]}"
    yield {"url": redis_url, "key_prefix": prefix}
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
