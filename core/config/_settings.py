"""Reading the TOML config: where it is, what shape it must have, and errors that point at it."""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..records._errors import ConfigError
from ..registry._registry import PluginSettings
from ..stores._state import StateTable
from ._agents import AgentsTable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

CONFIG_ENV = "TOOLHOOKS_CONFIG"
CONFIG_FILE = "toolhooks.toml"
TOP_LEVEL_KEYS = ("plugins", "tools", "approvals", "state", "agents")
TABLES_GROUP = "toolhooks.tables"
"""Entry-point group of top-level tables an add-on owns: ``mcp = "toolhooks_mcp:McpTable"``
names the pydantic model (extra="forbid") that validates ``[mcp]``."""
KNOWN_ADDON_TABLES = {"mcp": "toolhooks-mcp"}
"""Tables of add-ons toolhooks knows of: a config using one without the add-on says what to install."""
PLUGINS_KEYS = ("only", "disable", "on_load_error", "lock", "on_unlocked")
FRAMEWORK_KEYS = ("priority", "mode", "on_error", "timeout_s", "enabled", "tools")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PluginsTable(_Strict):
    only: list[str] | None = None
    """Load only these plugins (any kind: built-in, entry point, registered); unset: all."""
    disable: list[str] = Field(default_factory=list)
    """Never load these plugins."""
    on_load_error: Literal["raise", "skip"] = "raise"
    """A plugin that fails to import: ``raise`` a PluginLoadError, or ``skip`` it and list it with
    the reason."""
    lock: str | None = Field(default=None, min_length=1)
    """The plugin lock file, relative to the config file's folder (to the working directory for
    a config given as a mapping); it must exist. Unset: the ``toolhooks.lock`` next to the config
    file, if there is one. With a lock, only the plugins it
    lists load, each with the entry point, distribution, version and files it was locked with
    (``toolhooks plugins lock`` writes it)."""
    on_unlocked: Literal["raise", "warn"] = "raise"
    """An installed plugin the lock does not list, or whose files changed: ``raise`` a
    ConfigError naming it and what differs, or ``warn``: skip it and emit a ``plugin.unlocked``
    event (and a warning on the ``toolhooks`` logger)."""


class FrameworkSettings(_Strict):
    # Strict types: `enabled = "no"` or `priority = true` are mistakes, not values to coerce.
    priority: int | None = Field(default=None, strict=True)
    """Overrides ``@hookimpl(priority=)`` and the plugin's ``priority``; higher runs first."""
    mode: Literal["enforce", "audit"] | None = None
    """``audit``: run the plugin, record its decisions (``applied: false``), never apply them."""
    on_error: Literal["block", "ignore"] | None = None
    """A failing handler: ``block`` fails closed, ``ignore`` skips it (default: block; after hooks
    ignore)."""
    timeout_s: float | None = Field(default=None, gt=0, strict=True, allow_inf_nan=False)
    """Seconds a handler may take (default: a ``def`` runs inline, untimed; an ``async def`` 15)."""
    enabled: bool = Field(default=True, strict=True)
    """``false`` keeps the plugin from loading, also one passed to ``Runtime(plugins=)``."""
    tools: list[Annotated[str, Field(min_length=1)]] | None = None
    """Only these tools (``*`` is the only wildcard); unset: every tool."""


class ApprovalsTable(_Strict):
    route: Literal["none", "queue", "tty"] = "none"
    """Who answers when ``Runtime(approver=)`` is not given: nobody (deny at once), a SQLite
    ``queue``, or the ``tty``."""
    db: str = ".toolhooks/approvals.db"
    """The queue route's SQLite file, relative to the working directory."""
    poll_interval_s: float = Field(default=0.2, gt=0)
    """How often an agent waiting on the queue looks at the database."""
    wait_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """queue route: how long to wait before deferring (None: the request's timeout; 0: at once)."""
    defer_ttl_s: float = Field(default=86_400.0, gt=0, allow_inf_nan=False)
    """How long a deferred approval waits to be resumed before it expires."""
    retention_s: float = Field(default=7 * 86_400.0, ge=0, allow_inf_nan=False)
    """How long decided and expired approvals are kept before they are purged."""


