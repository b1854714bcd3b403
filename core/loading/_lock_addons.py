"""Add-ons' tables in the plugin lock: ``toolhooks.lock`` holds what an add-on pins too (the MCP
proxy's tool definitions, ``[mcp]``), so one reviewed file says what may run.

The core never reads these tables: ``toolhooks plugins lock`` keeps their text as it is, and an
add-on reads and writes its own with the two functions here (``toolhooks.kit``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .._public import public
from ..config._settings import LoadedConfig, read_toml
from ..records._errors import ConfigError
from ._lock import current_entries, lock_path, lock_target

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def _check_name(name: str) -> None:
    if not _NAME.match(name) or name in ("plugins", "lock_version"):
        raise ValueError(f"{name!r} cannot name an add-on's table in the lock")


def read_lock_table(config: LoadedConfig, name: str) -> dict[str, Any] | None:
    """The ``[name]`` table of the config's lock, or None (no lock, or no such table). A lock
    that is not valid is a ConfigError naming its file and line, as for the plugins."""
    _check_name(name)
    path = lock_path(config)
    if path is None or not path.is_file():
        return None
    from ._lock_file import read_lock

    read_lock(path)  # the core's part validated (and its errors reported) first
    table = read_toml(path).get(name)
    return table if isinstance(table, dict) else None


def write_lock_table(config: LoadedConfig, name: str, tables: str) -> Path:
    """Replace the ``[name]`` tables of the config's lock with ``tables`` (TOML text whose every
    header starts with ``[name``), keeping the rest. A lock that does not exist yet is written
    with the plugins that would load now, as ``toolhooks plugins lock`` writes them: a lock
    without them would refuse every plugin. Returns the lock's path."""
    _check_name(name)
    from ._lock_file import _HEADER, render, replace_addon, split_lock, write

    for line in tables.splitlines():
        found = _HEADER.match(line)
        if line.startswith("[") and (found is None or found.group(1) != name):
            raise ValueError(f"every table written for {name!r} must be under [{name}]: {line}")
    target = lock_target(config)
    if target is None or config.source is None:
        raise ConfigError(
            "no config file: the lock goes next to it; create toolhooks.toml (it may be empty) "
            "or name one with --config FILE"
        )
    if target.is_file():
        core, addons = split_lock(target.read_text(encoding="utf-8"))
        new = core.rstrip("\n") + "\n"
        merged = replace_addon(addons, name, tables)
        new = new + "\n" + merged if merged else new
    else:
        new = render(current_entries(config).values(), config.source.name, tables)
    write(target, new)
    return target


public("toolhooks.kit", read_lock_table, write_lock_table)
