"""The proxy: one runtime, the upstream servers, and the MCP server the client talks to.

Built on the SDK's low-level ``Server``. tools/list is the runtime's ``visible_tools`` for the
caller; tools/call runs ``rt.acall`` with the upstream's real call as ``execute``; resources and
prompts pass through unchanged.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from toolhooks import ApprovalStore, Runtime, ToolCall

from ._approval import ClientApprover, resume_round
from ._config import McpTable, ServerTable
from ._results import Holder, call_result, upstream_value
from ._scope import Caller, RequestScope, caller_of, current_request
from ._tools import Route, routes_for, spec_for
from ._upstream import Upstream

logger = logging.getLogger("toolhooks.mcp")


class Proxy:
    """toolhooks in front of the ``[mcp.servers]`` of a config, served to one MCP client or many.

    ``config`` is read like ``Runtime(config=...)``: None finds ``$TOOLHOOKS_CONFIG``,
    ``toolhooks.toml`` or ``[tool.toolhooks]``. ``plugins`` are registered next to the installed
    ones. ``local`` maps server names to in-process SDK ``Server`` objects, connected without a
    process (their ``[mcp.servers]`` table, if any, still gives trust, tags and timeouts).
    """

    def __init__(
        self,
        config: Any = None,
        *,
        plugins: Iterable[Any] = (),
        approval_store: ApprovalStore | None = None,
        load_entrypoints: bool = True,
        local: Mapping[str, Server[Any]] | None = None,
    ) -> None:
        self.approver = ClientApprover()
        self.runtime = Runtime(
            plugins=plugins,
            config=config,
            approver=self.approver,
            approval_store=approval_store,
            load_entrypoints=load_entrypoints,
        )
        table = self.runtime.config.tables.get("mcp")
        self.settings = table if isinstance(table, McpTable) else McpTable()
        self.approver.setup(self.runtime, self.settings)
        self.runtime.visible_tools()  # a config naming a plugin that does not exist fails here
        self.session_id = "mcp-" + os.urandom(6).hex()
        self.token_entries = {entry.sender: entry for entry in self.settings.auth.tokens}
        servers = dict(self.settings.servers)
        for name in local or {}:  # in-process servers (tests, benchmarks): no process to start
            servers.setdefault(name, ServerTable(command="(in-process)"))
        self.settings = self.settings.model_copy(update={"servers": servers})
        self.upstreams = {
            name: Upstream(name, table, self.settings, self._changed, (local or {}).get(name))
            for name, table in servers.items()
        }
        self.routes: dict[str, Route] = {}
        self.collisions: dict[str, str] = {}
        """Exposed names that two upstream tools share, each with why it is withheld."""
        self.prompt_routes: dict[str, tuple[str, str]] = {}
        self._bus = InMemorySubscriptionBus()
        self._listeners: dict[str, Any] = {}  # handshake-era sessions, by connection
        self.server = self._build_server()

    # -- the MCP server ----------------------------------------------------------------------

    def _build_server(self) -> Server[Any]:
        server: Server[Any] = Server(
            "toolhooks",
            version=_version(),
            instructions="Tools of the configured MCP servers, through the toolhooks pipeline.",
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        # The SDK's sealing stops a client from forging or altering request state; the approval
        # it names is consumed once by the store, which stops a replay within the seal's TTL.
        boundary = RequestStateBoundary(
            RequestStateSecurity.ephemeral(), default_audience="toolhooks"
        )
        server.middleware.append(boundary)
        return server

    def initialization_options(self) -> Any:
        changed = NotificationOptions(
            tools_changed=True, prompts_changed=True, resources_changed=True
        )
        return self.server.create_initialization_options(changed)

    def _remember(self, ctx: Any, caller: Caller) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._listeners[caller.connection] = ctx.session

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        caller = caller_of(ctx, self)
        self._remember(ctx, caller)
        visible = {
            spec.name
            for spec in self.runtime.visible_tools(caller.sender, agent_id=caller.agent_id)
        }
        routes = self.routes
        return types.ListToolsResult(
            tools=[route.listed for name, route in routes.items() if name in visible]
        )

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        caller = caller_of(ctx, self)
        self._remember(ctx, caller)
        route = self.routes.get(params.name)
        if route is None and params.name in self.collisions:
            raise MCPError(code=INVALID_PARAMS, message=self.collisions[params.name])
        if route is None and (down := self._down_owner(params.name)) is not None:
            text = down.down_reason()
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        if route is None or not self.runtime.is_visible(
            params.name, caller.sender, agent_id=caller.agent_id
        ):
            # Hidden and unknown look the same: a client learns nothing about what it cannot see.
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        upstream = self.upstreams[route.server]
        holder = Holder()

        async def execute(arguments: dict[str, Any]) -> Any:
            holder.result = await upstream.call_tool(route.tool, arguments)
            return upstream_value(holder.result)

        scope = RequestScope(ctx=ctx, caller=caller)
        token = current_request.set(scope)
        try:
            if params.request_state is not None:
                return await resume_round(self, params, caller, execute, holder)
            call = ToolCall(
                name=params.name,
                params=params.arguments or {},
                session_id=caller.session_id,
                agent_id=caller.agent_id,
                sender=caller.sender,
            )
            outcome = await self.runtime.acall(call, execute)
        finally:
            current_request.reset(token)
        if outcome.status == "pending" and outcome.pending is not None and scope.asked_client:
            return self.approver.input_required(outcome.pending, caller)
        return call_result(outcome, holder.result)

    def _down_owner(self, name: str) -> Upstream | None:
        """The upstream that is not running whose tools ``name`` would be one of."""
        for server, upstream in self.upstreams.items():
            if upstream.client is not None:
                continue
            if not self.settings.prefix or name.startswith(server + self.settings.separator):
                return upstream
        return None

    # -- resources and prompts: passed through ---------------------------------------------------

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[r for up in self.upstreams.values() for r in up.resources]
        )

    async def _list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[t for up in self.upstreams.values() for t in up.templates]
        )

    async def _read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        owners = [
            up for up in self.upstreams.values() if any(str(r.uri) == uri for r in up.resources)
        ]
        candidates = owners or [up for up in self.upstreams.values() if up.templates]
        problem = f"Unknown resource: {uri}"
        for upstream in candidates:
            client = upstream.client
            if client is None:
                problem = upstream.down_reason()
                continue
            try:
                return await client.read_resource(uri)
            except MCPError as exc:
                problem = str(exc)
        raise MCPError(code=INVALID_PARAMS, message=problem)

    async def _list_prompts(self, ctx: Any, params: Any) -> types.ListPromptsResult:
        prompts = []
        for name, (server, prompt) in self.prompt_routes.items():
            listed = self.upstreams[server].prompts.get(prompt)
            if listed is not None:
                prompts.append(listed.model_copy(update={"name": name}))
        return types.ListPromptsResult(prompts=prompts)

    async def _get_prompt(
        self, ctx: Any, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        found = self.prompt_routes.get(params.name)
        if found is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {params.name}")
        upstream = self.upstreams[found[0]]
        client = upstream.client
        if client is None:
            raise MCPError(code=INVALID_PARAMS, message=upstream.down_reason())
        return await client.get_prompt(found[1], params.arguments)

    # -- upstream changes ------------------------------------------------------------------------

    async def _changed(self) -> None:
        """An upstream connected or went away: rebuild the names and tell the clients."""
        routes: dict[str, Route] = {}
        prompts: dict[str, tuple[str, str]] = {}
        owners: dict[str, list[Route]] = {}
        settings = self.settings
        for server, upstream in self.upstreams.items():
            table = settings.servers[server]
            found = routes_for(settings, server, table, list(upstream.tools.values()))
            for name, route in found.items():
                owners.setdefault(name, []).append(route)
                self.runtime.add_tool(spec_for(name, table, upstream.tools[route.tool]))
            routes.update(found)
            for prompt in upstream.prompts:
                key = prompt if not settings.prefix else f"{server}{settings.separator}{prompt}"
                prompts[key] = (server, prompt)
        # Two upstream tools under one exposed name (server "a" tool "_x" and server "a_" tool
        # "x" are both "a___x"): neither is offered, and a call by that name is refused naming
        # both, so no call can reach a server the client did not mean.
        collisions = {
            name: "Tool name "
            + repr(name)
            + " is ambiguous: it names "
            + " and ".join(f"tool {r.tool!r} of server {r.server!r}" for r in found_by)
            + "; neither is offered (rename a server in [mcp.servers] or set a separator)"
            for name, found_by in owners.items()
            if len(found_by) > 1
        }
        for name, reason in collisions.items():
            if name not in self.collisions:
                logger.warning("toolhooks-mcp: %s", reason)
            routes.pop(name, None)
        self.routes, self.prompt_routes, self.collisions = routes, prompts, collisions
        await self._notify()

    async def _notify(self) -> None:
        for event in (ToolsListChanged(), PromptsListChanged(), ResourcesListChanged()):
            await self._bus.publish(event)
        for key, session in list(self._listeners.items()):
            try:
                await session.send_tool_list_changed()
                await session.send_prompt_list_changed()
                await session.send_resource_list_changed()
            except Exception:  # that client went away
                self._listeners.pop(key, None)

    # -- running -----------------------------------------------------------------------------

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Proxy]:
        """Start every upstream; on entry each has connected or failed once (bounded wait)."""
        async with anyio.create_task_group() as group:
            for upstream in self.upstreams.values():
                group.start_soon(upstream.supervise)
            with anyio.move_on_after(self.settings.start_timeout_s + 1):
                for upstream in self.upstreams.values():
                    await upstream.settled.wait()
            try:
                yield self
            finally:
                group.cancel_scope.cancel()
                self.runtime.close()

    async def serve_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        async with self.running(), stdio_server() as (read, write):
            await self.server.run(read, write, self.initialization_options())


def _version() -> str:
    """The installed toolhooks-mcp version: what a client sees as ``serverInfo.version``."""
    try:
        return importlib.metadata.version("toolhooks-mcp")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "0+unknown"
