"""toolhooks: a plugin pipeline between an AI agent's model and its tools.

Every name below is imported when it is first used (PEP 562), not by ``import toolhooks``: the
``toolhooks`` command starts without pydantic, pluggy or the runtime, and ``--help`` answers in
a fraction of the time (see ``_EXPORTS``).
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING`` (and importlib only in ``__getattr__``): each import costs
# the hook client (toolhooks._main) a share of its start; type checkers read any TYPE_CHECKING as
# True.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from .approvals._resolve import ApprovalUnavailable
    from .config._settings import LoadedConfig, load_config
    from .events._events import EVENT_NAMES, Event
    from .events._scope import emit
    from .loading._inventory import HandlerInfo, PluginInfo
    from .records._errors import (
        ConfigError,
        HookResultError,
        InvalidToolCall,
        ParamsError,
        PluginLoadError,
        PluginValidationError,
        ToolhooksError,
    )
    from .records._frozen import FrozenDict, FrozenList, thaw
    from .records._models import REMOVE, UNSET, Origin, Status, ToolCall, ToolSpec
    from .records._results import (
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
    from .records._sender import Sender
    from .registry._hookimpl import hookimpl
    from .runtime._runtime import Runtime
    from .stores._contract import AmbiguousId, ApprovalStore, Grant, StoredApproval, StoreError
    from .stores._memory import MemoryStore
    from .stores._sqlite import SQLiteStore

# The module that defines each public name. Importing them all up front cost 390 ms of the
# console script's 520 ms (`python -X importtime -m toolhooks --help`, shared 2-core machine).
_EXPORTS = {
    "ApprovalUnavailable": "toolhooks.approvals._resolve",
    "ConfigError": "toolhooks.records._errors",
    "HookResultError": "toolhooks.records._errors",
    "InvalidToolCall": "toolhooks.records._errors",
    "ParamsError": "toolhooks.records._errors",
    "PluginLoadError": "toolhooks.records._errors",
    "PluginValidationError": "toolhooks.records._errors",
    "ToolhooksError": "toolhooks.records._errors",
    "EVENT_NAMES": "toolhooks.events._events",
    "Event": "toolhooks.events._events",
    "LoadedConfig": "toolhooks.config._settings",
    "load_config": "toolhooks.config._settings",
    "thaw": "toolhooks.records._frozen",
    "FrozenDict": "toolhooks.records._frozen",
    "FrozenList": "toolhooks.records._frozen",
    "hookimpl": "toolhooks.registry._hookimpl",
    "HandlerInfo": "toolhooks.loading._inventory",
    "PluginInfo": "toolhooks.loading._inventory",
    "REMOVE": "toolhooks.records._models",
    "UNSET": "toolhooks.records._models",
    "Origin": "toolhooks.records._models",
    "Sender": "toolhooks.records._sender",
    "Status": "toolhooks.records._models",
    "ToolCall": "toolhooks.records._models",
    "ToolSpec": "toolhooks.records._models",
    "AfterToolCallResult": "toolhooks.records._results",
    "ApprovalDecision": "toolhooks.records._results",
    "ApprovalRequest": "toolhooks.records._results",
    "BeforeToolCallResult": "toolhooks.records._results",
    "Decision": "toolhooks.records._results",
    "Outcome": "toolhooks.records._results",
    "PendingApproval": "toolhooks.records._results",
    "ToolError": "toolhooks.records._results",
    "ToolResult": "toolhooks.records._results",
    "Runtime": "toolhooks.runtime._runtime",
    "emit": "toolhooks.events._scope",
    "AmbiguousId": "toolhooks.stores._contract",
    "ApprovalStore": "toolhooks.stores._contract",
    "Grant": "toolhooks.stores._contract",
    "StoredApproval": "toolhooks.stores._contract",
    "StoreError": "toolhooks.stores._contract",
    "MemoryStore": "toolhooks.stores._memory",
    "SQLiteStore": "toolhooks.stores._sqlite",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolhooks' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
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
    "LoadedConfig",
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
    "load_config",
    "thaw",
]
