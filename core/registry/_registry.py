"""Registered plugins and their handlers, ordered once and cached per tool.

pluggy does the registration bookkeeping and checks every implementation against its spec; the
runtime never dispatches through ``pm.hook``. Instead each hook's handlers are sorted here (highest
priority first, registration order for ties), filtered per tool name, and cached until the set of
plugins changes, so a call only walks a prepared tuple.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Container
from types import ModuleType
from typing import Any, Literal

import pluggy

from .. import spec as spec_module
from ..records._errors import PluginValidationError
from ..spec import PROJECT
from ._hookimpl import OPTIONS_ATTR, ImplOptions
from ._names import name_patterns

HookName = Literal["before_tool_call", "after_tool_call", "tool_visible", "on_event"]
HOOK_NAMES: tuple[HookName, ...] = (
    "before_tool_call",
    "after_tool_call",
    "tool_visible",
    "on_event",
)
DEFAULT_ASYNC_TIMEOUT = 15.0
CHAIN_CACHE_SIZE = 4096
"""Tool names whose filtered chains are kept (least recently used out first)."""
_UNHONOURED = {
    "tryfirst": "use @toolhooks.hookimpl(priority=N); a higher priority runs first",
    "trylast": "use @toolhooks.hookimpl(priority=N); a lower (negative) priority runs last",
    "hookwrapper": "toolhooks has no wrappers; use a before_tool_call and an after_tool_call "
    "handler, ordered with @toolhooks.hookimpl(priority=N)",
    "wrapper": "toolhooks has no wrappers; use a before_tool_call and an after_tool_call "
    "handler, ordered with @toolhooks.hookimpl(priority=N)",
    "optionalhook": "toolhooks has no optional hooks; implement one of "
    "before_tool_call, after_tool_call, tool_visible, on_event",
}


class PluginSettings:
    """The framework-level knobs of one plugin, from ``[plugins.<name>]`` or ``register()`` (a
    plain class, not a dataclass: its generated methods would be compiled at every start)."""

    __slots__ = ("enabled", "mode", "on_error", "priority", "timeout_s", "tools")

    def __init__(
        self,
        priority: int | None = None,
        mode: Literal["enforce", "audit"] | None = None,
        on_error: Literal["block", "ignore"] | None = None,
        timeout_s: float | None = None,
        enabled: bool = True,
        tools: tuple[str, ...] | None = None,
    ) -> None:
        self.priority = priority
        self.mode = mode
        self.on_error = on_error
        self.timeout_s = timeout_s
        self.enabled = enabled
        self.tools = tools


class PluginRecord:
    """A registered plugin: its object, where it came from, its settings and handlers (a plain
    class, as ``PluginSettings``)."""

    __slots__ = (
        "distribution",
        "entry_point",
        "handlers",
        "hooks",
        "name",
        "plugin",
        "seq",
        "settings",
        "source",
        "version",
    )

    def __init__(
        self,
        name: str,
        plugin: Any,
        source: str,  # "built-in", "entry point" or "registered"
        settings: PluginSettings,
        seq: int,
        distribution: str | None = None,
        version: str | None = None,
        entry_point: str | None = None,
        hooks: tuple[str, ...] = (),
        handlers: list[Handler] | None = None,
    ) -> None:
        self.name = name
        self.plugin = plugin
        self.source = source
        self.settings = settings
        self.seq = seq
        self.distribution = distribution
        self.version = version
        self.entry_point = entry_point
        self.hooks = hooks
        self.handlers: list[Handler] = [] if handlers is None else handlers


class Handler:
    """One hook implementation with every option resolved; what a chain is made of."""

    __slots__ = (
        "argnames",
        "audit",
        "direct",
        "function",
        "hook",
        "inline",
        "is_async",
        "on_error",
        "plugin",
        "priority",
        "quiet",
        "seq",
        "takes_all",
        "timeout",
        "tool_names",
        "tools",
    )

    def __init__(self, record: PluginRecord, hook: str, impl: pluggy.HookImpl, index: int) -> None:
        options: ImplOptions = getattr(impl.function, OPTIONS_ATTR, None) or ImplOptions()
        settings = record.settings
        plugin = record.plugin
        self.plugin = record.name
        self.hook = hook
        self.function: Callable[..., Any] = impl.function
        self.argnames: tuple[str, ...] = tuple(impl.argnames)
        self.takes_all = self.argnames == _SPEC_ARGS[hook]
        attr_priority = getattr(plugin, "priority", None)
        self.priority: int = next(
            (p for p in (settings.priority, options.priority, attr_priority) if type(p) is int), 0
        )
        self.is_async = inspect.iscoroutinefunction(impl.function)
        explicit_timeout = settings.timeout_s if settings.timeout_s is not None else options.timeout
        self.timeout: float | None = explicit_timeout
        if self.timeout is None and self.is_async:
            self.timeout = DEFAULT_ASYNC_TIMEOUT
        # A plain def without an explicit timeout runs inline: no thread hop on the hot path.
        self.inline = not self.is_async and explicit_timeout is None
        # ...and one that also takes exactly the spec's arguments is called with them as they are.
        self.direct = self.inline and self.takes_all
        tools = settings.tools if settings.tools is not None else options.tools
        if tools is None:
            tools = getattr(plugin, "tools", None)
            tools = tuple(tools) if isinstance(tools, (list, tuple)) else None
        self.tools: tuple[str, ...] | None = tools
        self.tool_names: Container[str] | None = None if tools is None else name_patterns(tools)
        mode = settings.mode or getattr(plugin, "mode", None) or "enforce"
        self.audit = mode == "audit"
        self.on_error: str = settings.on_error or (
            "block" if hook in ("before_tool_call", "tool_visible") else "ignore"
        )
        self.seq = (record.seq, index)
        # Its entry in tool.injected's ``quiet``, built once and copied with a latency.
        quiet = {"plugin": self.plugin, "hook": hook, "priority": self.priority}
        self.quiet: dict[str, Any] = {**quiet, "latency_ms": 0.0}

    def call_args(self, values: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(values[name] for name in self.argnames)

    def __repr__(self) -> str:
        return f"<Handler {self.plugin}.{self.hook} priority={self.priority}>"


def _spec_args(name: str) -> tuple[str, ...]:
    return tuple(inspect.signature(getattr(spec_module, name)).parameters)


_SPEC_ARGS: dict[str, tuple[str, ...]] = {name: _spec_args(name) for name in HOOK_NAMES}


_OBJECT_NAMES = frozenset(dir(object))


def _only_objects(plugin: Any, name: str) -> bool:
    """Whether ``name`` on an instance plugin is ``object``'s own attribute (a class or a module
    as plugin: always False, they are looked at by pluggy)."""
    if isinstance(plugin, (type, ModuleType)):
        return False
    try:  # as pluggy reads it: no getattr, so no __getattr__ or property runs
        own = object.__getattribute__(plugin, "__dict__")
    except AttributeError:
        own = {}
    if isinstance(own, dict) and name in own:
        return False
    return not any(name in vars(klass) for klass in type(plugin).__mro__[:-1])


class _PluginManager(pluggy.PluginManager):
    """Accepts only ``toolhooks.hookimpl``-marked handlers; anything pluggy would take or that
    looks like a hook otherwise is refused, with what to write instead."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if name in _OBJECT_NAMES and _only_objects(plugin, name):
            return None  # object's own attribute: never marked (12 M of a cold start's 6 plugins)
        options = super().parse_hookimpl_opts(plugin, name)
        function = (
            getattr(plugin, name, None) if options is not None or name in _SPEC_ARGS else None
        )
        if not inspect.isroutine(function):
            return options
        if options is None:
            raise PluginValidationError(
                f"{name} is named like a hook but not marked: decorate it with "
                "@toolhooks.hookimpl (only marked functions are handlers)"
            )
        refused = _UNHONOURED.keys() & {key for key, value in options.items() if value}
        if refused:
            option = sorted(refused)[0]
            raise PluginValidationError(
                f"{name} is marked with the pluggy option {option}=True, which toolhooks does "
                f"not honour: {_UNHONOURED[option]}"
            )
        if getattr(function, OPTIONS_ATTR, None) is None:
            raise PluginValidationError(
                f"{name} is marked with pluggy's own HookimplMarker; use @toolhooks.hookimpl "
                "(it takes priority=, tools= and timeout=)"
            )
        return options


