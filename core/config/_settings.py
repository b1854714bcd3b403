"""Reading the TOML config: where it is, what shape it must have, and errors that point at it.

The config's parts are in their own modules (``_loaded``: the validated config; ``_tables``: the
core's tables; ``_keys``: errors that point at a key); their names are also here, where the rest
of toolhooks imports them from.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._public import public
from ..records._errors import ConfigError
from ._defaults import FRAMEWORK_KEYS as FRAMEWORK_KEYS
from ._defaults import PLUGINS_KEYS as PLUGINS_KEYS
from ._keys import did_you_mean as did_you_mean
from ._keys import keys_at as keys_at
from ._keys import locate as locate
from ._lazy import lazy_exports
from ._loaded import LoadedConfig as LoadedConfig
from ._trust import untrusted_config, world_writable

CONFIG_ENV = "TOOLHOOKS_CONFIG"
CONFIG_FILE = "toolhooks.toml"
TOP_LEVEL_KEYS = ("plugins", "tools", "approvals", "state", "agents", "rules")
"""``rules`` is the array of ``[[rules]]`` tables (the rules plugin checks each one)."""
TABLES_GROUP = "toolhooks.tables"
"""Entry-point group of top-level tables an add-on owns: ``mcp = "toolhooks_mcp:McpTable"``
names the pydantic model (extra="forbid") that validates ``[mcp]``."""
KNOWN_ADDON_TABLES = {"mcp": "toolhooks-mcp"}
"""Tables of add-ons toolhooks knows of: a config using one without the add-on says what to install."""

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ._framework import FrameworkSettings as FrameworkSettings
    from ._tables import ApprovalsTable as ApprovalsTable
    from ._tables import PluginsTable as PluginsTable
    from ._tables import StateTable as StateTable


def read_toml(path: Path) -> dict[str, Any]:
    # Imported here: a process with no config file never parses TOML (30 M instructions of a
    # cold start, callgrind).
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        with path.open("rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = int(found.group(1)) if found else getattr(exc, "lineno", None)
        raise ConfigError(f"invalid TOML: {exc}", file=str(path), line=line) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"invalid TOML: not UTF-8 ({exc.reason} at byte {exc.start})", file=str(path)
        ) from None
    except RecursionError:
        # tomllib parses arrays and inline tables by recursion: thousands deep exhaust the stack.
        raise ConfigError("invalid TOML: nested too deeply to read", file=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", file=str(path)) from None


def discover(cwd: Path | None = None) -> tuple[Path | None, tuple[str, ...]]:
    """The config ``Runtime()`` and the CLI read when none is given, and its key prefix.

    ``$TOOLHOOKS_CONFIG`` first (an operator's explicit choice beats a file that came with a
    cloned repository), else ``toolhooks.toml``, else ``[tool.toolhooks]`` in ``pyproject.toml``
    (both in ``cwd``), else None. A found file of another user's (not root's), or one others
    can write or replace, is ignored with a warning on stderr; a ``$TOOLHOOKS_CONFIG`` others can
    write is an error (docs/decisions/config-ownership.md), and so is a ``toolhooks.toml`` that
    is there but is no file (a dangling link, a folder).
    """
    from_env = os.environ.get(CONFIG_ENV)
    if from_env:
        path = Path(from_env)
        if not path.is_file():
            raise ConfigError(f"${CONFIG_ENV} points at a file that does not exist", file=from_env)
        problem = world_writable(str(path))
        if problem is not None:
            raise ConfigError(
                f"${CONFIG_ENV} names a config that is refused: {problem}", file=from_env
            )
        return path, ("tool", "toolhooks") if path.name == "pyproject.toml" else ()
    here = Path.cwd() if cwd is None else cwd
    candidate = here / CONFIG_FILE
    if candidate.is_file():
        if not _ignored(candidate):
            return candidate, ()
    elif os.path.lexists(candidate):
        # A link to nothing (its target moved) or a folder: the policy meant to be here is
        # missing, and reading no config would let every call through.
        kind = "a link to nothing" if candidate.is_symlink() else "not a file"
        raise ConfigError(
            f"{CONFIG_FILE} is {kind}: refusing to run without it", file=str(candidate)
        )
    pyproject = here / "pyproject.toml"
    if pyproject.is_file():
        data = read_toml(pyproject)
        table = isinstance(data.get("tool"), dict) and "toolhooks" in data["tool"]
        if table and not _ignored(pyproject):
            return pyproject, ("tool", "toolhooks")
    return None, ()


def _ignored(path: Path) -> bool:
    """Whether the config found at ``path`` is not used: another user's (not root's), or others
    can write or replace it. Said on stderr, never skipped silently."""
    problem = untrusted_config(str(path))
    if problem is None:
        return False
    print(f"toolhooks: warning: ignoring the config {path}: {problem}", file=sys.stderr)
    return True


def load_config(
    config: Mapping[str, Any] | str | os.PathLike[str] | LoadedConfig | None,
) -> LoadedConfig:
    """Validate a mapping shaped like the TOML file, or read and validate a file."""
    if isinstance(config, LoadedConfig):
        return config
    if config is None:
        return _validated({}, None, ())
    if isinstance(config, Mapping):
        return _validated(dict(config), None, ())
    if not isinstance(config, (str, os.PathLike)):
        raise ConfigError(
            f"config must be a mapping or a path to a TOML file, got {type(config).__name__}"
        )
    path = Path(config)
    data = read_toml(path)
    prefix: tuple[str, ...] = ()
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data = tool.get("toolhooks", {}) if isinstance(tool, Mapping) else tool
        prefix = ("tool", "toolhooks")
    return _validated(data, path, prefix)


def addon_tables() -> dict[str, type[BaseModel]]:
    """The top-level tables installed add-ons own (entry-point group ``toolhooks.tables``).

    Read only when a config has a key the core does not own, so plain configs never pay for the
    metadata scan. An entry point that fails to load is a ConfigError naming its distribution.
    """
    from importlib import metadata

    from pydantic import BaseModel

    found: dict[str, type[BaseModel]] = {}
    for entry_point in metadata.entry_points(group=TABLES_GROUP):
        dist = entry_point.dist.name if entry_point.dist is not None else "an unknown distribution"
        try:
            model = entry_point.load()
        except Exception as exc:
            raise ConfigError(
                f"[{entry_point.name}] table of {dist} failed to load: {type(exc).__name__}: {exc}"
            ) from None
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ConfigError(f"[{entry_point.name}] table of {dist} is not a pydantic model")
        found.setdefault(entry_point.name, model)
    return found


def _validated(data: dict[str, Any], source: Path | None, prefix: tuple[str, ...]) -> LoadedConfig:
    loaded = LoadedConfig(data, source, prefix)
    if not isinstance(data, Mapping):
        raise loaded.error("the config must be a table")
    _check_addon_tables(loaded, data)
    _check_plugins_table(loaded, data)
    _check_core_tables(loaded, data)
    for name in loaded.plugin_tables():
        loaded.plugin_settings(name)  # framework keys are checked here; plugin keys at load
    if "tools" in data and not isinstance(data["tools"], Mapping):
        raise loaded.error("[tools] must be a table", "tools")
    return loaded


def _check_addon_tables(loaded: LoadedConfig, data: Mapping[str, Any]) -> None:
    """Top-level tables other distributions declare (``[mcp]``, ...), each through its model."""
    addons = [key for key in data if key not in TOP_LEVEL_KEYS]
    if not addons:
        return
    from pydantic import ValidationError

    models = addon_tables()
    for key in addons:
        model = models.get(key)
        if model is None:
            if key in KNOWN_ADDON_TABLES:
                raise loaded.error(
                    f"[{key}] needs the {KNOWN_ADDON_TABLES[key]} package "
                    f"(pip install {KNOWN_ADDON_TABLES[key]})",
                    key,
                )
            known = (*TOP_LEVEL_KEYS, *models)
            raise loaded.error(
                f"unknown top-level key {key!r}{did_you_mean(str(key), known)} "
                f"(expected {', '.join(TOP_LEVEL_KEYS)})",
                key,
            )
        if not isinstance(data[key], Mapping):
            raise loaded.error(f"[{key}] must be a table", key)
        try:
            loaded.tables[key] = model.model_validate(data[key])
        except ValidationError as exc:
            raise loaded.validation_error(exc, key, model=model) from None


def _check_plugins_table(loaded: LoadedConfig, data: Mapping[str, Any]) -> None:
    """``[plugins]``: its own keys through :class:`PluginsTable`, every other key a table."""
    plugins = data.get("plugins", {})
    if not isinstance(plugins, Mapping):
        raise loaded.error("[plugins] must be a table", "plugins")
    for key, value in plugins.items():
        if not isinstance(key, str):
            raise loaded.error(f"[plugins] has a key {key!r} that is not a string", "plugins")
        if key not in PLUGINS_KEYS and not isinstance(value, Mapping):
            raise loaded.error(
                f"unknown key {key!r} in [plugins]{did_you_mean(key, PLUGINS_KEYS)} (expected "
                f"{', '.join(PLUGINS_KEYS)} or a [plugins.<name>] table)",
                "plugins",
                key,
            )
    fixed = {k: v for k, v in plugins.items() if k in PLUGINS_KEYS}
    if not fixed:  # none of its own keys: their plain defaults, no model built
        return
    from pydantic import ValidationError

    from ._tables import PluginsTable

    try:
        loaded.plugins = PluginsTable.model_validate(fixed)
    except ValidationError as exc:
        raise loaded.validation_error(exc, "plugins", model=PluginsTable) from None


def _check_core_tables(loaded: LoadedConfig, data: Mapping[str, Any]) -> None:
    """``[approvals]``, ``[state]`` and ``[agents]``, each validated by its model when present;
    absent, it stays at its plain defaults (``_defaults``; ``[agents]``' are built if read)."""
    present = [key for key in ("approvals", "state", "agents") if key in data]
    if not present:
        return
    from pydantic import ValidationError

    for key in present:
        model = _core_table_model(key)
        try:
            setattr(loaded, key, model.model_validate(data[key]))
        except ValidationError as exc:
            raise loaded.validation_error(exc, key, model=model) from None
        if key == "approvals" and any(k in data[key] for k in ("people", "policies", "notify")):
            from ._team import check_team

            check_team(loaded)


def _core_table_model(key: str) -> type[BaseModel]:
    if key == "agents":
        from ._agents import AgentsTable

        return AgentsTable
    from ._tables import ApprovalsTable, StateTable

    return ApprovalsTable if key == "approvals" else StateTable


# The models are imported when first used (see _framework, _tables).
__getattr__ = lazy_exports(
    __name__,
    {
        "FrameworkSettings": "._framework",
        "PluginsTable": "._tables",
        "ApprovalsTable": "._tables",
        "StateTable": "._tables",
    },
)


public("toolhooks", load_config)
