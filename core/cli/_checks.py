"""A ``toolhooks doctor`` check's row (:class:`Check`), and the first check: the config (its
TOML and keys, and ``[plugins.<name>]`` tables that name no installed plugin).

The other checks are by subject: ``_check_plugins`` (what loads), ``_check_ties`` (plugins that
rewrite params at one priority), ``_check_storage`` (what the runtime writes and keeps),
``_agents_wired`` (coding agents). Each returns :class:`Check` rows and never raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..config._settings import LoadedConfig, load_config
from ..loading._entry_points import Candidate
from ..records._errors import ConfigError

Status = Literal["ok", "warning", "error"]


@dataclass(frozen=True)
class Check:
    status: Status
    check: str
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "check": self.check, "detail": self.detail, "fix": self.fix}


def check_config(path: Path | None) -> tuple[LoadedConfig, list[Check]]:
    """Syntax and keys of the config; an invalid one is replaced by the defaults for later checks."""
    if path is None:
        found = "no toolhooks.toml, [tool.toolhooks] or $TOOLHOOKS_CONFIG: the defaults apply"
        return load_config(None), [Check("ok", "config", found)]
    try:
        config = load_config(path)
    except ConfigError as exc:
        where = f"{exc.file}:{exc.line}" if exc.line else (exc.file or str(path))
        fix = f"edit {where}" + (f" (key {exc.key})" if exc.key else "")
        error = Check("error", "config", f"{exc} (the checks below use the defaults)", fix)
        return load_config(None), [error]
    tables = ", ".join(f"[{key}]" for key in config.data) or "empty"
    return config, [Check("ok", "config", f"{path}: valid TOML, known keys ({tables})")]


def check_plugin_tables(
    config: LoadedConfig, candidates: list[Candidate], duplicates: list[tuple[Candidate, str]]
) -> list[Check]:
    known = {c.name for c in candidates} | {c.name for c, _ in duplicates}
    checks = []
    for name in config.plugin_tables():
        if name not in known:
            checks.append(
                Check(
                    "error",
                    f"[plugins.{name}]",
                    f"names no installed plugin (installed: {', '.join(sorted(known)) or 'none'})",
                    f"install the plugin that provides {name!r}, or remove the [plugins.{name}] table",
                )
            )
    return checks
