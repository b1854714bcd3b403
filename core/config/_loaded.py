"""A validated config: its raw tables, the file it came from, and errors that point at a key."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._public import public
from ..records._errors import ConfigError
from ..records._methods import FACTORY, dataclass_methods
from ..registry._registry import PluginSettings
from ..stores._state import STATE_DEFAULTS, StateDefaults
from ._defaults import (
    APPROVALS_DEFAULTS,
    FRAMEWORK_KEYS,
    PLUGINS_DEFAULTS,
    PLUGINS_KEYS,
    ApprovalsDefaults,
    PluginsDefaults,
)
from ._keys import did_you_mean, keys_at, locate, quote

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from ._agents import AgentsTable
    from ._tables import ApprovalsTable, PluginsTable, StateTable


@dataclass_methods(frozen=False)
@dataclass(init=False, repr=False, eq=False)
class LoadedConfig:
    """A validated config: the raw tables plus the file it came from (None for a mapping)."""

    data: dict[str, Any] = field(default_factory=dict)
    source: Path | None = None
    prefix: tuple[str, ...] = ()  # ("tool", "toolhooks") when read from pyproject.toml
    plugins: PluginsTable | PluginsDefaults = PLUGINS_DEFAULTS
    """``[plugins]``' own keys: validated by ``PluginsTable`` when the config sets any; else
    their plain defaults (so are the next two: no model is built for a table left out)."""
    approvals: ApprovalsTable | ApprovalsDefaults = APPROVALS_DEFAULTS
    state: StateTable | StateDefaults = STATE_DEFAULTS
    _agents: AgentsTable | None = field(default=None, repr=False)
    """A given ``[agents]`` table; None: its defaults, built when :attr:`agents` is first read."""
    tables: dict[str, BaseModel] = field(default_factory=dict)
    """Add-on tables (``[mcp]``), each validated by the model its distribution registered."""

    def __init__(
        self,
        data: dict[str, Any] = FACTORY,
        source: Path | None = None,
        prefix: tuple[str, ...] = (),
        plugins: PluginsTable | PluginsDefaults = PLUGINS_DEFAULTS,
        approvals: ApprovalsTable | ApprovalsDefaults = APPROVALS_DEFAULTS,
        state: StateTable | StateDefaults = STATE_DEFAULTS,
        _agents: AgentsTable | None = None,
        tables: dict[str, BaseModel] = FACTORY,
    ) -> None:
        self.data = {} if data is FACTORY else data
        self.source = source
        self.prefix = prefix
        self.plugins = plugins
        self.approvals = approvals
        self.state = state
        self._agents = _agents
        self.tables = {} if tables is FACTORY else tables

    @property
    def agents(self) -> AgentsTable:
        """``[agents]``: coding agents' hooks (``toolhooks hook``).

        Only coding agents' hooks read it: a runtime that never does builds no model for it (a
        pydantic model class costs a cold process several M instructions, callgrind)."""
        if self._agents is None:
            from ._agents import AgentsTable

            self._agents = AgentsTable()
        return self._agents

    @agents.setter
    def agents(self, table: AgentsTable) -> None:
        self._agents = table

    def with_plugins(self, **changes: Any) -> LoadedConfig:
        """A copy whose ``[plugins]`` keys have ``changes`` (not validated: the callers are
        toolhooks' own, with values of the right type)."""
        from ._tables import PluginsTable

        current = self.plugins
        table = current if isinstance(current, PluginsTable) else PluginsTable()
        return replace(self, plugins=table.model_copy(update=changes))

    @property
    def file(self) -> str | None:
        return None if self.source is None else str(self.source)

    def error(self, message: str, *path: str) -> ConfigError:
        """A ConfigError for the key at ``path`` (line number looked up in the file)."""
        full = tuple(str(part) for part in (*self.prefix, *path))
        line = locate(self.source, full) if self.source is not None else None
        shown = ".".join(quote(part) for part in full) if full else None
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
        if not framework:  # the usual case: every default, nothing to validate
            return PluginSettings(), table
        from pydantic import ValidationError

        from ._framework import FrameworkSettings  # only for a table with framework keys

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


public("toolhooks", LoadedConfig)
