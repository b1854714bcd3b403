"""The proxy: one runtime, the upstream servers, and the MCP server the client talks to.

Built on the SDK's low-level ``Server``, whose handlers live by subject: tools/list and
tools/call through the runtime in ``_calls``, resources and prompts passed through in
``_passthrough``, the exposed names rebuilt on each upstream change in ``_catalog``. This module
wires them together and runs the upstreams.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
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
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from toolhooks import ApprovalStore, Runtime, ToolSpec, hookimpl
from toolhooks.kit import read_lock_table, write_lock_table

from ._approval import ClientApprover
from ._calls import call_tool, list_tools
from ._catalog import build_catalog
from ._config import McpTable, ServerTable
from ._passthrough import get_prompt, list_prompts, list_resources, list_templates, read_resource
from ._pins import Change, Pins, pins_from
from ._pins import render as render_pins
from ._scope import Caller, caller_of
from ._tasks import TASKS_EXTENSION, TaskHandle, Tasks
from ._tools import Route, exposed_name
from ._upstream import Upstream

logger = logging.getLogger("toolhooks.mcp")
ASK_PLUGIN = "mcp_pins"


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
        self.callers: dict[tuple[str | None, str], Caller] = {}
        """Who calls, by bearer token's client id and session (``_scope.caller_of``)."""
        servers = dict(self.settings.servers)
        for name in local or {}:  # in-process servers (tests, benchmarks): no process to start
            servers.setdefault(name, ServerTable(command="(in-process)"))
        self.settings = self.settings.model_copy(update={"servers": servers})
        self.upstreams = {
            name: Upstream(name, table, self.settings, self._changed, (local or {}).get(name))
            for name, table in servers.items()
        }
        self.routes: dict[str, Route] = {}
        self.specs: dict[str, ToolSpec] = {}
        """The runtime's spec of each routed tool, put on its calls (``_catalog``)."""
        self.collisions: dict[str, str] = {}
        """Exposed names that two upstream tools share, each with why it is withheld."""
        self.prompt_routes: dict[str, tuple[str, str]] = {}
        self.withheld: dict[str, str] = {}
        """Exposed names of tools whose definition is not the pinned one, each with why."""
        self.ask_changed: dict[str, str] = {}
        """Changed tools of ``on_change = "ask"`` servers: each call is approved first."""
        self._reported: set[tuple[object, ...]] = set()
        if any(table.on_change == "ask" for table in servers.values()):
            # Only then: a before handler costs every call its share (bench/mcp.py).
            self.runtime.register(_AskChanged(self.ask_changed), name=ASK_PLUGIN)
            if ASK_PLUGIN not in {info.name for info in self.runtime.plugins()}:
                # Switched off by [plugins] (only, disable): nothing would ask, so a changed
                # tool is withheld instead (fail closed).
                logger.warning(
                    "toolhooks-mcp: plugin %r is switched off by [plugins]: tools of "
                    'on_change = "ask" servers are withheld when they change',
                    ASK_PLUGIN,
                )
                servers = {
                    name: table.model_copy(update={"on_change": "withhold"})
                    if table.on_change == "ask"
                    else table
                    for name, table in servers.items()
                }
                self.settings = self.settings.model_copy(update={"servers": servers})
        self.tasks = Tasks(self)
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
        # Tasks (2026-07-28: the io.modelcontextprotocol/tasks extension's result type).
        server.add_request_handler("tasks/get", types.GetTaskRequestParams, self._task_get)
        server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, self._result)
        server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, self._cancel)
        server.add_request_handler("tasks/list", types.PaginatedRequestParams, self._task_list)
        server.extensions[TASKS_EXTENSION] = {}
        return server

    def initialization_options(self) -> Any:
        changed = NotificationOptions(
            tools_changed=True, prompts_changed=True, resources_changed=True
        )
        return self.server.create_initialization_options(changed)

    def remember(self, ctx: Any, caller: Caller) -> None:
        """A handshake-era session, kept to tell it when the lists change."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._listeners[caller.connection] = ctx.session

    # The handlers: tools in _calls, resources and prompts in _passthrough.

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return await list_tools(self, ctx)

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult | TaskHandle:
        return await call_tool(self, ctx, params)

    async def _task_get(self, ctx: Any, params: types.GetTaskRequestParams) -> Any:
        return await self.tasks.get(params.task_id, caller_of(ctx, self))

    async def _result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> Any:
        return await self.tasks.result(params.task_id, caller_of(ctx, self))

    async def _cancel(self, ctx: Any, params: types.CancelTaskRequestParams) -> Any:
        return await self.tasks.cancel(params.task_id, caller_of(ctx, self))

    async def _task_list(self, ctx: Any, params: Any) -> Any:
        return self.tasks.listing(caller_of(ctx, self))

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        return await list_resources(self)

    async def _list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return await list_templates(self)

    async def _read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await read_resource(self, params)

    async def _list_prompts(self, ctx: Any, params: Any) -> types.ListPromptsResult:
        return await list_prompts(self)

    async def _get_prompt(
        self, ctx: Any, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        return await get_prompt(self, params)

    # -- upstream changes ------------------------------------------------------------------------

    def pins(self) -> Pins | None:
        """The pinned tool definitions of the config's lock (re-read: ``mcp pin`` may have run)."""
        return pins_from(read_lock_table(self.runtime.config, "mcp"))

    async def _changed(self) -> None:
        """An upstream connected or went away: rebuild the names and tell the clients."""
        catalog = build_catalog(
            self.settings, self.upstreams, self.runtime, self.collisions, self.pins()
        )
        self.routes, self.prompt_routes = catalog.routes, catalog.prompts
        self.collisions, self.specs = catalog.collisions, catalog.specs
        self.withheld = catalog.withheld
        self.ask_changed.clear()
        self.ask_changed.update(catalog.ask)
        for change in catalog.changes:
            self._report(change)
        await self._notify()

    def _report(self, change: Change) -> None:
        """``mcp.tool_changed``, once per change per connection of its upstream."""
        upstream = self.upstreams[change.server]
        key = (change.server, upstream.restarts, change.tool, change.digests)
        if key in self._reported:
            return
        self._reported.add(key)
        action = self.settings.servers[change.server].on_change
        logger.warning("toolhooks-mcp: %s (%s)", change.text, action)
        self.runtime.emit(
            "mcp.tool_changed",
            tool=exposed_name(self.settings, change.server, change.tool),
            server=change.server,
            upstream_tool=change.tool,
            changed=list(change.what),
            action=action,
        )

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
            self.tasks.group = group
            group.start_soon(self.tasks.sweep)
            try:
                yield self
            finally:
                self.tasks.group = None
                group.cancel_scope.cancel()
                self.runtime.close()

    def pin(self) -> Path:
        """Pin the tool definitions of every connected upstream in the config's lock, as
        ``toolhooks mcp pin`` does, and return the lock's path (call it while running)."""
        listed = {
            name: dict(upstream.tools)
            for name, upstream in self.upstreams.items()
            if upstream.client is not None
        }
        return write_lock_table(self.runtime.config, "mcp", render_pins(listed))

    async def serve_http(
        self, host: str = "127.0.0.1", port: int = 8765, stop: anyio.Event | None = None
    ) -> None:
        """Serve streamable HTTP at ``http://HOST:PORT/mcp`` behind ``[mcp.auth]`` (bearer
        tokens, OAuth 2.1) until interrupted, or until ``stop`` is set."""
        from ._http import serve_http

        await serve_http(self, host, port, stop)

    async def serve_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        async with self.running(), stdio_server() as (read, write):
            await self.server.run(read, write, self.initialization_options())


class _AskChanged:
    """``on_change = "ask"``: a call to a tool whose definition changed since it was pinned
    waits for a person's approval, naming what changed."""

    def __init__(self, changed: dict[str, str]) -> None:
        self.changed = changed

    @hookimpl
    def before_tool_call(self, call: Any) -> Any:
        reason = self.changed.get(call.name)
        if reason is None:
            return None
        return {
            "require_approval": {
                "title": f"Call {call.name}, whose definition changed?",
                "description": f"{reason}. Review it, then pin it (toolhooks mcp pin).",
            }
        }


def _version() -> str:
    """The installed toolhooks-mcp version: what a client sees as ``serverInfo.version``."""
    try:
        return importlib.metadata.version("toolhooks-mcp")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "0+unknown"