@dataclass
class LoadedConfig:
    """A validated config: the raw tables plus the file it came from (None for a mapping)."""

    data: dict[str, Any] = field(default_factory=dict)
    source: Path | None = None
    prefix: tuple[str, ...] = ()  # ("tool", "toolhooks") when read from pyproject.toml
    plugins: PluginsTable = field(default_factory=PluginsTable)
    approvals: ApprovalsTable = field(default_factory=ApprovalsTable)
    state: StateTable = field(default_factory=StateTable)
    agents: AgentsTable = field(default_factory=AgentsTable)
    """``[agents]``: coding agents' hooks (``toolhooks hook``)."""
    tables: dict[str, BaseModel] = field(default_factory=dict)
    """Add-on tables (``[mcp]``), each validated by the model its distribution registered."""

    @property
    def file(self) -> str | None:
        return None if self.source is None else str(self.source)

    def error(self, message: str, *path: str) -> ConfigError:
        """A ConfigError for the key at ``path`` (line number looked up in the file)."""
        full = tuple(str(part) for part in (*self.prefix, *path))
        line = locate(self.source, full) if self.source is not None else None
        shown = ".".join(_quote(part) for part in full) if full else None
        text = f"{message} (at {shown})" if shown and shown not in message else message
        return ConfigError(text, file=self.file, key=shown, line=line)

    def section(self, dotted: str) -> dict[str, Any]:
        node: Any = self.data
        for part in dotted.split("."):
            node = node.get(part, {}) if isinstance(node, Mapping) else {}
        if not isinstance(node, Mapping):
            raise self.error(f"[{dotted}] must be a table", *dotted.split("."))
        return dict(node)

    def plugin_tables(self) -> dict[str, dict[str, Any]]:
        tables = self.data.get("plugins", {})
        return {k: v for k, v in tables.items() if k not in PLUGINS_KEYS}

    def plugin_settings(self, name: str) -> tuple[PluginSettings, dict[str, Any]]:
        """The framework knobs and the plugin's own keys from ``[plugins.<name>]``."""
        table = dict(self.plugin_tables().get(name, {}))
        framework = {k: table.pop(k) for k in FRAMEWORK_KEYS if k in table}
        try:
            parsed = FrameworkSettings.model_validate(framework)
        except ValidationError as exc:
            raise self.validation_error(exc, "plugins", name, model=FrameworkSettings) from None
        tools = tuple(parsed.tools) if parsed.tools is not None else None
        settings = PluginSettings(
            parsed.priority, parsed.mode, parsed.on_error, parsed.timeout_s, parsed.enabled, tools
        )
        return settings, table

    def validation_error(
        self,
        exc: ValidationError,
        *path: str,
        model: type[BaseModel] | None = None,
        also: Iterable[str] = (),
    ) -> ConfigError:
        """A ConfigError for pydantic's first problem, at the key's own line.

        An unknown key names the table it is really in (``[tools.elevated]``, not ``[tools]``)
        and the nearest key that table takes: ``model``'s fields there, plus ``also``.
        """
        problem = exc.errors()[0]
        loc = [str(part) for part in problem["loc"]]
        if problem["type"] == "extra_forbidden":
            table = ".".join((*path, *loc[:-1]))
            choices = set(keys_at(model, loc[:-1])) | (set(also) if len(loc) == 1 else set())
            hint = did_you_mean(loc[-1], choices)
            return self.error(f"unknown key {loc[-1]!r} in [{table}]{hint}", *path, *loc)
        shown = ".".join((*path, *loc))
        return self.error(f"{shown}: {problem['msg']}", *path, *loc)


def keys_at(model: type[BaseModel] | None, loc: list[str]) -> list[str]:
    """The keys the table at ``loc`` inside ``model`` takes (list indexes and dict keys are
    stepped over); empty when that is not a model."""
    node: Any = model
    keyed = False  # the last field was a dict of models: the next part is one of its keys
    for part in loc:
        if not (isinstance(node, type) and issubclass(node, BaseModel)):
            return []
        info = node.model_fields.get(part)
        if info is None:
            if part.isdigit() or keyed:  # an index into a list, a key into a dict of models
                keyed = False
                continue
            return []
        keyed = get_origin(info.annotation) is dict
        node = _model_inside(info.annotation)
    if isinstance(node, type) and issubclass(node, BaseModel):
        return [info.alias or name for name, info in node.model_fields.items()]
    return []


