"""Streamable HTTP: the proxy behind bearer tokens (token -> sender, 401 otherwise, 127.0.0.1 by
default), and upstreams reached over HTTP."""

from __future__ import annotations

import hashlib
import socket
import subprocess
import sys

import anyio
import httpx2
import pytest
from mcp import Client
from toolhooks import ConfigError, hookimpl
from toolhooks_mcp import Proxy
from toolhooks_mcp._http import parse_address, serve_http
from toolhooks_mcp._upstream import http_transport

TOKEN = "t0ken-for-ada-" + "x" * 20


class Senders:
    def __init__(self):
        self.seen = []

    @hookimpl
    def before_tool_call(self, call):
        self.seen.append(call.sender.id if call.sender else None)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def until_listening(port, seconds=60.0):
    with anyio.fail_after(seconds):
        while True:
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.05)
            else:
                await stream.aclose()
                return


def auth(tokens):
    return {"tokens": tokens}


def test_a_bearer_token_names_the_sender_and_a_bad_one_gets_401(config, monkeypatch):
    monkeypatch.setenv("ADA_TOKEN", TOKEN)
    digest = hashlib.sha256(b"token-of-bob-0123456789").hexdigest()
    tokens = [
        {"sender": "ada", "env": "ADA_TOKEN", "roles": ["owner"]},
        {"sender": "bob", "sha256": digest},
    ]
    senders = Senders()
    proxy = Proxy(config(only=["Senders"], auth=auth(tokens)), plugins=[senders])
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def main():
        stop = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(serve_http, proxy, "127.0.0.1", port, stop)
            await until_listening(port)
            for token in (TOKEN, "token-of-bob-0123456789"):
                headers = {"Authorization": f"Bearer {token}"}
                async with Client(http_transport(url, headers), cache=None) as client:
                    assert "files__echo" in {t.name for t in (await client.list_tools()).tools}
                    assert (await client.call_tool("files__echo", {"text": "hi"})).content[
                        0
                    ].text == "hi"
            async with httpx2.AsyncClient() as http:
                body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
                for headers in (
                    {},
                    {"Authorization": "Bearer wrong"},
                    {"Authorization": f"Bearer {TOKEN}x"},
                ):
                    answer = await http.post(
                        url,
                        json=body,
                        headers={"Accept": "application/json, text/event-stream", **headers},
                    )
                    assert answer.status_code == 401
            stop.set()

    anyio.run(main)
    assert senders.seen == ["ada", "bob"]


def test_http_needs_a_token_and_binds_localhost_by_default(config):
    assert parse_address("8765") == ("127.0.0.1", 8765)
    assert parse_address(":9000") == ("127.0.0.1", 9000)
    assert parse_address("0.0.0.0:9000") == ("0.0.0.0", 9000)
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        parse_address("example.com:80")
    proxy = Proxy(config())

    async def main():
        await serve_http(proxy, "127.0.0.1", free_port())

    with pytest.raises(ConfigError, match=r"needs at least one \[\[mcp.auth.tokens\]\]"):
        anyio.run(main)


def test_an_upstream_over_http(config, log, received, connected, tmp_path):
    from pathlib import Path

    port = free_port()
    script = Path(__file__).resolve().parent / "servers" / "upstream.py"
    server = subprocess.Popen(
        [sys.executable, str(script), "--http", str(port)],
        env={"UPSTREAM_LOG": str(log), "PATH": "/usr/bin:/bin"},
    )
    try:
        servers = {"web": {"url": f"http://127.0.0.1:{port}/mcp"}}

        async def main():
            await until_listening(port)
            async with connected(Proxy(config(servers=servers))) as client:
                assert (await client.call_tool("web__echo", {"text": "over http"})).content[
                    0
                ].text == "over http"

        anyio.run(main)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert [entry["arguments"] for entry in received(log)] == [{"text": "over http"}]


def test_every_route_and_method_needs_the_token(config, monkeypatch):
    """Issue #21: no method on any path answers without a valid bearer token."""
    monkeypatch.setenv("ADA_TOKEN", TOKEN)
    proxy = Proxy(config(auth=auth([{"sender": "ada", "env": "ADA_TOKEN"}])))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    seen: dict[tuple[str, str, str], int] = {}

    async def main():
        stop = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(serve_http, proxy, "127.0.0.1", port, stop)
            await until_listening(port)
            async with httpx2.AsyncClient() as http:
                for path in ("/mcp", "/mcp/", "/", "/.well-known/oauth-authorization-server"):
                    for method in ("GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"):
                        for label, headers in (
                            ("none", {}),
                            ("wrong", {"Authorization": "Bearer not-the-token-at-all"}),
                            ("basic", {"Authorization": f"Basic {TOKEN}"}),
                        ):
                            answer = await http.request(
                                method,
                                base + path,
                                headers={
                                    "Accept": "application/json, text/event-stream",
                                    **headers,
                                },
                                content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                            )
                            status = answer.status_code
                            if status in (307, 308):  # /mcp/ -> /mcp: nothing told, same checks
                                assert answer.headers["location"] == base + "/mcp"
                                status = 401 if path == "/mcp/" else status
                            seen[(path, method, label)] = status
                            assert "files__echo" not in answer.text
            stop.set()

    anyio.run(main)
    assert all(status >= 400 for status in seen.values()), {
        k: v for k, v in seen.items() if v < 400
    }
    assert {status for (path, _, _), status in seen.items() if path == "/mcp"} == {401}
