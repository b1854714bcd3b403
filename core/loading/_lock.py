"""The plugin lock: ``toolhooks.lock`` lists the plugins a config may load, each pinned to its
entry point, distribution, version and a sha256 over the distribution's files (``_files``).

A lock is in use when ``[plugins] lock`` names one, or when ``toolhooks.lock`` sits next to the
config file. Then every entry point that is about to be imported is first checked against it:
one that is not listed, or whose entry point, distribution, version or files differ, is refused
before any of its code runs (a ConfigError naming it and what differs, or with ``[plugins]
on_unlocked = "warn"`` skipped and reported). Without a lock none of this runs: the config
has no ``lock`` key and no file is next to it (one stat).

The file's format, reading and writing are in ``_lock_file``, imported only once a lock is found;
the report that ``--check``, doctor and the desk show is in ``_lock_report``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..config._settings import LoadedConfig
from ..records._errors import ConfigError
from ._entry_points import Candidate, find_entry_points, why_skipped

if TYPE_CHECKING:
    from ._lock_file import LockEntry, PluginLock

LOCK_FILE = "toolhooks.lock"
_SHORT = 12


def refusal(lock: PluginLock, candidate: Candidate) -> str | None:
    """Why ``candidate`` may not load under ``lock``, or None when it matches."""
    if lock.problem is not None:
        return f"the lock ({lock.path.name}) cannot be read: {lock.problem}"
    locked = lock.entries.get(candidate.name)
    if locked is None:
        return f"not in the lock ({lock.path.name})"
    differs = what_differs(locked, candidate)
    if differs is not None:
        return f"differs from the lock ({lock.path.name}): {differs}"
    if not candidate.builtin:  # the running toolhooks' own files are already what runs
        from . import _files, _guard

        dist = candidate.dist
        if dist is not None:
            _guard.protect(_files.fingerprint(dist).hashed)
    return None


def refusal_error(lock: PluginLock, candidate: Candidate, why: str) -> ConfigError:
    """The ConfigError that refuses ``candidate``: the lock file, the plugin's line, the fix."""
    line = lock.line_of(candidate.name) if candidate.name in lock.entries else None
    return ConfigError(
        f"plugin {candidate.name!r} ({_candidate_label(candidate)}): {why}; review it, then "
        "run `toolhooks plugins lock` to approve it, or uninstall it (or set [plugins] "
        'on_unlocked = "warn" to skip it)',
        file=str(lock.path),
        key=f"plugins.{candidate.name}",
        line=line,
    )


def lock_path(config: LoadedConfig) -> Path | None:
    """The lock this config uses: ``[plugins] lock`` (relative to the config's folder), else
    ``toolhooks.lock`` next to the config file if it exists, else None."""
    configured = config.plugins.lock
    if configured is None:
        if config.source is None:
            return None
        beside = config.source.parent / LOCK_FILE
        return beside if beside.is_file() else None
    path = Path(configured).expanduser()
    if not path.is_absolute() and config.source is not None:
        path = config.source.parent / path
    return path


def lock_target(config: LoadedConfig) -> Path | None:
    """Where ``toolhooks plugins lock`` writes: the configured lock, else next to the config."""
    if config.plugins.lock is not None:
        return lock_path(config)
    return None if config.source is None else config.source.parent / LOCK_FILE


def active_lock(config: LoadedConfig) -> PluginLock | None:
    """The lock to check plugins against, read once per process while the file is unchanged;
    a configured lock that is missing is a ConfigError at the ``lock`` key."""
    path = lock_path(config)
    if path is None:
        return None
    if not path.is_file():
        raise config.error(
            f"[plugins] lock names {path}, which does not exist: write it with "
            "`toolhooks plugins lock`",
            "plugins",
            "lock",
        )
    from ._lock_file import read_lock  # the schema is imported only once a lock is found

    return read_lock(path)


