"""``PluginInfo`` and ``HandlerInfo``: the rows of ``Runtime.plugins()`` and
``Runtime.handlers()``, public records whose classes are made by the first call that asks (a
start does not: ``@dataclass(frozen=True)`` compiles each one's ``__setattr__`` and
``__delattr__``, about 1.7 M instructions a record). No ``from __future__ import annotations``:
the public names' annotations resolve in the package's namespace
(tests/architecture/test_public_names.py)."""

from dataclasses import dataclass

from .._public import public
from ..records._methods import dataclass_methods


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class PluginInfo:
    """One row of ``Runtime.plugins()`` (and of ``toolhooks plugins``)."""

    name: str
    version: str | None
    distribution: str | None
    priority: int
    hooks: tuple[str, ...]
    mode: str
    enabled: bool
    source: str
    tools: tuple[str, ...] | None = None
    entry_point: str | None = None
    reason: str | None = None
    locked: bool | None = None
    """With a plugin lock in use: True for an entry point it lists and that matches, False for
    one it refused; None without a lock, for a plugin registered in code, or one not checked
    (switched off by the config)."""

    def __init__(
        self,
        *,
        name: str,
        version: str | None,
        distribution: str | None,
        priority: int,
        hooks: tuple[str, ...],
        mode: str,
        enabled: bool,
        source: str,
        tools: tuple[str, ...] | None = None,
        entry_point: str | None = None,
        reason: str | None = None,
        locked: bool | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "distribution", distribution)
        object.__setattr__(self, "priority", priority)
        object.__setattr__(self, "hooks", hooks)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "enabled", enabled)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "entry_point", entry_point)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "locked", locked)


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class HandlerInfo:
    """One handler of a chain, with every option resolved (``Runtime.handlers()``)."""

    plugin: str
    hook: str
    priority: int
    timeout_s: float | None
    inline: bool
    is_async: bool
    on_error: str
    mode: str
    tools: tuple[str, ...] | None

    def __init__(
        self,
        *,
        plugin: str,
        hook: str,
        priority: int,
        timeout_s: float | None,
        inline: bool,
        is_async: bool,
        on_error: str,
        mode: str,
        tools: tuple[str, ...] | None,
    ) -> None:
        object.__setattr__(self, "plugin", plugin)
        object.__setattr__(self, "hook", hook)
        object.__setattr__(self, "priority", priority)
        object.__setattr__(self, "timeout_s", timeout_s)
        object.__setattr__(self, "inline", inline)
        object.__setattr__(self, "is_async", is_async)
        object.__setattr__(self, "on_error", on_error)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "tools", tools)


public("toolhooks", HandlerInfo, PluginInfo)
