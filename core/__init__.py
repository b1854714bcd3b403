"""toolhooks: a plugin pipeline between an AI agent's model and its tools.

Every name below is imported when it is first used (PEP 562), not by ``import toolhooks``: the
``toolhooks`` command starts without pydantic, pluggy or the runtime, and ``--help`` answers in
a fraction of the time (see ``_EXPORTS``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

# The module that defines each public name. Importing them all up front cost 390 ms of the
# console script's 520 ms (`python -X importtime -m toolhooks --help`, shared 2-core machine).
_EXPORTS = {
    "ApprovalUnavailable": "toolhooks._approvals",
    "ConfigError": "toolhooks._errors",
    "HookResultError": "toolhooks._errors",
    "InvalidToolCall": "toolhooks._errors",
    "ParamsError": "toolhooks._errors",
    "PluginLoadError": "toolhooks._errors",
    "PluginValidationError": "toolhooks._errors",
    "ToolhooksError": "toolhooks._errors",
    "EVENT_NAMES": "toolhooks._events",
    "Event": "toolhooks._events",
    "FrozenDict": "toolhooks._frozen",
    "FrozenList": "toolhooks._frozen",
    "hookimpl": "toolhooks._hookimpl",
    "HandlerInfo": "toolhooks._inventory",
    "PluginInfo": "toolhooks._inventory",
    "REMOVE": "toolhooks._models",
    "UNSET": "toolhooks._models",
    "Origin": "toolhooks._models",
    "Sender": "toolhooks._models",
    "Status": "toolhooks._models",
    "ToolCall": "toolhooks._models",
    "ToolSpec": "toolhooks._models",
    "AfterToolCallResult": "toolhooks._results",
    "ApprovalDecision": "toolhooks._results",
    "ApprovalRequest": "toolhooks._results",
    "BeforeToolCallResult": "toolhooks._results",
    "Decision": "toolhooks._results",
    "Outcome": "toolhooks._results",
    "PendingApproval": "toolhooks._results",
    "ToolError": "toolhooks._results",
    "ToolResult": "toolhooks._results",
    "Runtime": "toolhooks._runtime",
    "emit": "toolhooks._scope",
    "AmbiguousId": "toolhooks._store",
    "ApprovalStore": "toolhooks._store",
    "Grant": "toolhooks._store",
    "StoredApproval": "toolhooks._store",
    "StoreError": "toolhooks._store",
    "MemoryStore": "toolhooks._store_memory",
    "SQLiteStore": "toolhooks._store_sqlite",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolhooks' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next use is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
]
