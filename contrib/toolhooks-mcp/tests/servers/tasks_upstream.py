"""A task-capable MCP server (stdio), on the SDK's low-level Server: a tools/call with ``task``
answers ``resultType: "task"``, and tasks/get, tasks/result, tasks/cancel and tasks/list follow
the spec's types. Every tools/call and tasks/* request is a line in $UPSTREAM_LOG.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from datetime import datetime, timezone
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

LOG = os.environ.get("UPSTREAM_LOG")
SECRET = "sk-live-1234567890"
TASKED = types.ToolExecution(task_support="optional")
TOOLS = [
    types.Tool(
        name="report",
        description="A long report (the secret is in it).",
        input_schema={"type": "object", "properties": {"size": {"type": "integer"}}},
        execution=TASKED,
    ),
    types.Tool(
        name="deploy",
        description="Deploy a service.",
        input_schema={"type": "object", "properties": {"target": {"type": "string"}}},
        execution=TASKED,
    ),
    types.Tool(
        name="wait",
        description="Runs until cancelled.",
        input_schema={"type": "object", "properties": {}},
        execution=TASKED,
    ),
]
TASKS: dict[str, dict[str, Any]] = {}


def record(what: str, **data: Any) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"what": what, **data}) + "\n")


def now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def result_of(name: str, args: dict[str, Any]) -> types.CallToolResult:
    if name == "report":
        size = int(args.get("size", 100))
        text = f"quarterly report; key={SECRET}\n" + "r" * size
        return types.CallToolResult(content=[types.TextContent(text=text)])
    if name == "deploy":
        return types.CallToolResult(content=[types.TextContent(text=f"deployed {args}")])
    raise MCPError(code=INVALID_PARAMS, message=f"no tool {name}")


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
    args = params.arguments or {}
    record("tools/call", tool=params.name, arguments=args, task=params.task is not None)
    if params.task is None:
        return result_of(params.name, args)
    task_id = uuid.uuid4().hex
    TASKS[task_id] = {
        "tool": params.name,
        "args": args,
        "status": "working",
        "created": now(),
        "ttl": params.task.ttl,
        "ended": anyio.Event(),
        "since": time.monotonic(),
    }
    if params.name != "wait":
        TASKS[task_id]["status"] = "completed"
        TASKS[task_id]["ended"].set()
    return {"resultType": "task", "task": task_of(task_id)}


def task_of(task_id: str) -> dict[str, Any]:
    task = TASKS.get(task_id)
    if task is None:
        raise MCPError(code=INVALID_PARAMS, message=f"no task {task_id}")
    return types.Task(
        task_id=task_id,
        status=task["status"],
        status_message=f"{task['tool']} is {task['status']}",
        created_at=task["created"],
        last_updated_at=now(),
        ttl=task["ttl"],
        poll_interval=50,
    ).model_dump(by_alias=True, mode="json", exclude_none=True)


async def tasks_get(ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
    record("tasks/get", task=params.task_id)
    return task_of(params.task_id)


async def tasks_result(ctx: Any, params: types.GetTaskPayloadRequestParams) -> Any:
    record("tasks/result", task=params.task_id)
    task_of(params.task_id)
    task = TASKS[params.task_id]
    await task["ended"].wait()
    if task["status"] == "cancelled":
        raise MCPError(code=INVALID_PARAMS, message=f"task {params.task_id} was cancelled")
    return result_of(task["tool"], task["args"])


async def tasks_cancel(ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
    record("tasks/cancel", task=params.task_id)
    task_of(params.task_id)
    TASKS[params.task_id]["status"] = "cancelled"
    TASKS[params.task_id]["ended"].set()
    return task_of(params.task_id)


async def tasks_list(ctx: Any, params: Any) -> dict[str, Any]:
    return {"tasks": [task_of(task_id) for task_id in TASKS]}


def build() -> Server[Any]:
    server: Server[Any] = Server("tasks", on_list_tools=list_tools, on_call_tool=call_tool)
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, tasks_get)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, tasks_result)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, tasks_cancel)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, tasks_list)
    server.extensions["io.modelcontextprotocol/tasks"] = {}
    return server


async def main() -> None:
    server = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
