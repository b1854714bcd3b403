"""``toolhooks plugins``: every plugin the runtime would load, in the order its hooks run."""

from __future__ import annotations

import argparse
from typing import Any

from ..loading._inventory import PluginInfo
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
duplicate name, switched off by TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD, or failing to load) with why.

A plugin that fails to load is an error (exit 1) unless --all is given or the config says
[plugins] on_load_error = "skip"."""


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
    }


def rows(infos: list[PluginInfo], show_why: bool) -> list[list[object]]:
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
        if show_why:
            row.append(info.reason or "")
        table.append(row)
    return table


def run(args: argparse.Namespace) -> int:
    config = read_config(args)
    if args.all:
        config = skipping_load_errors(config)
    runtime = build_runtime(config)
    try:
        infos = runtime.plugins(include_disabled=args.all)
    finally:
        runtime.close()
    if args.json:
        print_json({"config": config.file, "plugins": [info_dict(info) for info in infos]})
        return OK
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
    if args.all:
        headers.append("WHY")
    print(_table.paragraph(f"config: {shown_config(config)}"))
    print()
    print(
        _table.render(
            headers,
            rows(infos, args.all),
            align=align,
            max_width=48,
            wrap=9 if args.all else None,
            # On a narrow terminal the free text gives way first, then whole columns go.
            flex=[9, 6] if args.all else [6],
            drop=[1, 3, 2, 7, 5] if args.all else [1, 3, 2, 8, 7],
            empty="(no plugins)",
        )
    )
    hidden = [info for info in infos if not info.enabled]
    if args.all and hidden:
        print()
        print(f"{len(infos) - len(hidden)} loaded, {len(hidden)} not loaded")
    return OK
