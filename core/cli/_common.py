"""What the commands share: finding the config, building a runtime, printing JSON and notes."""

from __future__ import annotations

import argparse
import copy
import dataclasses
import importlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..config._settings import LoadedConfig, discover, load_config
from ..runtime._runtime import Runtime

# The options and exit codes every command shares live in the light ``_options`` (the parser
# needs them before any command is imported); commands and add-ons import them from here too.
from ._options import OK as OK
from ._options import PROBLEMS as PROBLEMS
from ._options import USAGE as USAGE
from ._options import Command as Command
from ._options import UsageError as UsageError
from ._options import add_config_option as add_config_option
from ._options import add_json_option as add_json_option
from ._options import add_wide_option as add_wide_option

HOOK_LABELS = {
    "before_tool_call": "before",
    "after_tool_call": "after",
    "tool_visible": "visible",
    "on_event": "event",
}


def config_path(args: argparse.Namespace) -> Path | None:
    """The file ``--config`` names, else the one :func:`discover` finds, else None (defaults)."""
    given: str | None = getattr(args, "config", None)
    if given:
        return Path(given)
    found, _ = discover()
    return found


def read_config(args: argparse.Namespace) -> LoadedConfig:
    """The validated config; raises ConfigError (exit 1) for a missing or invalid file."""
    return load_config(config_path(args))


def skipping_load_errors(config: LoadedConfig) -> LoadedConfig:
    """A copy of ``config`` with ``[plugins] on_load_error = "skip"`` (failures get listed)."""
    return config.with_plugins(on_load_error="skip")


def with_tables(config: LoadedConfig, changes: dict[str, dict[str, Any]]) -> LoadedConfig:
    """A copy of ``config`` whose ``[plugins.<name>]`` tables have ``changes`` merged in.

    The copy keeps the source file, so errors still point at it.
    """
    data = copy.deepcopy(config.data)
    plugins = data.setdefault("plugins", {})
    for name, keys in changes.items():
        table = plugins.setdefault(name, {})
        table.update(keys)
    return dataclasses.replace(config, data=data)


def disabling(config: LoadedConfig, names: Iterable[str]) -> LoadedConfig:
    """A copy of ``config`` with ``names`` added to ``[plugins] disable``."""
    drop = [name for name in names if name not in config.plugins.disable]
    return config.with_plugins(disable=[*config.plugins.disable, *drop])


def build_runtime(config: LoadedConfig, **kwargs: Any) -> Runtime:
    """A runtime with the built-ins and installed plugins, as the agent would build it."""
    return Runtime(config=config, **kwargs)


def plugin_table(config: LoadedConfig, name: str) -> dict[str, Any]:
    """The plugin's own keys from ``[plugins.<name>]`` (framework keys removed)."""
    _, own = config.plugin_settings(name)
    return own


def print_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False, default=_json_default)
    sys.stdout.write("\n")


def json_line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    return repr(value)


def note(message: str) -> None:
    """A message for the person at the terminal, on stderr (stdout stays parseable)."""
    print(f"toolhooks: {message}", file=sys.stderr)


def hook_order(hooks: Iterable[str]) -> list[str]:
    """Hook names in pipeline order (before, after, visible, event), unknown ones last."""
    order = list(HOOK_LABELS)
    return sorted(hooks, key=lambda hook: order.index(hook) if hook in order else len(order))


def hooks_label(hooks: Iterable[str]) -> str:
    return ",".join(HOOK_LABELS.get(hook, hook) for hook in hook_order(hooks)) or "-"


def event_log_module() -> Any:
    """The event_log plugin package (its ``read_events`` / ``log_files`` readers), or None."""
    try:
        return importlib.import_module("toolhooks.plugins.event_log")
    except ImportError:  # pragma: no cover - a broken installation
        return None


def tools_label(tools: Iterable[str] | None) -> str:
    return "*" if tools is None else ",".join(tools) or "(none)"


def shown_config(config: LoadedConfig) -> str:
    return config.file or "(no config file: defaults)"
