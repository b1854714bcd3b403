"""``toolhooks plugins lock [--check]``: pin the plugin set in ``toolhooks.lock``, or check it.

Writing reads distribution metadata and hashes files; no plugin is imported. ``--check`` writes
nothing and exits 1 listing every difference, for CI.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..loading import _files
from ..loading._entry_points import autoload_disabled
from ..loading._lock import current_entries, differences, lock_target
from ..loading._lock_file import LockEntry, addon_text, read_lock, render, write
from ..records._errors import ConfigError
from . import _table
from ._common import (
    OK,
    PROBLEMS,
    UsageError,
    add_config_option,
    add_json_option,
    note,
    print_json,
    read_config,
)

HELP = "write toolhooks.lock next to the config: the plugins that may load, pinned (--check: CI)"
DESCRIPTION = """\
Write toolhooks.lock next to the config file (or where [plugins] lock names): every plugin a
runtime built from this config would load, built-ins included, with its entry point, distribution,
version and a sha256 over the distribution's installed files. Nothing is imported.

While the lock exists, a runtime loads only the plugins it lists, unchanged: an installed plugin
that is not listed, or whose entry point, distribution, version or files differ, is refused (a
config error naming it and what differs), or skipped with a warning when [plugins] on_unlocked =
"warn". Run this again after installing, upgrading or editing a plugin, and review the diff.

--check writes nothing: exit 0 when the lock matches the installed plugins, else exit 1 listing
every difference (for CI)."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lock",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing every difference between the lock and what is installed",
    )
    add_json_option(parser, "the lock's plugins and the differences")
    add_config_option(parser)
    parser.set_defaults(func=run)


def entry_dict(entry: LockEntry) -> dict[str, Any]:
    return {
        "name": entry.name,
        "entry_point": entry.entry_point,
        "distribution": entry.distribution,
        "version": entry.version,
        "sha256": entry.sha256,
        "files": entry.files,
        "editable": entry.editable,
    }


def run(args: argparse.Namespace) -> int:
    config = read_config(args)
    target = lock_target(config)
    if target is None or config.source is None:
        raise UsageError(
            "no config file: the lock goes next to it; create toolhooks.toml (it may be empty) "
            "or name one with --config FILE"
        )
    if autoload_disabled():
        note("TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD is set: only the built-ins would load, so only "
             "they are in the lock")  # fmt: skip
    _files.forget()  # hash what is on disk now, also when called in a process that hashed before
    current = current_entries(config)
    if args.check:  # a lock that cannot be read is the command's error (exit 1, one line)
        return _check(
            args, target, read_lock(target).entries if target.is_file() else None, current
        )
    try:
        old = read_lock(target).entries if target.is_file() else None
    except ConfigError as exc:
        note(f"replacing a lock that cannot be read: {exc}")
        old = None
    found = differences(old, current) if old is not None else []
    for entry in sorted(current.values(), key=_name):
        if entry.shadowed is not None:  # locked anyway: the files are right, the path is not
            note(f"plugin {entry.name!r} will be refused until this is removed: {entry.shadowed}")
    kept = addon_text(target.read_text(encoding="utf-8")) if target.is_file() else ""
    text = render(current.values(), config.source.name, kept)  # add-ons' tables kept as they are
    unchanged = target.is_file() and target.read_text(encoding="utf-8") == text
    if not unchanged:
        write(target, text)
    if args.json:
        print_json(
            {
                "lock": str(target),
                "written": not unchanged,
                "changes": found,
                "plugins": [entry_dict(e) for e in sorted(current.values(), key=_name)],
            }
        )
        return OK
    count = f"{len(current)} plugin{'s' if len(current) != 1 else ''}"
    if unchanged:
        print(f"{target} is up to date: {count}")
    else:
        print(f"wrote {target}: {count}")
    for line in found:
        print(_table.paragraph(f"changed: {line}", indent="  "))
    print()
    print(_render_table(current.values()))
    return OK


def _check(
    args: argparse.Namespace,
    target: Path,
    old: Mapping[str, LockEntry] | None,
    current: Mapping[str, LockEntry],
) -> int:
    if old is None:
        found = [f"{target} does not exist: run `toolhooks plugins lock` to write it"]
    else:
        found = differences(old, current)
    if args.json:
        print_json(
            {
                "lock": str(target),
                "ok": not found,
                "differences": found,
                "plugins": [entry_dict(e) for e in sorted(current.values(), key=_name)],
            }
        )
        return PROBLEMS if found else OK
    if not found:
        count = f"{len(current)} plugin{'s' if len(current) != 1 else ''}"
        print(f"{target} matches the installed plugins: {count}")
        return OK
    print(f"{target} does not match the installed plugins:")
    for line in found:
        print(_table.paragraph(f"- {line}", indent="  "))
    print()
    print("review the changes, then run `toolhooks plugins lock` to approve them")
    return PROBLEMS


def _render_table(entries: Iterable[LockEntry]) -> str:
    rows: list[list[object]] = [
        [
            e.name,
            e.distribution or "-",
            e.version or "-",
            e.sha256[:12],
            e.files,
            "yes" if e.editable else "no",
        ]
        for e in sorted(entries, key=_name)
    ]
    return _table.render(
        ["NAME", "DISTRIBUTION", "VERSION", "SHA256", "FILES", "EDITABLE"],
        rows,
        align=["left", "left", "left", "left", "right"],
        empty="(no plugins)",
    )


def _name(entry: LockEntry) -> str:
    return entry.name
