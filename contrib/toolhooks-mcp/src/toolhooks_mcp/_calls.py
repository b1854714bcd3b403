"""tools/list and tools/call: what the client may see, and each call through the runtime.

tools/list is the runtime's ``visible_tools`` for the caller. tools/call runs ``rt.acall`` with
the upstream's real call as ``execute`` and builds the client's ``CallToolResult`` from the
Outcome (``_results``). A hidden tool and an unknown one get the same answer, so a client learns
nothing about what it cannot see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from toolhooks import ToolCall

from ._approval import resume_round
from ._results import Holder, call_result, upstream_value
from ._scope import RequestScope, caller_of, current_request
from ._tasks import TaskHandle
from ._upstream import Upstream

if TYPE_CHECKING:
    from ._proxy import Proxy


async def list_tools(proxy: Proxy, ctx: Any) -> types.ListToolsResult:
    caller = caller_of(ctx, proxy)
    proxy.remember(ctx, caller)
    visible = {
        spec.name for spec in proxy.runtime.visible_tools(caller.sender, agent_id=caller.agent_id)
    }
    return types.ListToolsResult(
        tools=[route.listed for name, route in proxy.routes.items() if name in visible]
    )


async def call_tool(
    proxy: Proxy, ctx: Any, params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult | TaskHandle:
    caller = caller_of(ctx, proxy)
    proxy.remember(ctx, caller)
    name = params.name
    route = proxy.routes.get(name)
    if route is None and name in proxy.collisions:
        raise MCPError(code=INVALID_PARAMS, message=proxy.collisions[name])
    if route is None and name in proxy.withheld:
        raise MCPError(code=INVALID_PARAMS, message=proxy.withheld[name])
    if route is None and (down := down_owner(proxy, name)) is not None:
        text = down.down_reason()
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
    runtime = proxy.runtime
    if route is None or not runtime.is_visible(name, caller.sender, agent_id=caller.agent_id):
        # Hidden and unknown look the same: a client learns nothing about what it cannot see.
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name}")
    if (
        params.task is not None
        and proxy.tasks.group is not None
        and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        and params.request_state is None
    ):
        return await proxy.tasks.start(ctx, params, caller, route)
    upstream, tool = proxy.upstreams[route.server], route.tool
    holder = Holder()

    async def execute(arguments: dict[str, Any]) -> Any:
        holder.result = await upstream.call_tool(tool, arguments)
        return upstream_value(holder.result)

    scope = RequestScope(ctx=ctx, caller=caller)
    token = current_request.set(scope)
    try:
        if params.request_state is not None:
            return await resume_round(proxy, params, caller, execute, holder)
        call = ToolCall(
            name=name,
            params=params.arguments or {},
            session_id=caller.session_id,
            agent_id=caller.agent_id,
            sender=caller.sender,
            # The runtime would attach its spec to a copy of the call otherwise.
            spec=proxy.specs.get(name),
        )
        outcome = await runtime.acall(call, execute)
    finally:
        current_request.reset(token)
    if outcome.status == "pending" and outcome.pending is not None and scope.asked_client:
        return proxy.approver.input_required(outcome.pending, caller)
    return call_result(outcome, holder.result)


def down_owner(proxy: Proxy, name: str) -> Upstream | None:
    """The upstream that is not running whose tools ``name`` would be one of."""
    settings = proxy.settings
    for server, upstream in proxy.upstreams.items():
        if upstream.client is not None:
            continue
        if not settings.prefix or name.startswith(server + settings.separator):
            return upstream
    return None
