"""One upstream MCP server: kept connected by a supervisor task, restarted with backoff.

The SDK's ``Client`` is an async context manager whose cancel scopes belong to the task that
entered it, so each upstream has one task that enters it, lists what the server offers, pings it
while idle, and leaves and re-enters it when the server dies or stops answering. Calls come from
the proxy's request handlers and only borrow the connected client.
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Discriminator, Tag, TypeAdapter
from toolhooks import ToolError

from ._config import McpTable, ServerTable
from ._stdio import StdioTransport
from ._tasks import TaskHandle

if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport there
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]

logger = logging.getLogger("toolhooks.mcp")
Changed = Callable[[], Awaitable[None]]


class UpstreamDown(Exception):
    """The upstream is not connected (failed to start, died, or stopped answering)."""


class Upstream:
    """A configured server and, while it runs, its connected client and listings."""

    def __init__(
        self,
        name: str,
        table: ServerTable,
        settings: McpTable,
        changed: Changed,
        local: Server[Any] | None = None,
    ) -> None:
        self.local = local
        self.name = name
        self.table = table
        self.settings = settings
        self._changed = changed
        self.client: Client | None = None
        self._stdio: StdioTransport | None = None
        self.tools: dict[str, types.Tool] = {}
        self.prompts: dict[str, types.Prompt] = {}
        self.resources: list[types.Resource] = []
        self.templates: list[types.ResourceTemplate] = []
        self.error: str | None = "not started yet"
        self.restarts = 0
        self.in_flight = 0
        """Calls waiting for this server's answer: a ping may queue behind a large one."""
        self.next_start: float | None = None
        self._lost = anyio.Event()
        self.settled = anyio.Event()
        """Set once the first start has connected or failed."""

    @property
    def call_timeout_s(self) -> float:
        return self.table.call_timeout_s or self.settings.call_timeout_s

    def _client(self) -> Client:
        table = self.table
        if self.local is not None:
            return Client(self.local, mode="legacy", cache=None)
        if table.url is not None:
            return Client(http_transport(table.url, table.headers), cache=None)
        assert table.command is not None  # the config model guarantees one of the two
        # Our own transport, not the SDK's stdio_client: its reader is quadratic in a line's
        # length (docs/decisions/mcp-proxy.md).
        self._stdio = StdioTransport(
            name=self.name,
            command=table.command,
            args=list(table.args),
            env=dict(table.env),
            cwd=table.cwd,
            max_line_bytes=int(self.settings.max_message_mb * 1_000_000),
        )
        return Client(self._stdio, cache=None)

    def _cut_off(self) -> str | None:
        """Why the transport ended the connection itself (a message over the limit), if it did."""
        return self._stdio.failure if self._stdio is not None else None

    async def supervise(self) -> None:
        """Connect, serve until the connection is lost, wait, reconnect; never returns."""
        delay = self.settings.restart_backoff_s
        while True:
            started = time.monotonic()
            # The deadline covers the handshake inside the client's own task groups too, and is
            # lifted once the server has listed its tools.
            starting = anyio.CancelScope(
                deadline=anyio.current_time() + self.settings.start_timeout_s
            )
            try:
                with starting:
                    async with self._client() as client:
                        await self._list(client)
                        starting.deadline = math.inf
                        self.client, self.error, self._lost = client, None, anyio.Event()
                        logger.info(
                            "MCP server %r connected (%d tools)", self.name, len(self.tools)
                        )
                        await self._changed()
                        self.settled.set()
                        await self._watch(client)
                if starting.cancelled_caught:
                    self.error = f"no answer within {self.settings.start_timeout_s:g} s"
            except Exception as exc:  # the proxy outlives whatever the upstream does
                self.error = self._cut_off() or _describe(exc, self.settings.start_timeout_s)
            except BaseException as exc:  # an ExceptionGroup from the transport's task group
                if not isinstance(exc, BaseExceptionGroup) or exc.subgroup(Exception) is None:
                    raise
                self.error = self._cut_off() or _describe(exc, self.settings.start_timeout_s)
            finally:
                was_up = self.client is not None
                self.client = None
                self.tools, self.prompts, self.resources, self.templates = {}, {}, [], []
                if was_up:
                    with anyio.CancelScope(shield=True):
                        await self._changed()
            if time.monotonic() - started > 4 * self.settings.restart_max_s:
                delay = self.settings.restart_backoff_s  # it ran a good while: start over
            self.restarts += 1
            self.settled.set()
            self.next_start = time.monotonic() + delay
            logger.warning(
                "MCP server %r is down (%s); restart in %g s", self.name, self.error, delay
            )
            await anyio.sleep(delay)
            delay = min(delay * 2, self.settings.restart_max_s)

    async def _list(self, client: Client) -> None:
        caps = client.session.server_capabilities
        tools: dict[str, types.Tool] = {}
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.update((tool.name, tool) for tool in page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        self.tools = tools
        # Prompts and resources are extras: a server that lists them badly still serves tools.
        with contextlib.suppress(MCPError):
            if caps is not None and caps.prompts is not None:
                self.prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        with contextlib.suppress(MCPError):
            if caps is not None and caps.resources is not None:
                self.resources = list((await client.list_resources()).resources)
        with contextlib.suppress(MCPError):
            if caps is not None and caps.resources is not None:
                self.templates = list((await client.list_resource_templates()).resource_templates)

    async def _watch(self, client: Client) -> None:
        """Return when the connection is lost: a failed call said so, or a ping went unanswered."""
        interval = self.settings.health_interval_s
        while True:
            with anyio.move_on_after(interval):
                await self._lost.wait()
                self.error = self.error or "the connection was lost"
                return
            limit = self.settings.health_timeout_s
            try:
                with anyio.fail_after(limit):
                    await client.session.send_ping()
            except MCPError as exc:
                if not _closed(exc):
                    continue  # it answered, if only "no such method" (2026-07-28 has no ping)
                self.error = self._cut_off() or "the connection closed"
                return
            except Exception as exc:
                if self.in_flight and isinstance(exc, TimeoutError):
                    # Its answer to a call is still arriving (a 50 MB result takes seconds to
                    # write and read) and the ping's answer waits behind it: not a dead server.
                    # A call that really hangs ends at call_timeout_s, and the next ping decides.
                    continue
                self.error = f"it stopped answering pings ({_describe(exc, limit)})"
                return

    def down_reason(self) -> str:
        wait = ""
        if self.next_start is not None:
            wait = f"; restarting in {max(0.0, self.next_start - time.monotonic()):.1f} s"
        return f"MCP server '{self.name}' is not running ({self.error}{wait})"

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """The upstream's real call; every failure is a ToolError with text for the model."""
        client = self.client
        if client is None:
            raise ToolError(self.down_reason())
        timeout = self.call_timeout_s
        self.in_flight += 1
        try:
            # anyio.fail_after's own code, without its two generator context managers: a
            # third of its cost, and fail_after was a third of the proxy's own work on a call
            # (BENCHMARKS.md, choices made for speed). A deadline that passed is the same TimeoutError.
            scope = anyio.CancelScope(deadline=anyio.current_time() + timeout)
            with scope:
                return await client.call_tool(tool, arguments, read_timeout_seconds=timeout)
            if scope.cancelled_caught and anyio.current_time() >= scope.deadline:
                raise TimeoutError
            raise ToolError(f"MCP server '{self.name}': the call to {tool} was cancelled")
        except TimeoutError:
            raise ToolError(
                f"MCP server '{self.name}' did not answer {tool} within {timeout:g} s"
            ) from None
        except MCPError as exc:
            if _closed(exc):
                cut_off = self._cut_off()
                self.error = (
                    self.error or cut_off or f"the connection closed during a call to {tool}"
                )
                self._lost.set()
                if cut_off is not None:
                    raise ToolError(f"MCP server '{self.name}': {cut_off}") from None
                raise ToolError(f"MCP server '{self.name}' died during the call ({exc})") from None
            raise ToolError(f"MCP server '{self.name}' refused the call: {exc}") from None
        finally:
            self.in_flight -= 1

    def speaks_tasks(self) -> bool:
        """Connected with the 2026-07-28 protocol, where a tools/call may answer with a task."""
        client = self.client
        return client is not None and client.session.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def create_task(
        self, tool: str, arguments: dict[str, Any], ttl_ms: int
    ) -> TaskHandle | types.CallToolResult:
        """A task-augmented tools/call: the upstream's task, or its result when it chose to
        answer at once. Failures are ToolErrors, as for ``call_tool``."""
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(
                name=tool, arguments=arguments, task=types.TaskMetadata(ttl=ttl_ms)
            )
        )
        return await self._request(request, TASK_OR_RESULT, tool)  # type: ignore[no-any-return]

    async def task_request(
        self, method: str, task_id: str, result_type: type[Any], timeout: float
    ) -> Any:
        """``tasks/get`` or ``tasks/result`` for one of this upstream's tasks."""
        models = {"tasks/get": types.GetTaskRequest, "tasks/result": types.GetTaskPayloadRequest}
        request = models[method](params={"taskId": task_id})
        return await self._request(request, result_type, method, timeout)

    async def cancel_task(self, task_id: str) -> None:
        """Best effort: the task may have ended, or the upstream gone."""
        with contextlib.suppress(ToolError), anyio.move_on_after(5):
            request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
            await self._request(request, types.CancelTaskResult, "tasks/cancel", 5.0)

    async def _request(
        self, request: Any, result_type: Any, what: str, timeout: float | None = None
    ) -> Any:
        client = self.client
        if client is None:
            raise ToolError(self.down_reason())
        limit = timeout or self.call_timeout_s
        self.in_flight += 1
        try:
            with anyio.fail_after(limit):
                return await client.session.send_request(
                    request, result_type, request_read_timeout_seconds=limit
                )
        except TimeoutError:
            raise ToolError(
                f"MCP server '{self.name}' did not answer {what} within {limit:g} s"
            ) from None
        except MCPError as exc:
            if _closed(exc):
                cut_off = self._cut_off()
                self.error = self.error or cut_off or f"the connection closed during {what}"
                self._lost.set()
                if cut_off is not None:
                    raise ToolError(f"MCP server '{self.name}': {cut_off}") from None
            raise ToolError(f"MCP server '{self.name}' refused {what}: {exc}") from None
        except ValueError as exc:  # an answer that is not what the protocol says
            raise ToolError(f"MCP server '{self.name}' answered {what} wrongly: {exc}") from None
        finally:
            self.in_flight -= 1

    async def borrow(self) -> Client:
        client = self.client
        if client is None:
            raise UpstreamDown(self.down_reason())
        return client


