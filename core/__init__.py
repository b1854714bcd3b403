"""toolhooks: a plugin pipeline between an AI agent's model and its tools."""

from ._approvals import ApprovalUnavailable
from ._errors import (
    ConfigError,
    HookResultError,
    InvalidToolCall,
    ParamsError,
    PluginLoadError,
    PluginValidationError,
    ToolhooksError,
)
from ._events import EVENT_NAMES, Event
from ._frozen import FrozenDict, FrozenList
from ._hookimpl import hookimpl
from ._inventory import HandlerInfo, PluginInfo
from ._models import REMOVE, UNSET, Origin, Sender, Status, ToolCall, ToolSpec
from ._results import (
    AfterToolCallResult,
    ApprovalDecision,
    ApprovalRequest,
    BeforeToolCallResult,
    Decision,
    Outcome,
    PendingApproval,
    ToolError,
    ToolResult,
)
from ._runtime import Runtime
from ._scope import emit
from ._store import AmbiguousId, ApprovalStore, Grant, StoredApproval, StoreError
from ._store_memory import MemoryStore
from ._store_sqlite import SQLiteStore

# Re-exported lazily: these live in built-in plugin packages that import toolhooks themselves.
_LAZY = {
    "prune_context": "toolhooks.plugins.context_pruning",
    "PruneReport": "toolhooks.plugins.context_pruning",
    "read_artifact": "toolhooks.plugins.result_budget",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolhooks' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "EVENT_NAMES",
    "REMOVE",
    "UNSET",
    "AfterToolCallResult",
    "AmbiguousId",
    "ApprovalDecision",
    "ApprovalRequest",
    "ApprovalStore",
    "ApprovalUnavailable",
    "BeforeToolCallResult",
    "ConfigError",
    "Decision",
    "Event",
    "FrozenDict",
    "FrozenList",
    "Grant",
    "HandlerInfo",
    "HookResultError",
    "InvalidToolCall",
    "MemoryStore",
    "Origin",
    "Outcome",
    "ParamsError",
    "PendingApproval",
    "PluginInfo",
    "PluginLoadError",
    "PluginValidationError",
    "PruneReport",
    "Runtime",
    "SQLiteStore",
    "Sender",
    "Status",
    "StoreError",
    "StoredApproval",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "ToolhooksError",
    "emit",
    "hookimpl",
    "prune_context",
    "read_artifact",
]
