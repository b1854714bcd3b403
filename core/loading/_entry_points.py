"""Finding plugins through the ``toolhooks`` entry-point group, and loading one (``_build`` makes
the plugin object from its config).

Discovery reads distribution metadata only; nothing is imported until a plugin has passed
``only``, ``disable``, ``enabled`` and ``TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD``, so a switched-off
plugin's code never runs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..config._settings import LoadedConfig
from ..records._errors import ConfigError, PluginLoadError
from . import _own, _scan_cache
from ._build import build, own_table
from ._candidate import Candidate as Candidate

if TYPE_CHECKING:
    from importlib import metadata
    from types import ModuleType

ENTRY_POINT_GROUP = "toolhooks"
AUTOLOAD_ENV = "TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD"
OPT_IN_BUILTINS = frozenset({"otel", "scanners"})
"""Built-ins that stay off until their ``[plugins.<name>]`` table exists (or ``only`` names them)."""
OFF_WITHOUT_TABLE = {"rules": "rules"}
OFF_UNTIL_CONFIGURED = "off_until_configured"
"""A plugin class attribute: True keeps an installed plugin out of every runtime whose config
gives its ``[plugins.<name>]`` table no key of its own (as ``otel`` is kept out), so a plugin that
does nothing unconfigured adds no handler to any chain. Read once the entry point is imported."""


class NotConfigured(Exception):
    """An entry point whose plugin is off until its table has keys (``OFF_UNTIL_CONFIGURED``)."""


"""Built-ins that stay off (cost nothing) until a top-level key of theirs exists: ``rules`` until
a ``[[rules]]`` entry (or ``only`` names it)."""


def find_entry_points(fresh: bool = False) -> tuple[list[Candidate], list[tuple[Candidate, str]]]:
    """Every ``toolhooks`` entry point, deduplicated; second ones with a taken name are blocked.

    A built-in always keeps its name: a third-party entry point that claims it is the duplicate.
    The scan's result is kept for the next process while the environment is unchanged
    (``_scan_cache``); ``fresh`` scans anyway (with a plugin lock, whose checks read each
    distribution's files).
    """
    lookup = _scan_cache.Lookup(ENTRY_POINT_GROUP)
    rows = None if fresh else lookup.rows()
    scanned: list[Candidate] | None = None
    if rows is not None:
        try:
            scanned = _from_cache(rows)
        except (KeyError, TypeError, IndexError, AttributeError):
            scanned = None  # a cache file of another shape: scan
    if scanned is None:
        scanned = _scan()
        lookup.store([candidate.row() for candidate in scanned])
    # The built-ins' version is the running toolhooks' (the range check of a third party
    # compares with it, without reading toolhooks' metadata again).
    _last_builtins[:] = [c for c in scanned if c.builtin]
    return _deduplicated(scanned)


_last_builtins: list[Candidate] = []


def _from_cache(rows: list[_scan_cache.Row]) -> list[Candidate] | None:
    """The kept rows, with the built-ins read again from the running toolhooks' own metadata.

    The cache file is the user's to edit: a row cannot make a plugin built-in, and a built-in
    cannot be dropped or pointed elsewhere by leaving or editing its row. None (scan) when the
    kept folder of the built-ins is not the running toolhooks'."""
    folders = {row["folder"] for row in rows if row["builtin"]}
    if len(folders) != 1:
        return None
    (folder,) = folders
    if not isinstance(folder, str) or not _own.owns_toolhooks(folder):
        return None
    builtins = _own_candidates(folder)
    if not builtins:
        return None
    others = [Candidate.from_row({**row, "builtin": False}) for row in rows if not row["builtin"]]
    return builtins + others


def _own_candidates(folder: str, dist: metadata.Distribution | None = None) -> list[Candidate]:
    name, version = _own.name_and_version(folder)
    return [
        Candidate(
            name=entry_name,
            value=value,
            distribution=name,
            version=version,
            builtin=True,
            found=dist,
            folder=folder,
        )
        for entry_name, value in _own.entry_points(folder)
    ]


def _scan() -> list[Candidate]:
    from importlib import metadata

    scanned = []
    owners: dict[str, bool] = {}
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(entry_point, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else None
        folder = _own.metadata_folder(dist) if dist is not None else None
        where = None if folder is None else str(folder)
        if where is not None and where not in owners:
            owners[where] = _own.owns_toolhooks(where)
        # Built-in: shipped by the toolhooks that is running, never by a Name: in metadata.
        builtin = where is not None and owners[where]
        scanned.append(
            Candidate(
                name=entry_point.name,
                value=entry_point.value,
                distribution=dist_name,
                version=dist.version if dist is not None else None,
                builtin=builtin,
                requires=tuple(dist.requires or ()) if dist is not None and not builtin else (),
                found=dist,
                folder=where,
            )
        )
    if not any(owners.values()):
        scanned += _shadowed_own(metadata)
    return scanned


def _shadowed_own(metadata: ModuleType) -> list[Candidate]:
    """The running toolhooks' entry points when ``entry_points()`` did not list them: it takes
    one distribution per name, so one called ``toolhooks`` earlier on sys.path hides ours."""
    for dist in metadata.distributions(name=_own.PACKAGE):
        folder = _own.metadata_folder(dist)
        if folder is not None and _own.owns_toolhooks(folder):
            return _own_candidates(str(folder), dist)
    return []


def _deduplicated(
    scanned: list[Candidate],
) -> tuple[list[Candidate], list[tuple[Candidate, str]]]:
    found: dict[str, Candidate] = {}
    duplicates: list[tuple[Candidate, str]] = []
    # A copy of toolhooks' own metadata (a `toolhooks.egg-info` a build left in the working
    # folder) offers the built-ins' very entry points: it is dropped, whatever comes before it on
    # sys.path, so it is neither a plugin nor a refused duplicate that hides the running one.
    own = {(c.name, c.value, c.distribution) for c in scanned if c.builtin}
    scanned = [c for c in scanned if c.builtin or (c.name, c.value, c.distribution) not in own]
    for candidate in scanned:
        taken = found.get(candidate.name)
        if taken is None:
            found[candidate.name] = candidate
            continue
        if candidate.builtin and not taken.builtin:
            # A third party can never take a built-in's name, whatever sys.path order says:
            # else `only = ["policy"]` would import it instead of the policy fence. That holds
            # for a copy of toolhooks' own metadata too (a stale `toolhooks.egg-info` in the
            # working folder): same entry point, but not the distribution that is running.
            found[candidate.name] = candidate
            candidate, taken = taken, candidate
        if (taken.value, taken.distribution) != (candidate.value, candidate.distribution):
            duplicates.append((candidate, _duplicate(candidate, taken)))
    ordered = sorted(found.values(), key=lambda c: (not c.builtin, c.name))
    return ordered, duplicates


def _duplicate(candidate: Candidate, taken: Candidate) -> str:
    if not taken.builtin:
        return f"duplicate plugin name {candidate.name!r}: {taken.from_dist} has it"
    # Both may say `Name: toolhooks`: the folders tell them apart.
    return (
        f"duplicate plugin name {candidate.name!r}: it is a built-in of the running toolhooks "
        f"({taken.from_dist}{_at(taken)}); {candidate.from_dist}{_at(candidate)} may not offer "
        "it: uninstall that distribution"
    )


def _at(candidate: Candidate) -> str:
    return "" if candidate.folder is None else f" at {candidate.folder}"


def autoload_disabled() -> bool:
    return os.environ.get(AUTOLOAD_ENV, "").strip().lower() not in ("", "0", "false", "no")


def why_skipped(candidate: Candidate, config: LoadedConfig) -> str | None:
    """The reason ``candidate`` must not be imported, or None to load it."""
    if not candidate.builtin and autoload_disabled():
        return f"third-party autoload disabled by {AUTOLOAD_ENV}"
    reason = why_disabled(candidate.name, config)
    if (
        reason is None
        and candidate.builtin
        and candidate.name in OPT_IN_BUILTINS
        and candidate.name not in config.plugin_tables()
        and config.plugins.only is None
    ):
        return f"off unless configured: add a [plugins.{candidate.name}] table"
    if (
        reason is None
        and candidate.builtin
        and candidate.name in OFF_WITHOUT_TABLE
        and OFF_WITHOUT_TABLE[candidate.name] not in config.data
        and not (config.plugins.only is not None and candidate.name in config.plugins.only)
    ):
        key = OFF_WITHOUT_TABLE[candidate.name]
        return f"off until the config has a [[{key}]] entry"
    return reason


def why_disabled(name: str, config: LoadedConfig) -> str | None:
    """Why the config switches the plugin ``name`` off (``only``, ``disable``, ``enabled``).

    The same rules for every plugin: an entry point, or one passed to ``Runtime(plugins=)`` or
    ``register()``.
    """
    table = config.plugins
    if table.only is not None and name not in table.only:
        return "not listed in [plugins] only"
    if name in table.disable:
        return "listed in [plugins] disable"
    settings, _ = config.plugin_settings(name)
    if not settings.enabled:
        return f"[plugins.{name}] enabled = false"
    return None


def load(candidate: Candidate, config: LoadedConfig) -> Any:
    """Import the entry point and build the plugin object; PluginLoadError names both ends.

    A third-party plugin written for another major version of toolhooks (its distribution's
    range on toolhooks) is refused before it is imported."""
    if not candidate.builtin:
        from ._api_version import check  # only a third-party plugin pays for the range reader

        running = next((c.version for c in _last_builtins if c.version), None)
        check(
            candidate.requires,
            candidate.label,
            candidate.from_dist,
            candidate.distribution,
            running,
        )
    try:
        target = candidate.load_target()
    except Exception as exc:
        raise PluginLoadError(
            f"plugin entry point '{candidate.label}' from {candidate.from_dist} failed to import: "
            f"{type(exc).__name__}: {exc}",
            entry_point=candidate.label,
            distribution=candidate.distribution,
        ) from exc
    if getattr(target, OFF_UNTIL_CONFIGURED, False) is True and not own_table(
        target, candidate.name, config
    ):
        raise NotConfigured(f"off until configured: add keys to [plugins.{candidate.name}]")
    try:
        return build(target, candidate.name, config)
    except (PluginLoadError, ConfigError):
        raise
    except Exception as exc:
        raise PluginLoadError(
            f"plugin entry point '{candidate.label}' from {candidate.from_dist} could not be "
            f"created: {type(exc).__name__}: {exc}",
            entry_point=candidate.label,
            distribution=candidate.distribution,
        ) from exc
