"""toolhooks: a plugin pipeline between an AI agent's model and its tools.

Every name below is imported when it is first used (PEP 562), not by ``import toolhooks``: the
``toolhooks`` command starts without pydantic, pluggy or the runtime, and ``--help`` answers in
a fraction of the time (BENCHMARKS.md, "Choices made for speed").

The names are ``_EXPORTS``'s keys (each with the module that defines it); ``__all__`` is made
from them. Type checkers cannot read a table, so the ``if TYPE_CHECKING:`` block imports each name
again (``X as X``: exported under mypy's strict no-implicit-reexport). Each defining module ends
with ``public("toolhooks", ...)``, so every class and function here is ``toolhooks.X`` in reprs,
tracebacks, pickles and the docs, whichever module was imported first.
tests/architecture/test_public_names.py proves the three agree (docs/decisions/public-names.md);
``toolhooks.kit`` is written the same way.
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING`` (and importlib only in ``__getattr__``): each import costs
# the hook client (toolhooks._main) a share of its start; type checkers read any TYPE_CHECKING as
# True.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from .approvals._resolve import ApprovalUnavailable as ApprovalUnavailable
    from .config._loaded import LoadedConfig as LoadedConfig
    from .config._settings import load_config as load_config
    from .events._events import EVENT_NAMES as EVENT_NAMES
    from .events._events import Event as Event
    from .events._scope import emit as emit
    from .loading._info import HandlerInfo as HandlerInfo
    from .loading._info import PluginInfo as PluginInfo
    from .records._approval_request import ApprovalRequest as ApprovalRequest
    from .records._decisions import ApprovalDecision as ApprovalDecision
    from .records._decisions import Decision as Decision
    from .records._errors import ConfigError as ConfigError
    from .records._errors import HookResultError as HookResultError
    from .records._errors import InvalidToolCall as InvalidToolCall
    from .records._errors import ParamsError as ParamsError
    from .records._errors import PluginLoadError as PluginLoadError
    from .records._errors import PluginValidationError as PluginValidationError
    from .records._errors import ToolhooksError as ToolhooksError
    from .records._frozen import FrozenDict as FrozenDict
    from .records._frozen import FrozenList as FrozenList
    from .records._frozen import thaw as thaw
    from .records._models import REMOVE as REMOVE
    from .records._models import UNSET as UNSET
    from .records._models import Origin as Origin
    from .records._models import Status as Status
    from .records._models import ToolCall as ToolCall
    from .records._models import ToolSpec as ToolSpec
    from .records._results import AfterToolCallResult as AfterToolCallResult
    from .records._results import BeforeToolCallResult as BeforeToolCallResult
    from .records._results import Outcome as Outcome
    from .records._results import PendingApproval as PendingApproval
    from .records._results import ToolError as ToolError
    from .records._results import ToolResult as ToolResult
    from .records._sender import Sender as Sender
    from .registry._hookimpl import hookimpl as hookimpl
    from .runtime._runtime import Runtime as Runtime
    from .stores._contract import AmbiguousId as AmbiguousId
    from .stores._contract import ApprovalStore as ApprovalStore
    from .stores._contract import Grant as Grant
    from .stores._contract import StoredApproval as StoredApproval
    from .stores._contract import StoreError as StoreError
    from .stores._memory import MemoryStore as MemoryStore
    from .stores._sqlite import SQLiteStore as SQLiteStore

# The module that defines each public name, imported when the name is first read.
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
    "LoadedConfig": "toolhooks.config._loaded",
    "load_config": "toolhooks.config._settings",
    "thaw": "toolhooks.records._frozen",
    "FrozenDict": "toolhooks.records._frozen",
    "FrozenList": "toolhooks.records._frozen",
    "hookimpl": "toolhooks.registry._hookimpl",
    "HandlerInfo": "toolhooks.loading._info",
    "PluginInfo": "toolhooks.loading._info",
    "REMOVE": "toolhooks.records._models",
    "UNSET": "toolhooks.records._models",
    "Origin": "toolhooks.records._models",
    "Sender": "toolhooks.records._sender",
    "Status": "toolhooks.records._models",
    "ToolCall": "toolhooks.records._models",
    "ToolSpec": "toolhooks.records._models",
    "AfterToolCallResult": "toolhooks.records._results",
    "ApprovalDecision": "toolhooks.records._decisions",
    "ApprovalRequest": "toolhooks.records._approval_request",
    "BeforeToolCallResult": "toolhooks.records._results",
    "Decision": "toolhooks.records._decisions",
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


__all__ = sorted(_EXPORTS)
