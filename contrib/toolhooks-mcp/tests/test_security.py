"""Issue #21 items 4 and 7, and attacks on the proxy kept as tests: what a client is told about
the proxy, and tool names that two upstream servers share."""

from __future__ import annotations

import importlib.metadata
import logging

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from toolhooks import AfterToolCallResult, hookimpl
from toolhooks_mcp import META_KEY, Proxy


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


class RedactSecrets:
    """A redaction plugin that reads only the text after hooks are given, as any plugin does."""

    @hookimpl
    def after_tool_call(self, call, result):
        if isinstance(result.content, str) and "sk-live-" in result.content:
            return AfterToolCallResult(
                content=result.content.replace("sk-live-1234567890", "[redacted]")
            )
        return None


@pytest.mark.parametrize("kind", ["structured", "resource"])
def test_a_secret_on_another_channel_than_text_is_redacted_too(config, connected, era, kind):
    """Issue #21 item 5: the secret is only in structuredContent, or only inside an embedded
    resource. The redaction plugin must see it, and the client must never receive it."""

    async def main():
        proxy = Proxy(config(only=["RedactSecrets"]), plugins=[RedactSecrets()])
        async with connected(proxy, era) as client:
            result = await client.call_tool("files__channels", {"kind": kind})
            wire = result.model_dump_json(by_alias=True)
            assert "sk-live" not in wire
            assert "[redacted]" in "".join(b.text for b in result.content)
            assert result.structured_content is None
            dropped = result.meta[META_KEY]["dropped"]
            assert dropped == (["structuredContent"] if kind == "structured" else ["[resource]"])

    run(main)


def test_without_a_hook_rewriting_every_channel_arrives_as_it_came(config, connected):
    async def main():
        async with connected(Proxy(config())) as client:
            structured = await client.call_tool("files__channels", {"kind": "structured"})
            assert structured.structured_content["api_key"] == "sk-live-1234567890"
            resource = await client.call_tool("files__channels", {"kind": "resource"})
            assert [block.type for block in resource.content] == ["text", "resource"]
            assert "dropped" not in resource.meta[META_KEY]

    run(main)


def test_a_block_no_hook_can_read_is_dropped_and_said_so(config, connected):
    async def main():
        async with connected(Proxy(config())) as client:
            result = await client.call_tool("files__channels", {"kind": "image"})
            assert [block.type for block in result.content] == ["text"]
            assert result.meta[META_KEY]["dropped"] == ["[image image/png]"]

    run(main)


@pytest.mark.parametrize(("kind", "size"), [("structured", 400_000), ("resource", 300_000)])
def test_the_result_budget_counts_every_channel(config, connected, kind, size):
    """Issue #21 item 6: 400 KB of structuredContent or a 300 KB embedded resource is trimmed,
    with its artifact, like 400 KB of text."""

    async def main():
        async with connected(Proxy(config(only=["result_budget"]))) as client:
            result = await client.call_tool("files__channels", {"kind": kind, "size": size})
            outcome = result.meta[META_KEY]
            assert outcome["truncated"] is True and outcome["artifact"]
            assert len(result.model_dump_json()) < 40_000
            assert result.structured_content is None
            assert "truncated" in "".join(b.text for b in result.content)

    run(main)


def test_an_upstream_speaking_garbage_is_taken_off_the_list(
    config, log, tmp_path, upstream, connected
):
    """Malformed JSON-RPC from an upstream: its tools leave the list with a reason, the others
    keep serving, and the proxy does not fall over."""
    servers = {"files": upstream(log), "liar": upstream(tmp_path / "l.jsonl", UPSTREAM_BABBLE="1")}

    async def main():
        # The liar is taken off when its start times out (the SDK skips lines it cannot parse); 8 s,
        # not 2, so that a slow start of the good server on a loaded machine is not taken off too.
        proxy = Proxy(config(servers=servers, start_timeout_s=8.0))
        async with connected(proxy) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert "files__echo" in listed and not any(n.startswith("liar__") for n in listed)
            result = await client.call_tool("liar__echo", {"text": "hi"})
            assert result.is_error and "'liar' is not running" in result.content[0].text
            assert (await client.call_tool("files__echo", {"text": "ok"})).content[0].text == "ok"

    run(main)


def test_a_50_mb_upstream_result_reaches_the_client_trimmed(config, connected):
    async def main():
        async with connected(Proxy(config(only=["result_budget"]))) as client:
            result = await client.call_tool("files__big", {"size": 50_000_000})
            outcome = result.meta[META_KEY]
            assert outcome["truncated"] is True and outcome["artifact"]
            assert len(result.content[0].text) < 40_000

    run(main)