def _model_inside(annotation: Any) -> Any:
    """The model an annotation holds (``X``, ``X | None``, ``list[X]``, ``dict[str, X]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in reversed(get_args(annotation)):
        found = _model_inside(arg)
        if found is not None:
            return found
    return None


def did_you_mean(given: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the nearest of ``choices``, or an empty string."""
    close = difflib.get_close_matches(given, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _quote(part: str) -> str:
    return part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else f'"{part}"'


_KEY_PART = re.compile(r'"([^"]*)"|\'([^\']*)\'|([^.\s"\']+)')


def _split_dotted(text: str) -> tuple[str, ...]:
    return tuple(next(g for g in m.groups() if g is not None) for m in _KEY_PART.finditer(text))


def locate(source: Path, path: tuple[str, ...]) -> int | None:
    """Best-effort line of ``path`` in a TOML file: its ``key =`` line, else its ``[table]`` header."""
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    table: tuple[str, ...] = ()
    header_line: int | None = None
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if text.startswith("["):
            table = _split_dotted(text.split("]")[0].lstrip("["))
            if table == path and header_line is None:
                header_line = number
            continue
        if "=" in text and not text.startswith("#"):
            full = table + _split_dotted(text.split("=", 1)[0])
            if len(full) <= len(path) and full == path[: len(full)]:
                return number
    return header_line


def read_toml(path: Path) -> dict[str, Any]:
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
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", file=str(path)) from None


def discover(cwd: Path | None = None) -> tuple[Path | None, tuple[str, ...]]:
    """The config ``Runtime()`` and the CLI read when none is given, and its key prefix.

    ``$TOOLHOOKS_CONFIG`` first (an operator's explicit choice beats a file that came with a
    cloned repository), else ``toolhooks.toml``, else ``[tool.toolhooks]`` in ``pyproject.toml``
    (both in ``cwd``), else None.
    """
    from_env = os.environ.get(CONFIG_ENV)
    if from_env:
        path = Path(from_env)
        if not path.is_file():
            raise ConfigError(f"${CONFIG_ENV} points at a file that does not exist", file=from_env)
        return path, ("tool", "toolhooks") if path.name == "pyproject.toml" else ()
    here = Path.cwd() if cwd is None else cwd
    candidate = here / CONFIG_FILE
    if candidate.is_file():
        return candidate, ()
    pyproject = here / "pyproject.toml"
    if pyproject.is_file():
        data = read_toml(pyproject)
        if isinstance(data.get("tool"), dict) and "toolhooks" in data["tool"]:
            return pyproject, ("tool", "toolhooks")
    return None, ()


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
    addons = [key for key in data if key not in TOP_LEVEL_KEYS]
    models = addon_tables() if addons else {}
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
    plugins = data.get("plugins", {})
    if not isinstance(plugins, Mapping):
        raise loaded.error("[plugins] must be a table", "plugins")
    fixed = {k: v for k, v in plugins.items() if k in PLUGINS_KEYS}
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
    try:
        loaded.plugins = PluginsTable.model_validate(fixed)
        loaded.approvals = ApprovalsTable.model_validate(data.get("approvals", {}))
    except ValidationError as exc:
        table = "plugins" if any(k in fixed for k in exc.errors()[0]["loc"][:1]) else "approvals"
        model = PluginsTable if table == "plugins" else ApprovalsTable
        raise loaded.validation_error(exc, table, model=model) from None
    try:
        loaded.state = StateTable.model_validate(data.get("state", {}))
    except ValidationError as exc:
        raise loaded.validation_error(exc, "state", model=StateTable) from None
    try:
        loaded.agents = AgentsTable.model_validate(data.get("agents", {}))
    except ValidationError as exc:
        raise loaded.validation_error(exc, "agents", model=AgentsTable) from None
    for name in loaded.plugin_tables():
        loaded.plugin_settings(name)  # framework keys are checked here; plugin keys at load
    if "tools" in data and not isinstance(data["tools"], Mapping):
        raise loaded.error("[tools] must be a table", "tools")
    return loaded
