"""On 2026-07-28 a client hears of list changes through subscriptions/listen."""

from __future__ import annotations

import anyio
from mcp.client.subscriptions import ToolsListChanged
from toolhooks_mcp import Proxy


def test_a_modern_client_hears_the_tools_change_when_an_upstream_dies(config, connected):
    async def main():
        async with (
            connected(Proxy(config()), "2026-07-28") as client,
            client.listen(tools_list_changed=True) as subscription,
        ):
            await client.call_tool("files__crash", {})
            with anyio.fail_after(60):
                async for event in subscription:
                    return event
        return None

    assert isinstance(anyio.run(main), ToolsListChanged)
