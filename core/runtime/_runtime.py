"""The Runtime: plugins, tools and config in one place, and the ``call`` / ``acall`` entry points."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from .._public import public
from ..config._settings import LoadedConfig, discover, load_config
from ..events._events import EventDispatcher
from ..loading._build import build
from ..loading._entry_points import find_entry_points, why_disabled
from ..loading._inventory import (
    Discovered,
    Skipped,
    check_plugin_names,
    default_name,
    disabled_info,
    discovered_names,
    handler_info,
    load_entry_points,
    names_in_config,
    plugin_info,
)
from ..loading._lock import active_lock
from ..pipeline._adjusted import AdjustedParams
from ..pipeline._context import Context, Execute
from ..pipeline._driver import BackgroundLoop, drive_async, drive_sync
from ..pipeline._tools import Tool
from ..records._frozen import thaw
from ..records._log import LazyLogger
from ..records._models import ToolCall, ToolSpec
from ..records._results import Outcome
from ..registry._registry import PluginRecord, Registry
from ..stores._state import SharedState, state_from
from ._approvals import RuntimeApprovals
from ._call import run_call
from ._labels import RuntimeLabels
from ._tools import RuntimeTools

if TYPE_CHECKING:
    from ..approvals._resolve import Approver
    from ..loading._info import HandlerInfo, PluginInfo
    from ..loading._lock_file import PluginLock
    from ..stores._contract import ApprovalStore

F = TypeVar("F", bound=Callable[..., Any])
logger = LazyLogger("toolhooks")


class Runtime(RuntimeTools, RuntimeApprovals, RuntimeLabels):
    """The pipeline every tool call goes through (docs/architecture.md tells its steps)."""

    def __init__(
        self,
        plugins: Iterable[Any] = (),
        config: Mapping[str, Any] | str | os.PathLike[str] | LoadedConfig | None = None,
        tools: Iterable[Callable[..., Any] | ToolSpec] = (),
        approver: Approver | None = None,
        load_entrypoints: bool = True,
        passthrough: Iterable[type[BaseException]] = (),
        approval_store: ApprovalStore | None = None,
    ) -> None:
        if config is None:  # what the CLI reads; config={} means none
            config, _ = discover()
        self.config = load_config(config)
        self.state: SharedState | None = state_from(self.config.state)
        """The shared state (``[state] url``), or None when this process keeps its own."""
        logger.info("toolhooks config: %s", self.config.file or "none")
        self._registry = Registry()
        self._tools: dict[str, Tool] = {}
        self._background = BackgroundLoop()
        self._events = EventDispatcher(self._background.get)
        self._adjusted = AdjustedParams()
        self._skipped: list[Skipped] = []
        self._registry.on_change = self._plugins_changed
        # A store that can fail (given, Redis, the queue's SQLite file) is made and opened here;
        # the default memory store, which cannot, at its first use (Context.store).
        store = approval_store if approval_store is not None else self._default_store()
        self._context = Context(
            registry=self._registry,
            tools=self._tools,
            events=self._events,
            store=store,
            make_store=self._memory_store if store is None else None,
            approver=None,
            adjusted=self._adjusted,
            defer_ttl_s=self.config.approvals.defer_ttl_s,
        )
        if approver is None and self.config.approvals.route != "none":
            approver = self._route_approver(self._context.store)  # makes the store now
        self._context.approver = approver
        self._context.shared_store = store is not None and not _is_memory_store(store)
        if self.config.approvals.policies:
            from ..approvals._team import Team

            self._context.team = Team(self.config)
        self.add_passthrough(*passthrough)
        # The config's plugin names are checked at first use (call, acall, visible_tools): a
        # plugin registered after construction may be the one a table names.
        self._names_checked = not names_in_config(self.config)
        explicit = list(plugins)
        self._discovered: Discovered | None = None
        self._lock: PluginLock | None = None
        # Tools first: a plugin that checks its config against the tools (cedar's schema) sees
        # them all when it is attached, so a mistake is a ConfigError from Runtime(...).
        for tool in tools:
            self.add_tool(tool)
        if load_entrypoints:
            self._lock = active_lock(self.config)  # None (no file, one stat) on the usual path
            # With a lock every distribution is read afresh: its checks read their files.
            self._discovered = find_entry_points(fresh=self._lock is not None)
            self._skipped.extend(
                load_entry_points(self._registry, self.config, self._discovered, self._lock)
            )
        for plugin in explicit:
            self.register(plugin)
        if self._lock is not None:
            self._report_unlocked()

    @classmethod
    def from_config(cls, path: str | os.PathLike[str] | None = None, **kwargs: Any) -> Runtime:
        """Read ``path``, else $TOOLHOOKS_CONFIG / toolhooks.toml / [tool.toolhooks]; load plugins."""
        return cls(config=path, **kwargs)

    # -- plugins -----------------------------------------------------------------------------

    def register(self, plugin: Any, name: str | None = None, priority: int | None = None) -> str:
        """Register a plugin object, module or class (a class is built with its config).

        ``[plugins.<name>]`` applies whenever the plugin is registered. A plugin the config
        switches off (``only``, ``disable``, ``enabled = false``) is not registered: it is listed
        by ``plugins(include_disabled=True)`` with the reason.
        """
        plugin_name = name or default_name(plugin)
        off = why_disabled(plugin_name, self.config)
        if off is not None:
            self._skipped.append(disabled_info(plugin_name, plugin, off))
            return plugin_name
        settings, _ = self.config.plugin_settings(plugin_name)
        if priority is not None:
            settings.priority = priority
        plugin = build(plugin, plugin_name, self.config)  # a class is built; any: keys checked
        self._registry.add(PluginRecord(plugin_name, plugin, "registered", settings, 0))
        return plugin_name

    def _register_observer(self, plugin: Any, name: str) -> str:
        """Register one of toolhooks' own event recorders (the CLI's, the pytest fixture's).

        Not subject to ``only`` / ``disable``: the config selects the user's plugins, and a
        recorder is how the tool reading the config watches them.
        """
        settings, _ = self.config.plugin_settings(name)
        self._registry.add(PluginRecord(name, plugin, "registered", settings, 0))
        return name

    def unregister(self, name: str) -> Any:
        """Remove a plugin by name and return it; calls already running keep their chain."""
        return self._registry.remove(name).plugin

    def plugins(self, include_disabled: bool = False) -> list[PluginInfo]:
        rows = [plugin_info(record) for record in self._registry.records.values()]
        if self._lock is not None:  # every entry point that loaded passed the lock
            rows = [
                replace(row, locked=True) if row.source in ("built-in", "entry point") else row
                for row in rows
            ]
        rows.sort(key=lambda row: (-row.priority, row.name))
        return rows + ([skipped.info() for skipped in self._skipped] if include_disabled else [])

    def handlers(self, hook: str, tool: str | None = None) -> list[HandlerInfo]:
        """The handlers of ``hook`` in the order they run (for ``tool``, if given)."""
        return [handler_info(handler) for handler in self._registry.chain(hook, tool)]

    def get_plugin(self, name: str) -> Any:
        record = self._registry.records.get(name)
        return None if record is None else record.plugin

    # -- calls ------------------------------------------------------------------------------

    def call(self, call: ToolCall | Mapping[str, Any], execute: Execute | None = None) -> Outcome:
        """Run one call through the pipeline and return its Outcome (never raises for bad input).

        The first use of the runtime (call, acall, decide, resume, ask, visible_tools,
        is_visible) checks that every plugin the config names exists
        (ConfigError otherwise): that is a setup mistake, not a bad call.
        """
        self._first_use()
        return drive_sync(run_call(self._context, call, execute), self._background)

    async def acall(
        self, call: ToolCall | Mapping[str, Any], execute: Execute | None = None
    ) -> Outcome:
        """The same pipeline as :meth:`call`, awaited on the caller's event loop."""
        self._first_use()
        return await drive_async(run_call(self._context, call, execute))

    def emit(
        self,
        event: str,
        /,
        *,
        call_id: str = "",
        trace_id: str = "",
        session_id: str | None = None,
        tool: str | None = None,
        **data: Any,
    ) -> None:
        """Hand an event to every ``on_event`` sink from outside a hook handler: what an
        integration sees happen to a call after (or around) the pipeline, under that call's ids
        (the MCP proxy's task cancelled or expired), or to no call (empty ids: a tool whose
        definition changed). Inside a handler use :func:`toolhooks.emit`. Sinks may read
        ``data`` later, on another thread: do not change what you pass."""
        self._events.emit(event, trace_id, call_id, session_id, tool, None, data)

    def adjusted_params(self, call_id: str) -> dict[str, Any] | None:
        """The final params of a recent call by id, or None when they are not remembered.

        A bounded memory: the last 4,096 calls and at most about 64 MiB of params, oldest out
        first. Params over 64 KiB that no hook (and no validation) changed are not kept: they are
        what the caller proposed.
        """
        params = self._adjusted.get(call_id)
        return None if params is None else dict(thaw(params))

    def close(self) -> None:
        """Close plugins that have a ``close()`` (event log flushes) and the background loop."""
        for record in list(self._registry.records.values()):
            closer = getattr(record.plugin, "close", None)
            if callable(closer) and not inspect.ismodule(record.plugin):
                closer()
        self._context.close_store()
        self._background.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------------

    def _plugins_changed(self) -> None:
        self._refresh_sinks()
        # Plugins that need the runtime (its shared state, another plugin's config) implement
        # attach_runtime(runtime); it is called again on every change, so it must be idempotent.
        for record in list(self._registry.records.values()):
            attach = getattr(record.plugin, "attach_runtime", None)
            if callable(attach) and not inspect.ismodule(record.plugin):
                attach(self)

    def _report_unlocked(self) -> None:
        """``on_unlocked = "warn"``: each skipped plugin is a warning on the ``toolhooks`` logger
        and a ``plugin.unlocked`` event. It belongs to no call, so its trace and call ids are
        empty; it is emitted once every plugin is registered, so the event log records it."""
        for info in self._skipped:
            if info.locked is False:
                logger.warning(
                    "toolhooks: plugin %r skipped: %s",
                    info.name,
                    info.reason,
                    extra={"toolhooks_unlocked": info.name},
                )
                data = {
                    "reason": info.reason,
                    "entry_point": info.entry_point,
                    "distribution": info.distribution,
                    "version": info.version,
                    "lock": None if self._lock is None else str(self._lock.path),
                }
                self._events.emit("plugin.unlocked", "", "", None, None, info.name, data)

    def _check_names(self) -> None:
        """ConfigError for a ``[plugins.<name>]`` table or an ``only`` / ``disable`` entry that
        names no plugin, registered, switched off or installed (entry points are scanned only
        when a name is not found among the first two)."""
        known = set(self._registry.records) | {info.name for info in self._skipped}
        if names_in_config(self.config) - known:
            discovered = self._discovered
            if discovered is None:
                discovered = self._discovered = find_entry_points()
            known |= discovered_names(discovered)
        check_plugin_names(self.config, known)
        self._names_checked = True

    def _refresh_sinks(self) -> None:
        self._events.sinks = tuple(
            (h.plugin, h.function, bool(h.argnames)) for h in self._registry.chain("on_event")
        )

    def _route_approver(self, store: ApprovalStore) -> Approver | None:
        route = self.config.approvals.route
        if route == "none":
            return None
        from ..approvals._routes import approver_for_route

        return approver_for_route(route, self.config, store)


def _is_memory_store(store: ApprovalStore) -> bool:
    from ..stores._memory import MemoryStore  # a store was made or given: its module is loaded

    return isinstance(store, MemoryStore)


public("toolhooks", Runtime)
