"""``toolhooks new plugin NAME [--dir DIR]``: write a plugin package that installs and passes its
tests as generated (what it holds: ``_scaffold``).

The package is written into a temporary folder next to DIR and moved into place in one rename,
so a failure halfway leaves nothing behind; DIR may exist only when it is empty.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from ._commands import help_of
from ._options import OK, UsageError
from ._scaffold import BadName, Names, ScaffoldError, check_importable, names_for, render

DESCRIPTION = """\
Write a new plugin package: pyproject.toml (the toolhooks entry point, and the range on toolhooks
this release's hook API needs), the plugin with one before_tool_call and one after_tool_call
handler and a pydantic Config, tests on toolhooks' pytest fixtures and a policy case file, a
README, a CHANGELOG and a CI workflow. `pip install -e DIR` and `pytest` in DIR pass as
generated; `toolhooks plugins` lists it.

NAME is the distribution name (lowercase letters, digits, - and _); the module is NAME with - as
_, and the plugin's name drops a leading toolhooks-: toolhooks-no-force-push is the plugin
no_force_push in the module toolhooks_no_force_push."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "new",
        help=help_of("new"),
        description="Start a new package from a template (toolhooks new plugin NAME).",
    )
    parser.set_defaults(func=lambda args: _usage(parser))
    kinds = parser.add_subparsers(dest="new_kind", metavar="KIND")
    plugin = kinds.add_parser(
        "plugin",
        help="a plugin package: entry point, example hooks, tests, policy cases, CI",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plugin.add_argument("name", metavar="NAME", help="the distribution name, e.g. toolhooks-guard")
    plugin.add_argument(
        "--dir",
        metavar="DIR",
        help="the folder to create (default: ./NAME); it may exist only when empty",
    )
    plugin.set_defaults(func=new_plugin)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def new_plugin(args: argparse.Namespace) -> int:
    try:
        names = names_for(args.name)
        check_importable(names)
    except BadName as exc:
        raise UsageError(str(exc)) from None
    target = Path(args.dir if args.dir else names.dist)
    files = render(names)
    write(target, files)
    _report(target, names, files)
    return OK


def write(target: Path, files: dict[str, str]) -> None:
    """Write ``files`` as the folder ``target``: all of them, or none (ScaffoldError)."""
    if target.exists() or target.is_symlink():
        if not target.is_dir() or target.is_symlink():
            raise ScaffoldError(f"{target} exists and is not a folder; choose another --dir")
        if any(target.iterdir()):
            raise ScaffoldError(f"{target} exists and is not empty; nothing was written")
    parent = target.absolute().parent
    # Not tempfile.mkdtemp: its folder is 0700, and it becomes the package folder.
    staging = parent / f".{target.name}-{secrets.token_hex(6)}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
    except OSError as exc:
        raise ScaffoldError(f"cannot create {target}: {exc.strerror or exc}") from None
    try:
        for path, text in files.items():
            file = staging / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
        if target.is_dir():
            target.rmdir()  # empty, as checked; fails if something appeared meanwhile
        os.rename(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise ScaffoldError(f"cannot write {target}: {exc.strerror or exc}") from None


def _report(target: Path, names: Names, files: dict[str, str]) -> None:
    print(
        f"Created {names.dist} in {target}: the plugin {names.plugin!r} "
        f"({names.module}:{names.cls})"
    )
    for path in sorted(files):
        print(f"  {path}")
    print("\nNext:")
    print(f"  cd {shlex.quote(str(target))}")
    print("  python -m pip install -e '.[test]'")
    print("  python -m pytest          # its tests and its policy cases")
    print(f"  toolhooks plugins        # lists {names.plugin}")