def what_differs(locked: LockEntry, candidate: Candidate) -> str | None:
    """What about an installed entry point differs from its lock entry; None when nothing does.

    The files are hashed only when the entry point, distribution and version match."""
    from ._lock_file import LockEntry

    named = LockEntry(
        name=candidate.name,
        entry_point=candidate.value,
        distribution=candidate.distribution,
        version=candidate.version,
        sha256=locked.sha256,
        files=locked.files,
    )
    return _entry_changes(locked, named) or _entry_changes(locked, current_entry(candidate))


def _files_changed(locked: LockEntry, now: LockEntry) -> str:
    return (
        f"its files changed since the lock (sha256 {locked.sha256[:_SHORT]}... over "
        f"{locked.files} files in the lock, {now.sha256[:_SHORT]}... over {now.files} installed)"
    )


def current_entry(candidate: Candidate) -> LockEntry:
    """The lock entry ``candidate`` gets now (its distribution's files hashed once a process)."""
    from . import _files
    from ._lock_file import LockEntry

    dist = candidate.dist
    if dist is None:
        raise ConfigError(
            f"plugin {candidate.name!r} ('{candidate.label}') has no distribution metadata: "
            "its files cannot be listed, so it cannot be locked"
        )
    found = _files.fingerprint(dist)
    shadowed = None
    if not candidate.builtin:
        from ._guard import resolution_problem

        shadowed = resolution_problem(_module_of(candidate.value), found.hashed)
    return LockEntry(
        name=candidate.name,
        entry_point=candidate.value,
        distribution=candidate.distribution,
        version=candidate.version,
        sha256=found.sha256,
        files=found.files,
        editable=found.editable,
        shadowed=shadowed,
    )


def _module_of(value: str) -> str:
    return value.split(":", 1)[0].split("[", 1)[0].strip()


def lockable(config: LoadedConfig) -> list[Candidate]:
    """The entry points a runtime built from ``config`` would import: the ones the lock lists."""
    candidates, _ = find_entry_points(fresh=True)  # their files are read: the dists too
    return [c for c in candidates if why_skipped(c, config) is None]


def current_entries(config: LoadedConfig) -> dict[str, LockEntry]:
    return {c.name: current_entry(c) for c in lockable(config)}


def differences(locked: Mapping[str, LockEntry], current: Mapping[str, LockEntry]) -> list[str]:
    """Every way the lock and the installed plugins differ, one line each, by plugin name."""
    lines = []
    for name in sorted(set(locked) | set(current)):
        old, new = locked.get(name), current.get(name)
        if old is None and new is not None:
            lines.append(f"plugin {name!r} ({new.label}) is not in the lock")
        elif new is None and old is not None:
            lines.append(
                f"plugin {name!r} ({old.label}) is in the lock but would not load "
                "(uninstalled, or switched off by the config)"
            )
        elif old is not None and new is not None:
            changed = _entry_changes(old, new)
            if changed:
                lines.append(f"plugin {name!r} differs from the lock: {changed}")
    return lines


def _entry_changes(old: LockEntry, new: LockEntry) -> str | None:
    found = []
    if old.entry_point != new.entry_point:
        found.append(f"entry point {old.entry_point!r} in the lock, {new.entry_point!r} installed")
    if _normalise(old.distribution) != _normalise(new.distribution):
        found.append(
            f"distribution {old.distribution or '(unknown)'} in the lock, "
            f"{new.distribution or '(unknown)'} installed"
        )
    if old.version != new.version:
        found.append(
            f"version {old.version or '(none)'} in the lock, {new.version or '(none)'} installed"
        )
    if not found and old.sha256 != new.sha256:
        found.append(_files_changed(old, new))
    if new.shadowed is not None:
        found.append(new.shadowed)
    return "; ".join(found) or None


def _candidate_label(candidate: Candidate) -> str:
    return f"entry point '{candidate.label}' from {candidate.from_dist}"


def _normalise(name: str | None) -> str | None:
    return None if name is None else re.sub(r"[-_.]+", "-", name).lower()
