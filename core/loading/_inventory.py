"""The runtime's plugin inventory: loading entry points into the registry, and describing
what is registered (``Runtime.plugins()``, ``Runtime.handlers()``, ``toolhooks plugins``)."""

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._public import public
from ..config._settings import LoadedConfig, did_you_mean
from ..records._errors import ConfigError, PluginLoadError
from ..records._methods import dataclass_methods
from ..registry._registry import Handler, PluginRecord, Registry
from ._entry_points import Candidate, NotConfigured, load, why_skipped
from ._lock import refusal, refusal_error

if TYPE_CHECKING:
    from ._lock_file import PluginLock

Discovered = tuple[list[Candidate], list[tuple[Candidate, str]]]
"""What ``_loader.find_entry_points()`` returns: the candidates, and the duplicates with why."""


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


def default_name(plugin: Any) -> str:
    """A plugin's name when none is given: its ``name`` attribute, else class or module name."""
    declared = getattr(plugin, "name", None)
    if isinstance(declared, str) and declared:
        return declared
    if inspect.ismodule(plugin) or inspect.isclass(plugin):
        return str(plugin.__name__)
    return type(plugin).__name__


def discovered_names(discovered: Discovered) -> set[str]:
    candidates, duplicates = discovered
    return {c.name for c in candidates} | {c.name for c, _ in duplicates}


def names_in_config(config: LoadedConfig) -> set[str]:
    """Every plugin name the config mentions: its tables, ``only`` and ``disable``."""
    table = config.plugins
    return set(config.plugin_tables()) | set(table.only or ()) | set(table.disable)


def check_plugin_names(config: LoadedConfig, known: set[str]) -> None:
    """Every ``[plugins.<name>]`` table and every name in ``only`` / ``disable`` must be a
    plugin: registered, skipped (disabled) or installed as an entry point. A typo must not
    silently switch a plugin off or leave its settings unread."""
    listing = ", ".join(sorted(known)) or "none"
    for name in config.plugin_tables():
        if name not in known:
            raise config.error(
                f"[plugins.{name}] names no installed or registered plugin"
                f"{did_you_mean(name, known)} (known: {listing})",
                "plugins",
                name,
            )
    for key in ("only", "disable"):
        for name in getattr(config.plugins, key) or ():
            if name not in known:
                raise config.error(
                    f"[plugins] {key} names {name!r}, which matches no installed or registered "
                    f"plugin{did_you_mean(name, known)} (known: {listing})",
                    "plugins",
                    key,
                )


def disabled_info(name: str, plugin: Any, reason: str) -> PluginInfo:
    """The ``plugins(include_disabled=True)`` row of a plugin the config switched off."""
    version = getattr(plugin, "__version__", None)
    return PluginInfo(
        name=name,
        version=version if isinstance(version, str) else None,
        distribution=None,
        priority=0,
        hooks=(),
        mode="enforce",
        enabled=False,
        source="registered",
        reason=reason,
    )


def load_entry_points(
    registry: Registry,
    config: LoadedConfig,
    discovered: Discovered,
    lock: "PluginLock | None" = None,
) -> list[PluginInfo]:
    """Register every selected entry point; return the rows of those not loaded, with why.

    With a ``lock``, an entry point it does not list or whose files changed is refused before
    it is imported: a ConfigError, or with ``on_unlocked = "warn"`` a row with ``locked=False``.
    """
    skipped: list[PluginInfo] = []
    candidates, duplicates = discovered
    for candidate, duplicate in duplicates:
        skipped.append(candidate_info(candidate, duplicate))
    for candidate in candidates:
        reason = why_skipped(candidate, config)
        if reason is not None:
            skipped.append(candidate_info(candidate, reason))
            continue
        refused = refusal(lock, candidate) if lock is not None else None
        if lock is not None and refused is not None:
            if config.plugins.on_unlocked == "raise":
                raise refusal_error(lock, candidate, refused)
            skipped.append(candidate_info(candidate, refused, locked=False))
            continue
        try:
            plugin = load(candidate, config)
            record = candidate_record(candidate, plugin, config)
            registry.add(record)
        except NotConfigured as off:
            skipped.append(candidate_info(candidate, str(off)))
        except ConfigError:
            raise
        except Exception as exc:
            error = exc if isinstance(exc, PluginLoadError) else _registration_error(candidate, exc)
            if config.plugins.on_load_error == "raise":
                raise error from exc
            skipped.append(candidate_info(candidate, f"failed to load: {error}"))
    return skipped


def candidate_record(candidate: Candidate, plugin: Any, config: LoadedConfig) -> PluginRecord:
    """The registry's record of a plugin loaded from ``candidate``, with its framework settings."""
    settings, _ = config.plugin_settings(candidate.name)
    return PluginRecord(
        candidate.name,
        plugin,
        "built-in" if candidate.builtin else "entry point",
        settings,
        0,
        candidate.distribution,
        candidate.version,
        candidate.label,
    )


def _registration_error(candidate: Candidate, exc: Exception) -> PluginLoadError:
    return PluginLoadError(
        f"plugin entry point '{candidate.label}' from {candidate.from_dist} could not be "
        f"registered: {exc}",
        entry_point=candidate.label,
        distribution=candidate.distribution,
    )


def candidate_info(candidate: Candidate, reason: str, locked: bool | None = None) -> PluginInfo:
    source = "built-in" if candidate.builtin else "entry point"
    return PluginInfo(
        name=candidate.name,
        version=candidate.version,
        distribution=candidate.distribution,
        priority=0,
        hooks=(),
        mode="enforce",
        enabled=False,
        source=source,
        entry_point=candidate.label,
        reason=reason,
        locked=locked,
    )


def plugin_info(record: PluginRecord) -> PluginInfo:
    handlers = record.handlers
    priority = max((h.priority for h in handlers), default=record.settings.priority or 0)
    mode = "audit" if handlers and all(h.audit for h in handlers) else "enforce"
    tools = next((h.tools for h in handlers if h.tools is not None), None)
    version = record.version or getattr(record.plugin, "__version__", None)
    return PluginInfo(
        name=record.name,
        version=version if isinstance(version, str) else None,
        distribution=record.distribution,
        priority=priority,
        hooks=record.hooks,
        mode=mode,
        enabled=True,
        source=record.source,
        tools=tools,
        entry_point=record.entry_point,
    )


def handler_info(handler: Handler) -> HandlerInfo:
    return HandlerInfo(
        plugin=handler.plugin,
        hook=handler.hook,
        priority=handler.priority,
        timeout_s=handler.timeout,
        inline=handler.inline,
        is_async=handler.is_async,
        on_error=handler.on_error,
        mode="audit" if handler.audit else "enforce",
        tools=handler.tools,
    )


public("toolhooks", HandlerInfo, PluginInfo)
