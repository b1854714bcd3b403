"""Upstreams that fail to start, die or hang: their tools leave the list, calls get a clear error,
the upstream is restarted with backoff, and the proxy itself keeps serving."""

from __future__ import annotations

import anyio
import mcp_types as types
from toolhooks import hookimpl
from toolhooks_mcp import META_KEY, Proxy


class Events:
    def __init__(self):
        self.seen = []

    @hookimpl
    def on_event(self, event):
        self.seen.append((event.event, dict(event.data)))


async def names(client):
    return {tool.name for tool in (await client.list_tools()).tools}


async def until(condition, seconds=60.0):
    """Poll ``condition`` (an async callable) until it is true; fail after ``seconds``."""
    with anyio.fail_after(seconds):
        while not await condition():
            await anyio.sleep(0.05)


def test_a_server_that_cannot_start_leaves_the_others_serving(config, log, upstream, connected):
    servers = {"files": upstream(log), "broken": upstream(log, UPSTREAM_FAIL_AT_START="1")}

    async def main():
        proxy = Proxy(config(servers=servers))
        async with connected(proxy) as client:
            listed = await names(client)
            assert "files__echo" in listed and not any(
                name.startswith("broken__") for name in listed
            )
            result = await client.call_tool("broken__echo", {"text": "hi"})
            assert result.is_error
            assert result.content[0].text.startswith("MCP server 'broken' is not running (")
            assert (await client.call_tool("files__echo", {"text": "hi"})).content[0].text == "hi"
            assert proxy.upstreams["broken"].restarts >= 1

    anyio.run(main)


def test_a_server_that_hangs_at_start_times_out(config, log, upstream, connected):
    servers = {"slow": upstream(log, UPSTREAM_HANG_AT_START="1")}

    async def main():
        proxy = Proxy(config(servers=servers, start_timeout_s=1.0))
        async with connected(proxy) as client:
            assert await names(client) == set()

            async def timed_out():  # the stuck process takes a moment to stop
                return "no answer within 1 s" in proxy.upstreams["slow"].down_reason()

            await until(timed_out)

    anyio.run(main)


def test_a_crashed_server_leaves_the_list_and_comes_back(config, log, received, connected):
    changes = []

    async def on_message(message):
        if isinstance(message, types.ServerNotification) and isinstance(
            message, types.ToolListChangedNotification
        ):
            changes.append(message)

    async def main():
        async with connected(Proxy(config()), "legacy", message_handler=on_message) as client:
            assert (await client.call_tool("files__echo", {"text": "before"})).content[
                0
            ].text == "before"
            crashed = await client.call_tool("files__crash", {})
            assert (
                crashed.is_error
                and "MCP server 'files' died during the call" in crashed.content[0].text
            )

            async def restarted():
                return "files__echo" in await names(client) and len(changes) >= 2

            await until(restarted)
            assert (await client.call_tool("files__echo", {"text": "after"})).content[
                0
            ].text == "after"

    anyio.run(main)
    pids = [entry["pid"] for entry in received(log)]
    assert len(pids) == 3 and pids[0] == pids[1] != pids[2]


def test_a_hung_call_times_out_and_is_audited(config, log, upstream, connected):
    servers = {"files": {**upstream(log), "call_timeout_s": 1.0}}
    events = Events()

    async def main():
        async with connected(
            Proxy(config(servers=servers, only=["Events"]), plugins=[events])
        ) as client:
            result = await client.call_tool("files__sleep", {"seconds": 30})
            assert result.is_error and result.meta[META_KEY]["status"] == "error"
            assert result.content[0].text == "MCP server 'files' did not answer sleep within 1 s"
            assert (await client.call_tool("files__echo", {"text": "still here"})).content[
                0
            ].text == "still here"

    anyio.run(main)
    finished = [data for name, data in events.seen if name == "tool.finished"]
    assert finished[0]["status"] == "error" and "did not answer" in finished[0]["error"]


def test_resources_and_prompts_pass_through(config, connected, era):
    async def main():
        async with connected(Proxy(config()), era) as client:
            resources = (await client.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["note://readme"]
            read = await client.read_resource("note://readme")
            assert read.contents[0].text == "contents of note://readme"
            prompts = (await client.list_prompts()).prompts
            assert [p.name for p in prompts] == ["files__greet"]
            got = await client.get_prompt("files__greet", {"who": "Ada"})
            assert got.messages[0].content.text == "Hello, Ada"

    anyio.run(main)
