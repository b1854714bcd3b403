"""The runtime's plugin inventory: loading entry points into the registry, and describing
what is registered (``Runtime.plugins()``, ``Runtime.handlers()``, ``toolhooks plugins``)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from ..config._settings import LoadedConfig, did_you_mean
from ..records._errors import ConfigError, PluginLoadError
from ..records._plain import Record
from ..registry._registry import Handler, PluginRecord, Registry
from ._entry_points import Candidate, NotConfigured, load, why_skipped
from ._lock import refusal, refusal_error

if TYPE_CHECKING:
    from ._info import HandlerInfo, PluginInfo
    from ._lock_file import PluginLock

Discovered = tuple[list[Candidate], list[tuple[Candidate, str]]]
"""What ``_loader.find_entry_points()`` returns: the candidates, and the duplicates with why."""


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


class Skipped(Record):
    """A plugin that is not registered, with why: what its ``plugins(include_disabled=True)``
    row says, made into that row (a ``PluginInfo``) only when asked, so that a start, which
    skips some plugins of most environments, does not make the public record's class."""

    __slots__ = ("distribution", "entry_point", "locked", "name", "reason", "source", "version")

    name: str
    version: str | None
    distribution: str | None
    source: str
    entry_point: str | None
    reason: str
    locked: bool | None

    def __init__(
        self,
        *,
        name: str,
        version: str | None,
        distribution: str | None,
        source: str,
        entry_point: str | None,
        reason: str,
        locked: bool | None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "distribution", distribution)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "entry_point", entry_point)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "locked", locked)

    def info(self) -> PluginInfo:
        from ._info import PluginInfo

        return PluginInfo(
            name=self.name,
            version=self.version,
            distribution=self.distribution,
            priority=0,
            hooks=(),
            mode="enforce",
            enabled=False,
            source=self.source,
            entry_point=self.entry_point,
            reason=self.reason,
            locked=self.locked,
        )


def disabled_info(name: str, plugin: Any, reason: str) -> Skipped:
    """A plugin the config switched off (its ``plugins(include_disabled=True)`` row)."""
    version = getattr(plugin, "__version__", None)
    return Skipped(
        name=name,
        version=version if isinstance(version, str) else None,
        distribution=None,
        source="registered",
        entry_point=None,
        reason=reason,
        locked=None,
    )


def load_entry_points(
    registry: Registry,
    config: LoadedConfig,
    discovered: Discovered,
    lock: PluginLock | None = None,
) -> list[Skipped]:
    """Register every selected entry point; return those not loaded, with why.

    With a ``lock``, an entry point it does not list or whose files changed is refused before
    it is imported: a ConfigError, or with ``on_unlocked = "warn"`` a row with ``locked=False``.
    """
    skipped: list[Skipped] = []
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


def candidate_info(candidate: Candidate, reason: str, locked: bool | None = None) -> Skipped:
    return Skipped(
        name=candidate.name,
        version=candidate.version,
        distribution=candidate.distribution,
        source="built-in" if candidate.builtin else "entry point",
        entry_point=candidate.label,
        reason=reason,
        locked=locked,
    )


def plugin_info(record: PluginRecord) -> PluginInfo:
    from ._info import PluginInfo  # its class made by the first plugins(), not at start

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
    from ._info import HandlerInfo  # its class made by the first handlers(), not at start

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
