"""tools/list and tools/call through the pipeline, with a real upstream over stdio, both eras."""

from __future__ import annotations

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from toolhooks import AfterToolCallResult, hookimpl
from toolhooks_mcp import META_KEY, Proxy


class RewritePaths:
    @hookimpl
    def before_tool_call(self, call):
        if call.name == "files__write_file":
            return {"params": {"path": "/sandbox/" + call.params["path"].lstrip("/")}}
        return None


class BlockEtc:
    @hookimpl
    def before_tool_call(self, call):
        if str(call.params.get("path", "")).startswith("/etc"):
            return {"block": True, "block_reason": "writes under /etc are not allowed"}
        return None


class HideWrites:
    @hookimpl
    def tool_visible(self, tool, sender, agent_id, origin):
        return tool.name != "files__write_file"


class RedactKeys:
    @hookimpl
    def after_tool_call(self, call, result):
        if "sk-live-" in result.content:
            return AfterToolCallResult(
                content=result.content.replace("sk-live-1234567890", "[redacted]")
            )
        return None


def run(test):
    return anyio.run(test)


def test_tools_are_listed_under_the_server_name_without_output_schema(config, connected, era):
    async def main():
        async with connected(Proxy(config()), era) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert {"files__echo", "files__write_file", "files__profile"} <= set(tools)
            assert tools["files__profile"].output_schema is None
            assert tools["files__echo"].input_schema["required"] == ["text"]

    run(main)


def test_separator_prefix_and_output_schema_are_configurable(config, log, upstream, connected):
    servers = {"files": {**upstream(log), "output_schema": True}}

    async def main():
        async with connected(Proxy(config(servers=servers, prefix=False))) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert "echo" in tools and tools["profile"].output_schema is not None

    run(main)


def test_rewritten_params_are_what_the_upstream_receives(config, log, received, connected, era):
    async def main():
        proxy = Proxy(config(only=["RewritePaths"]), plugins=[RewritePaths()])
        async with connected(proxy, era) as client:
            result = await client.call_tool(
                "files__write_file", {"path": "/notes.txt", "content": "hi"}
            )
            assert not result.is_error
            assert result.content[0].text == "wrote 2 bytes to /sandbox/notes.txt"
            assert result.meta[META_KEY]["status"] == "ok"

    run(main)
    assert [entry["arguments"] for entry in received(log)] == [
        {"path": "/sandbox/notes.txt", "content": "hi"}
    ]


def test_a_blocked_call_is_an_error_result_that_names_the_plugin(
    config, log, received, connected, era
):
    async def main():
        proxy = Proxy(config(only=["BlockEtc"]), plugins=[BlockEtc()])
        async with connected(proxy, era) as client:
            result = await client.call_tool(
                "files__write_file", {"path": "/etc/passwd", "content": "x"}
            )
            assert result.is_error
            assert "writes under /etc are not allowed" in result.content[0].text
            meta = result.meta[META_KEY]
            assert (meta["status"], meta["blocked_by"]) == ("blocked", "BlockEtc")
            assert meta["call_id"]

    run(main)
    assert received(log) == []


def test_a_hidden_tool_is_not_listed_and_calling_it_is_invalid_params(
    config, log, received, connected, era
):
    async def main():
        proxy = Proxy(config(only=["HideWrites"]), plugins=[HideWrites()])
        async with connected(proxy, era) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "files__write_file" not in names and "files__echo" in names
            for name in ("files__write_file", "files__nope"):
                with pytest.raises(MCPError) as caught:
                    await client.call_tool(name, {"path": "a", "content": "b"})
                assert caught.value.code == -32602
                assert caught.value.error.message == f"Unknown tool: {name}"

    run(main)
    assert received(log) == []


def test_a_redacted_result_drops_the_structured_content(config, connected, era):
    async def main():
        proxy = Proxy(config(only=["RedactKeys"]), plugins=[RedactKeys()])
        async with connected(proxy, era) as client:
            result = await client.call_tool("files__profile", {"user": "ada"})
            assert result.structured_content is None
            assert [block.text for block in result.content] == [
                '{"user": "ada", "api_key": "[redacted]"}'
            ]
            assert "sk-live" not in result.model_dump_json()

    run(main)


def test_an_unchanged_result_keeps_its_structured_content(config, connected):
    async def main():
        async with connected(Proxy(config())) as client:
            result = await client.call_tool("files__profile", {"user": "ada"})
            assert result.structured_content == {"user": "ada", "api_key": "sk-live-1234567890"}

    run(main)


def test_an_upstream_error_is_an_error_result_with_its_text(config, connected):
    async def main():
        async with connected(Proxy(config())) as client:
            result = await client.call_tool("files__fail", {})
            assert result.is_error and result.content[0].text == "disk is full"
            assert result.meta[META_KEY]["status"] == "error"
            assert result.meta[META_KEY]["blocked_by"] is None

    run(main)


def test_annotations_only_tighten_unless_the_server_is_trusted(config, log, upstream):
    async def tags(trusted):
        servers = {
            "files": {**upstream(log), "trusted": trusted, "tools": {"fail": {"tags": ["custom"]}}}
        }
        proxy = Proxy(config(servers=servers))
        async with proxy.running():
            return {spec.name: spec.tags for spec in proxy.runtime.tool_specs()}

    untrusted = anyio.run(tags, False)
    trusted = anyio.run(tags, True)
    assert "side_effect" in untrusted["files__echo"] and "read_only" not in untrusted["files__echo"]
    assert "read_only" in trusted["files__echo"] and "side_effect" not in trusted["files__echo"]
    assert "side_effect" in trusted["files__write_file"]  # no hint: a side effect, trusted or not
    assert trusted["files__fail"] == frozenset({"custom"})


class Who:
    def __init__(self):
        self.seen = []

    @hookimpl
    def before_tool_call(self, call):
        self.seen.append((call.sender.id if call.sender else None, call.agent_id, call.session_id))


def test_over_stdio_the_caller_is_the_configured_sender_and_agent(config, connected):
    who = Who()

    async def main():
        proxy = Proxy(config(only=["Who"], sender="ada", agent_id="claude-desktop"), plugins=[who])
        async with connected(proxy) as client:
            await client.call_tool("files__echo", {"text": "one"})
            await client.call_tool("files__echo", {"text": "two"})
        return proxy.session_id

    session = anyio.run(main)
    assert who.seen == [("ada", "claude-desktop", session)] * 2
