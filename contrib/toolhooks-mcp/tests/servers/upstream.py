"""A real MCP server the proxy tests put behind toolhooks (stdio, or HTTP with --http PORT).

Its tools record every call's arguments in $UPSTREAM_LOG (one JSON line each), so a test can
assert exactly what the upstream received.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

LOG = os.environ.get("UPSTREAM_LOG")
TOOLS = [
    types.Tool(
        name="echo",
        description="Say the text back.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="write_file",
        description="Write a file.",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
    types.Tool(
        name="profile",
        description="A user's profile, with structured content.",
        input_schema={"type": "object", "properties": {"user": {"type": "string"}}},
        output_schema={
            "type": "object",
            "properties": {"user": {"type": "string"}, "api_key": {"type": "string"}},
        },
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="big",
        description="A long text.",
        input_schema={"type": "object", "properties": {"size": {"type": "integer"}}},
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="channels",
        description="A result on another channel than text: structured, a resource, an image.",
        input_schema={
            "type": "object",
            "properties": {"kind": {"type": "string"}, "size": {"type": "integer"}},
        },
    ),
    types.Tool(
        name="fail",
        description="Always fails.",
        input_schema={"type": "object", "properties": {}},
    ),
    types.Tool(
        name="sleep",
        description="Sleep, then answer.",
        input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    types.Tool(
        name="crash",
        description="Exit the server process.",
        input_schema={"type": "object", "properties": {}},
    ),
]


def record(name: str, arguments: dict[str, Any]) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps({"tool": name, "arguments": arguments, "pid": os.getpid()}) + "\n"
            )


PREFIX = os.environ.get("UPSTREAM_TOOL_PREFIX", "")
"""Put before every tool name (a test makes two servers' names collide with it)."""


ECHO_DESCRIPTION = os.environ.get("UPSTREAM_ECHO_DESCRIPTION")
"""Replaces echo's description (a test changes a definition after it was pinned)."""


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    tools = [tool.model_copy(update={"name": PREFIX + tool.name}) for tool in TOOLS]
    if ECHO_DESCRIPTION is not None:
        tools[0] = tools[0].model_copy(update={"description": ECHO_DESCRIPTION})
    return types.ListToolsResult(tools=tools)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    params = params.model_copy(update={"name": params.name.removeprefix(PREFIX)})
    record(params.name, args)
    if params.name == "echo":
        return types.CallToolResult(content=[types.TextContent(text=str(args.get("text")))])
    if params.name == "write_file":
        text = f"wrote {len(str(args.get('content', '')))} bytes to {args.get('path')}"
        return types.CallToolResult(content=[types.TextContent(text=text)])
    if params.name == "profile":
        value = {"user": str(args.get("user", "ada")), "api_key": "sk-live-1234567890"}
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(value))], structured_content=value
        )
    if params.name == "big":
        size = int(args.get("size", 50_000))
        return types.CallToolResult(content=[types.TextContent(text="x" * size)])
    if params.name == "channels":
        return channels(str(args.get("kind")), int(args.get("size", 0)))
    if params.name == "fail":
        return types.CallToolResult(content=[types.TextContent(text="disk is full")], is_error=True)
    if params.name == "sleep":
        await anyio.sleep(float(args.get("seconds", 1)))
        return types.CallToolResult(content=[types.TextContent(text="slept")])
    if params.name == "crash":
        sys.stdout.flush()
        os._exit(3)
    raise ValueError(f"no tool {params.name}")


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[types.Resource(uri="note://readme", name="readme", mime_type="text/plain")]
    )


async def read_resource(
    ctx: Any, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=params.uri, text=f"contents of {params.uri}")]
    )


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[types.Prompt(name="greet", arguments=[types.PromptArgument(name="who")])]
    )


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    who = (params.arguments or {}).get("who", "world")
    return types.GetPromptResult(
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=f"Hello, {who}"))]
    )


SECRET = "sk-live-1234567890"


def channels(kind: str, size: int) -> types.CallToolResult:
    """The secret (or ``size`` characters) only where a text-only proxy would not look."""
    said = types.TextContent(text="done")
    if kind == "structured":
        value = {"api_key": SECRET, "filler": "y" * size}
        return types.CallToolResult(content=[said], structured_content=value)
    if kind == "resource":
        resource = types.TextResourceContents(
            uri="file:///config.env",
            text=f"API_KEY={SECRET}\n" + "z" * size,
            mime_type="text/plain",
        )
        return types.CallToolResult(content=[said, types.EmbeddedResource(resource=resource)])
    if kind == "image":
        image = types.ImageContent(data="aGVsbG8=", mime_type="image/png")
        return types.CallToolResult(content=[said, image])
    raise ValueError(f"no channel {kind}")


def build() -> Server[Any]:
    return Server(
        os.environ.get("UPSTREAM_NAME", "upstream"),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


async def serve_stdio() -> None:
    if os.environ.get("UPSTREAM_HANG_AT_START"):
        await anyio.sleep(3600)
    server = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def babble() -> None:
    """Not an MCP server at all: lines that are not JSON-RPC, then silence."""
    sys.stdout.write('this is not JSON-RPC\n{"jsonrpc": "2.0", "id": "x", "result"\n[1, 2\n')
    sys.stdout.flush()
    import time

    time.sleep(60)


def main() -> None:
    if os.environ.get("UPSTREAM_BABBLE"):
        babble()
        return
    if "--http" in sys.argv:
        import uvicorn

        port = int(sys.argv[sys.argv.index("--http") + 1])
        app = build().streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
        return
    if os.environ.get("UPSTREAM_FAIL_AT_START"):
        print("cannot start: missing credentials", file=sys.stderr)
        sys.exit(2)
    anyio.run(serve_stdio)


if __name__ == "__main__":
    main()
