"""toolhooks: a plugin pipeline between an AI agent's model and its tools."""

from ._errors import ConfigError, PluginLoadError, ToolhooksError
from ._events import EVENT_NAMES, Event
from ._frozen import FrozenDict, FrozenList, ParamsError
from ._hookimpl import hookimpl
from ._models import REMOVE, UNSET, InvalidToolCall, Origin, Sender, Status, ToolCall, ToolSpec
from ._registry import PluginValidationError
from ._results import (
    AfterToolCallResult,
    ApprovalDecision,
    ApprovalRequest,
    BeforeToolCallResult,
    HookResultError,
    Outcome,
    PendingApproval,
    ToolResult,
)
from ._runtime import PluginInfo, Runtime
from ._scope import emit

__all__ = [
    "EVENT_NAMES",
    "REMOVE",
    "UNSET",
    "AfterToolCallResult",
    "ApprovalDecision",
    "ApprovalRequest",
    "BeforeToolCallResult",
    "ConfigError",
    "Event",
    "FrozenDict",
    "FrozenList",
    "HookResultError",
    "InvalidToolCall",
    "Origin",
    "Outcome",
    "ParamsError",
    "PendingApproval",
    "PluginInfo",
    "PluginLoadError",
    "PluginValidationError",
    "Runtime",
    "Sender",
    "Status",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "ToolhooksError",
    "emit",
    "hookimpl",
]
