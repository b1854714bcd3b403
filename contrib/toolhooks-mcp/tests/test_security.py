"""Issue #21 items 4 and 7, and attacks on the proxy kept as tests: what a client is told about
the proxy, and tool names that two upstream servers share."""

from __future__ import annotations

import importlib.metadata
import logging

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from toolhooks_mcp import Proxy


def run(test):
    return anyio.run(test)


def test_the_client_is_told_the_installed_version(config, connected):
    """``serverInfo`` comes with the handshake (initialize) era; the TypeScript client saw ""."""

    async def main():
        async with connected(Proxy(config()), "legacy") as client:
            info = client.server_info
            assert info is not None and info.name == "toolhooks"
            assert info.version == importlib.metadata.version("toolhooks-mcp") != ""

    run(main)


def test_two_servers_whose_names_collide_offer_neither_tool_and_say_why(
    config, log, tmp_path, upstream, received, connected, caplog
):
    # Server "a" tool "_echo" and server "a_" tool "echo" are both "a___echo".
    other = tmp_path / "other.jsonl"
    third = tmp_path / "third.jsonl"
    servers = {
        "a": upstream(log, UPSTREAM_TOOL_PREFIX="_"),
        "a_": upstream(other),
        "b": upstream(third),
    }

    async def main():
        async with connected(Proxy(config(servers=servers))) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            # Every tool of "a" meets its twin of "a_": none of them is offered; "b" is untouched.
            assert not [name for name in names if name.startswith("a_")]
            assert {"b__echo", "b__write_file"} <= names
            with pytest.raises(MCPError) as refused:
                await client.call_tool("a___echo", {"text": "which one?"})
            message = str(refused.value)
            assert "ambiguous" in message and "'a'" in message and "'a_'" in message

    with caplog.at_level(logging.WARNING, logger="toolhooks.mcp"):
        run(main)
    assert received(log) == [] and received(other) == []  # no server got the call
    assert any(
        "a___echo" in r.getMessage() and "ambiguous" in r.getMessage() for r in caplog.records
    )


def test_a_hidden_tool_called_by_name_looks_unknown(config, connected):
    from toolhooks import hookimpl

    class HideEcho:
        @hookimpl
        def tool_visible(self, tool, sender, agent_id, origin):
            return tool.name != "files__echo"

    async def main():
        async with connected(Proxy(config(only=["HideEcho"]), plugins=[HideEcho()])) as client:
            with pytest.raises(MCPError) as hidden:
                await client.call_tool("files__echo", {"text": "hi"})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("files__nothing", {})
            assert str(hidden.value) == str(unknown.value).replace("nothing", "echo")

    run(main)
