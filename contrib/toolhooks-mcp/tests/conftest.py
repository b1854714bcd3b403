"""Real upstream MCP servers (subprocesses running tests/servers/upstream.py) behind a Proxy."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from toolhooks_mcp import Proxy

UPSTREAM = Path(__file__).resolve().parent / "servers" / "upstream.py"
ERAS = ("legacy", "2026-07-28")
"""The handshake era (initialize, server-to-client requests) and the 2026-07-28 protocol."""


def upstream_table(log: Path, **env: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(UPSTREAM)],
        "env": {"UPSTREAM_LOG": str(log), **env},
    }


def received_calls(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture
def upstream() -> Callable[..., dict[str, Any]]:
    """``upstream(log, **env)``: a ``[mcp.servers.<name>]`` table starting the test upstream."""
    return upstream_table


@pytest.fixture
def received() -> Callable[[Path], list[dict[str, Any]]]:
    """``received(log)``: every call the upstream got (tool, arguments, pid), in order."""
    return received_calls


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    """Each test that takes it runs in the handshake era and in the 2026-07-28 protocol."""
    return str(request.param)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "upstream.jsonl"


@pytest.fixture
def config(tmp_path: Path, log: Path) -> Callable[..., dict[str, Any]]:
    """A config with one upstream named "files"; keyword arguments go into [mcp]."""

    def make(
        *, only: list[str] | None = None, plugins: dict[str, Any] | None = None, **mcp: Any
    ) -> dict[str, Any]:
        servers = mcp.pop("servers", {"files": upstream_table(log)})
        tables: dict[str, Any] = {"only": only or [], **(plugins or {})}
        return {
            "mcp": {"servers": servers, "health_interval_s": 0.5, "restart_backoff_s": 0.1, **mcp},
            "plugins": tables,
        }

    return make


@pytest.fixture
def connected() -> Callable[..., Any]:
    """``async with connected(proxy, mode) as client``: the proxy running, the SDK's Client on it."""
    return _connected


@asynccontextmanager
async def _connected(proxy: Proxy, mode: str = "legacy", **client: Any) -> AsyncIterator[Client]:
    """The proxy running, and the SDK's own Client connected to it in-process."""
    async with proxy.running(), Client(proxy.server, mode=mode, cache=None, **client) as session:
        yield session
