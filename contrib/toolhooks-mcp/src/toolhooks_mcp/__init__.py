"""toolhooks-mcp: the toolhooks pipeline in front of any MCP server, for any MCP client."""

from typing import Any

from ._config import (
    AuthTable,
    ClaimsTable,
    McpTable,
    OAuthTable,
    ServerTable,
    TokenTable,
    ToolTable,
)

# Lazily: `toolhooks --help` and config loading import this package, and the MCP SDK takes
# about a second to import on a loaded 2-core machine; only the proxy itself needs it.
_LAZY = {
    "Proxy": "toolhooks_mcp._proxy",
    "META_KEY": "toolhooks_mcp._results",
    "TaskHandle": "toolhooks_mcp._tasks",
    "TaskList": "toolhooks_mcp._tasks",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolhooks_mcp' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "META_KEY",
    "AuthTable",
    "ClaimsTable",
    "McpTable",
    "OAuthTable",
    "Proxy",
    "ServerTable",
    "TaskHandle",
    "TaskList",
    "TokenTable",
    "ToolTable",
]
