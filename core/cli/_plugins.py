"""``toolhooks plugins``: every plugin the runtime would load, in the order its hooks run."""

from __future__ import annotations

import argparse
import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from ..loading._info import PluginInfo
from ..loading._lock import lock_path
from . import _table
from ._commands import help_of
from ._common import (
    OK,
    add_config_option,
    add_json_option,
    build_runtime,
    hooks_label,
    print_json,
    read_config,
    shown_config,
    skipping_load_errors,
    tools_label,
)

DESCRIPTION = """\
List the plugins a runtime built from this config loads, highest priority first: built-ins and
installed entry points. --all adds the ones that are not loaded (disabled in config, blocked as a
duplicate name, switched off by TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD, refused by the plugin lock,
or failing to load) with why.

With a plugin lock (toolhooks.lock next to the config, or [plugins] lock), a LOCK column marks
each plugin locked or unlocked; `toolhooks plugins lock` writes the lock.

A plugin that fails to load, or that the lock refuses, is an error (exit 1) unless --all is given
or the config says [plugins] on_load_error = "skip" (on_unlocked = "warn" for the lock)."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "plugins",
        help=help_of("plugins"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="include plugins that are not loaded (disabled, blocked, failed), with why",
    )
    add_json_option(parser, "the plugins")
    add_config_option(parser)
    parser.set_defaults(func=run)
    actions = parser.add_subparsers(dest="plugins_action", metavar="ACTION")
    from ._lock import add_parser as add_lock

    add_lock(actions)


def info_dict(info: PluginInfo) -> dict[str, Any]:
    """One plugin as JSON: every :class:`~toolhooks.PluginInfo` field."""
    return {
        "name": info.name,
        "version": info.version,
        "distribution": info.distribution,
        "source": info.source,
        "priority": info.priority,
        "hooks": list(info.hooks),
        "tools": None if info.tools is None else list(info.tools),
        "mode": info.mode,
        "enabled": info.enabled,
        "entry_point": info.entry_point,
        "reason": info.reason,
        "locked": info.locked,
    }


LOCK_LABELS = {True: "locked", False: "unlocked", None: "-"}


def rows(infos: list[PluginInfo], show_why: bool, show_lock: bool = False) -> list[list[object]]:
    table: list[list[object]] = []
    for info in infos:
        row: list[object] = [
            info.name,
            info.version or "-",
            info.distribution or "-",
            info.source,
            info.priority if info.enabled else "-",
            hooks_label(info.hooks) if info.enabled else "-",
            tools_label(info.tools) if info.enabled else "-",
            info.mode if info.enabled else "-",
            "yes" if info.enabled else "no",
        ]
        if show_lock:
            row.append(LOCK_LABELS[info.locked])
        if show_why:
            row.append(info.reason or "")
        table.append(row)
    return table


def _not_a_lock_skip(record: logging.LogRecord) -> bool:
    return not hasattr(record, "toolhooks_unlocked")


@contextlib.contextmanager
def quiet_lock_warnings() -> Iterator[None]:
    """The runtime logs each plugin the lock skips; this command lists them itself (other
    warnings still reach the terminal)."""
    logger = logging.getLogger("toolhooks")
    logger.addFilter(_not_a_lock_skip)
    try:
        yield
    finally:
        logger.removeFilter(_not_a_lock_skip)


def run(args: argparse.Namespace) -> int:
    config = read_config(args)
    if args.all:  # list what would fail or be refused, with why, instead of stopping at it
        config = skipping_load_errors(config)
        config = config.with_plugins(on_unlocked="warn")
    lock = lock_path(config)
    with quiet_lock_warnings():
        runtime = build_runtime(config)
    try:
        everything = runtime.plugins(include_disabled=True)
    finally:
        runtime.close()
    infos = everything if args.all else [info for info in everything if info.enabled]
    if args.json:
        print_json(
            {
                "config": config.file,
                "lock": None if lock is None else str(lock),
                "plugins": [info_dict(info) for info in infos],
            }
        )
        return OK
    print(_table.paragraph(f"config: {shown_config(config)}"))
    if lock is not None:
        print(_table.paragraph(f"lock: {lock} (only the plugins it lists load, unchanged)"))
    print()
    print(_plugin_table(infos, args.all, lock is not None))
    refused = [info.name for info in everything if info.locked is False]
    _print_not_loaded(infos, refused, args.all)
    return OK


def _plugin_table(infos: list[PluginInfo], show_all: bool, show_lock: bool) -> str:
    headers = [
        "NAME",
        "VERSION",
        "DISTRIBUTION",
        "SOURCE",
        "PRIORITY",
        "HOOKS",
        "TOOLS",
        "MODE",
        "ENABLED",
    ]
    align: list[_table.Align] = ["left", "left", "left", "left", "right"]
    if show_lock:
        headers.append("LOCK")
    why = len(headers)
    if show_all:
        headers.append("WHY")
    return _table.render(
        headers,
        rows(infos, show_all, show_lock),
        align=align,
        max_width=48,
        wrap=why if show_all else None,
        # On a narrow terminal the free text gives way first, then whole columns go.
        flex=[why, 6] if show_all else [6],
        drop=[1, 3, 2, 7, 5] if show_all else [1, 3, 2, 8, 7],
        empty="(no plugins)",
    )


def _print_not_loaded(infos: list[PluginInfo], refused: list[str], show_all: bool) -> None:
    """With --all, how many did not load; else the plugins the lock refused, if any."""
    hidden = [info for info in infos if not info.enabled]
    if show_all and hidden:
        print()
        print(f"{len(infos) - len(hidden)} loaded, {len(hidden)} not loaded")
    elif refused:
        print()
        print(
            _table.paragraph(
                f"not loaded, not in the lock or changed since: {', '.join(refused)} "
                "(--all says why; `toolhooks plugins lock --check` lists every difference)"
            )
        )
