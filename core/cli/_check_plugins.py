"""``toolhooks doctor``'s plugin checks: the plugin lock, and each entry point (not a duplicate,
not refused by the lock, imports, its config validates, its hooks match the specs, no method
named almost like a hook). A plugin the lock
refuses is not imported; the ones that load are kept in :class:`Loaded` for the later checks and
closed by :func:`close_all`.
"""

from __future__ import annotations

import contextlib
import difflib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..config._settings import LoadedConfig
from ..loading._entry_points import Candidate, NotConfigured, find_entry_points, load, why_skipped
from ..loading._inventory import candidate_record
from ..loading._lock import refusal
from ..loading._lock_file import PluginLock, read_lock
from ..loading._lock_report import lock_report
from ..records._errors import ConfigError, PluginLoadError, PluginValidationError
from ..registry._registry import HOOK_NAMES, Registry
from ._checks import Check, Status, check_plugin_tables
from ._common import hook_order


@dataclass
class Loaded:
    """What the plugin checks built: the registry of plugins that loaded, by name."""

    registry: Registry
    plugins: dict[str, Any]


def check_lock(config: LoadedConfig) -> tuple[PluginLock | None, Check]:
    """The plugin lock against the installed plugins; the lock to check each plugin with.

    A lock that cannot be read stands in as an empty one: the runtime would refuse to start, and
    no plugin the lock was meant to vet is imported here either."""
    report = lock_report(config)
    fix = "review the changes, then run `toolhooks plugins lock` to approve them"
    if report.state == "none":
        return None, Check(
            "ok", "plugin lock", f"{report.summary} (`toolhooks plugins lock` pins them)"
        )
    assert report.path is not None
    if report.state == "error":
        empty = PluginLock(path=report.path, entries={}, problem="see the plugin lock check")
        write = "run `toolhooks plugins lock` to write it again"
        return empty, Check("error", "plugin lock", report.summary, write)
    lock = read_lock(report.path)
    if report.state == "ok":
        return lock, Check("ok", "plugin lock", report.summary)
    status: Status = "warning" if config.plugins.on_unlocked == "warn" else "error"
    first = report.differences[0]
    more = len(report.differences) - 1
    detail = f"{report.summary}: {first}" + (f" (and {more} more)" if more else "")
    return lock, Check(
        status, "plugin lock", detail, f"`toolhooks plugins lock --check` lists them; {fix}"
    )


def check_plugins(config: LoadedConfig) -> tuple[Loaded, list[Check]]:
    """Every entry point: duplicates, skipped, refused by the lock, imports, validates its
    config, hooks match specs. A plugin the lock refuses is not imported."""
    lock, lock_row = check_lock(config)
    candidates, duplicates = find_entry_points(fresh=True)  # a diagnosis reads the metadata
    checks = [lock_row, *check_plugin_tables(config, candidates, duplicates)]
    for candidate, reason in duplicates:
        checks.append(
            Check(
                "error",
                f"plugin {candidate.name}",
                f"{reason}; the entry point "
                f"'{candidate.label}' from {candidate.from_dist} is ignored",
                f"uninstall one of the two (pip uninstall {candidate.distribution}) or "
                "rename the entry point",
            )
        )
    loaded = Loaded(Registry(), {})
    for candidate in candidates:
        checks.extend(_check_candidate(candidate, config, loaded, lock))
    return loaded, checks


def _check_candidate(
    candidate: Candidate, config: LoadedConfig, loaded: Loaded, lock: PluginLock | None = None
) -> list[Check]:
    label = f"plugin {candidate.name}"
    reason = why_skipped(candidate, config)
    if reason is not None:
        return [Check("ok", label, f"not loaded: {reason}")]
    refused = refusal(lock, candidate) if lock is not None else None
    if refused is not None:
        status: Status = "warning" if config.plugins.on_unlocked == "warn" else "error"
        outcome = "skipped" if status == "warning" else "refused"
        return [
            Check(
                status,
                label,
                f"{outcome}, not imported: {refused} ('{candidate.label}' from "
                f"{candidate.from_dist})",
                "review it, then run `toolhooks plugins lock` to approve it, or uninstall it",
            )
        ]
    try:
        plugin = load(candidate, config)
    except NotConfigured as off:
        return [Check("ok", label, f"not loaded: {off}")]
    except ConfigError as exc:
        fix = f"fix [plugins.{candidate.name}] in {config.file or 'the config'} (see the plugin's docs)"
        return [Check("error", label, f"config does not validate: {exc}", fix)]
    except PluginLoadError as exc:
        fix = (
            f"reinstall {candidate.distribution or 'the distribution'} in this environment and "
            f"check that '{candidate.value}' exists, or add {candidate.name!r} to [plugins] "
            "disable"
        )
        return [Check("error", label, str(exc), fix)]
    record = candidate_record(candidate, plugin, config)
    try:
        loaded.registry.add(record)
    except PluginValidationError as exc:
        _close(plugin)
        fix = (
            f"name the method one of {', '.join(HOOK_NAMES)}, and accept only that hook's arguments"
        )
        return [Check("error", label, f"hooks do not match the specs: {exc}", fix)]
    loaded.plugins[candidate.name] = plugin
    hooks = ", ".join(hook_order(record.hooks)) or "no hooks"
    where = f"{candidate.distribution} {candidate.version or ''}".strip()
    checks = [Check("ok", label, f"imports, config validates, hooks match ({hooks}; {where})")]
    checks.extend(_near_misses(candidate.name, plugin))
    return checks


def _near_misses(name: str, plugin: Any) -> Iterator[Check]:
    """Methods named almost like a hook (``before_tools_call``): they would never run."""
    for attribute in dir(plugin):
        if attribute.startswith("_") or attribute in HOOK_NAMES:
            continue
        close = difflib.get_close_matches(attribute, HOOK_NAMES, n=1, cutoff=0.85)
        if close and callable(getattr(plugin, attribute, None)):
            yield Check(
                "warning",
                f"plugin {name}",
                f"method {attribute!r} looks like the hook "
                f"{close[0]!r} but is not one, so it never runs",
                f"rename it to {close[0]}",
            )


def close_all(loaded: Loaded) -> None:
    for plugin in loaded.plugins.values():
        _close(plugin)


def _close(plugin: Any) -> None:
    closer = getattr(plugin, "close", None)
    if callable(closer) and not inspect.ismodule(plugin):
        with contextlib.suppress(Exception):  # a plugin's close failing is not the doctor's problem
            closer()