class Registry:
    """The typed facade over pluggy: register, unregister, and ordered chains per hook and tool."""

    def __init__(self) -> None:
        self.pm = _PluginManager(PROJECT)
        self.pm.add_hookspecs(spec_module)
        self.records: dict[str, PluginRecord] = {}
        self._lock = threading.RLock()
        self._seq = 0
        self._sorted: dict[str, tuple[Handler, ...]] = {}
        self._filtered: dict[str, bool] = {}
        self._for_tool: Callable[[str, str], tuple[Handler, ...]]
        self._call_chains: Callable[[str], tuple[tuple[Handler, ...], tuple[Handler, ...]]]
        self.on_change: Callable[[], None] = lambda: None
        self._rebuild()

    def add(self, record: PluginRecord) -> PluginRecord:
        with self._lock:
            if record.name in self.records:
                raise ValueError(f"a plugin named {record.name!r} is already registered")
            self._seq += 1
            record.seq = self._seq
            try:
                self.pm.register(record.plugin, name=record.name)
            except pluggy.PluginValidationError as exc:
                self._forget(record.name)
                raise PluginValidationError(f"plugin {record.name!r}: {exc}") from None
            except ValueError as exc:
                self._forget(record.name)
                raise PluginValidationError(f"plugin {record.name!r}: {exc}") from None
            try:
                record.handlers = self._handlers_of(record)
            except PluginValidationError:
                self._forget(record.name)
                raise
            record.hooks = tuple(dict.fromkeys(h.hook for h in record.handlers))
            self.records[record.name] = record
            self._rebuild()
            return record

    def remove(self, name: str) -> PluginRecord:
        with self._lock:
            record = self.records.pop(name, None)
            if record is None:
                raise KeyError(f"no plugin named {name!r} is registered")
            self._forget(name)
            self._rebuild()
            return record

    def _forget(self, name: str) -> None:
        if self.pm.get_plugin(name) is not None:
            self.pm.unregister(name=name)

    def _handlers_of(self, record: PluginRecord) -> list[Handler]:
        handlers: list[Handler] = []
        callers = {id(c): c for c in self.pm.get_hookcallers(record.plugin) or ()}
        for caller in callers.values():
            if not caller.has_spec():
                raise PluginValidationError(
                    f"plugin {record.name!r} implements unknown hook {caller.name!r} "
                    f"(toolhooks hooks are: {', '.join(HOOK_NAMES)})"
                )
            for impl in caller.get_hookimpls():
                if impl.plugin is not record.plugin:
                    continue
                handlers.append(Handler(record, caller.name, impl, len(handlers)))
        return handlers

    def _rebuild(self) -> None:
        chains: dict[str, tuple[Handler, ...]] = {}
        for hook in HOOK_NAMES:
            chain = [h for rec in self.records.values() for h in rec.handlers if h.hook == hook]
            chain.sort(key=lambda h: (-h.priority, h.seq))
            chains[hook] = tuple(chain)
            self._filtered[hook] = any(h.tool_names is not None for h in chain)
        self._sorted = chains

        # Both caches close over this rebuild's chains: a lookup racing a later rebuild fills
        # the discarded cache, never the new one.
        @functools.lru_cache(maxsize=CHAIN_CACHE_SIZE)
        def for_tool(hook: str, tool: str) -> tuple[Handler, ...]:
            return tuple(h for h in chains[hook] if h.tool_names is None or tool in h.tool_names)

        @functools.lru_cache(maxsize=CHAIN_CACHE_SIZE)
        def call_chains(tool: str) -> tuple[tuple[Handler, ...], tuple[Handler, ...]]:
            return for_tool("before_tool_call", tool), for_tool("after_tool_call", tool)

        self._for_tool = for_tool
        self._call_chains = call_chains
        self.on_change()

    def chain(self, hook: str, tool: str | None = None) -> tuple[Handler, ...]:
        """The handlers of ``hook`` that run for ``tool``, in order."""
        if tool is None or not self._filtered[hook]:
            return self._sorted[hook]
        return self._for_tool(hook, tool)

    def call_chains(self, tool: str) -> tuple[tuple[Handler, ...], tuple[Handler, ...]]:
        """before_tool_call and after_tool_call for ``tool``, cached per tool name."""
        return self._call_chains(tool)