def _answer_kind(value: Any) -> str:
    tag = value.get("resultType") if isinstance(value, dict) else None
    return "task" if tag == "task" else "result"


TASK_OR_RESULT: TypeAdapter[TaskHandle | types.CallToolResult] = TypeAdapter(
    Annotated[
        Annotated[TaskHandle, Tag("task")] | Annotated[types.CallToolResult, Tag("result")],
        Discriminator(_answer_kind),
    ]
)
"""A task-augmented tools/call's answer: a task, or the result when the upstream chose so."""


def _closed(exc: MCPError) -> bool:
    return exc.code == CONNECTION_CLOSED


def _describe(exc: BaseException, timeout: float) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, MCPError) and _closed(exc):
        return "it exited or closed the connection (see its messages on stderr)"
    text = " ".join(str(exc).split())
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or text}"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def listings(
    settings: McpTable,
) -> tuple[dict[str, dict[str, types.Tool]], dict[str, str]]:
    """Start every upstream once and read its tools: (tools by server, why each failed)."""

    async def unchanged() -> None:
        return None

    upstreams = {
        name: Upstream(name, table, settings, unchanged) for name, table in settings.servers.items()
    }
    listed: dict[str, dict[str, types.Tool]] = {}
    down: dict[str, str] = {}
    async with anyio.create_task_group() as group:
        for upstream in upstreams.values():
            group.start_soon(upstream.supervise)
        for name, upstream in upstreams.items():
            await upstream.settled.wait()
            if upstream.client is None:
                down[name] = upstream.error or "unknown"
            else:
                listed[name] = dict(upstream.tools)
        group.cancel_scope.cancel()
    return listed, down


@asynccontextmanager
async def http_transport(url: str, headers: dict[str, str]) -> AsyncIterator[TransportStreams]:
    """The SDK's streamable HTTP client transport, with the configured headers on every request."""
    async with (
        create_mcp_http_client(headers=headers or None) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams
