"""Upstream tools as the runtime and the MCP client see them: names, tags, specs.

Tags decide what the policy fence lets through, so they come from the operator's config or from
the safe default: an annotation can only tighten. ``readOnlyHint`` gives ``read_only`` only when
the operator marked the server ``trusted``; every other tool is a ``side_effect``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mcp_types as types
from toolhooks import ToolSpec

from ._config import McpTable, ServerTable


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    """Where an exposed tool name goes: the upstream server and the tool's own name there."""

    server: str
    tool: str
    listed: types.Tool
    """What the proxy shows the client (renamed, outputSchema kept only when configured)."""


def exposed_name(settings: McpTable, server: str, tool: str) -> str:
    return tool if not settings.prefix else f"{server}{settings.separator}{tool}"


def tags_for(table: ServerTable, tool: types.Tool) -> frozenset[str]:
    configured = table.tools.get(tool.name)
    if configured is not None and configured.tags is not None:
        return frozenset(configured.tags)
    hints = tool.annotations
    read_only = hints is not None and hints.read_only_hint is True
    return frozenset({"read_only" if read_only and table.trusted else "side_effect", "mcp"})


def spec_for(name: str, table: ServerTable, tool: types.Tool) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=tool.description or "",
        parameters=dict(tool.input_schema),
        tags=tags_for(table, tool),
    )


def listed_tool(name: str, table: ServerTable, tool: types.Tool) -> types.Tool:
    """The upstream's tool under its exposed name. Hints stay (a client may show them), but
    they meant nothing to the policy unless the server is trusted."""
    update: dict[str, object] = {"name": name}
    if not table.output_schema:
        update["output_schema"] = None
    return tool.model_copy(update=update)


def routes_for(
    settings: McpTable, server: str, table: ServerTable, tools: list[types.Tool]
) -> dict[str, Route]:
    return {
        exposed_name(settings, server, tool.name): Route(
            server=server,
            tool=tool.name,
            listed=listed_tool(exposed_name(settings, server, tool.name), table, tool),
        )
        for tool in tools
    }
