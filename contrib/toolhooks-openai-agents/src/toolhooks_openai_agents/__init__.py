"""toolhooks for the OpenAI Agents SDK: every function tool call goes through a toolhooks Runtime."""

from ._approval import BY, defer_to_sdk
from ._guard import GuardedTool, guard_agent, guard_tool, guard_tools
from ._resolve import aresolve, guard_run_config, resolve

__all__ = [
    "BY",
    "GuardedTool",
    "aresolve",
    "defer_to_sdk",
    "guard_agent",
    "guard_run_config",
    "guard_tool",
    "guard_tools",
    "resolve",
]
__version__ = "0.1.0"
