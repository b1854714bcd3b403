"""``toolhooks doctor``: check an installation and its config, say how to fix what is wrong."""

from __future__ import annotations

import argparse
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from ..records._errors import ConfigError
from . import _table
from ._agents_wired import check_agents
from ._check_plugins import check_plugins, close_all
from ._check_storage import check_approvals, check_folders, check_log_chain
from ._check_ties import check_ties
from ._checks import Check, check_config
from ._commands import help_of
from ._common import OK, PROBLEMS, add_config_option, add_json_option, config_path, print_json

DESCRIPTION = """\
Check everything a runtime needs, print each check as ok / warning / error with a fix-it line:

  config          the file's TOML syntax and keys; [plugins.<name>] tables name real plugins
  plugin lock     toolhooks.lock (or [plugins] lock), when there is one, matches the installed
                  plugins: none missing from it, none changed since (a refused plugin is not
                  imported by the checks below)
  plugin <name>   each entry point: not a duplicate name, imports, its config validates, its
                  hooks match the specs (an unknown hook name is an error), no near-miss names
  priority ties   two plugins that both rewrite params at the same priority (order would then
                  depend on registration order)
  event log       the log's folder is writable
  artifacts       the result_budget artifact folder is writable
  approvals       the approval store of [approvals] route opens
  agent <name>    a coding agent whose settings (this project's, or the user's) run
                  `toolhooks hook <name>`, and every event `toolhooks hook install` wires

Exit code 1 when any check is an error, else 0 (warnings do not fail)."""
MARKS = {"ok": "ok", "warning": "warning", "error": "ERROR"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help=help_of("doctor"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_json_option(parser, "the checks")
    add_config_option(parser)
    parser.set_defaults(func=run)


def run_checks(args: argparse.Namespace) -> tuple[str | None, list[Check]]:
    """Every check in order; the config's path (None for the defaults) and the results."""
    try:
        path = config_path(args)
    except ConfigError as exc:
        config, checks = check_config(None)
        checks = [
            Check("error", "config", str(exc), "unset $TOOLHOOKS_CONFIG or point it at a file")
        ]
        path = None
    else:
        config, checks = check_config(path)
    loaded, plugin_checks = check_plugins(config)
    try:
        checks.extend(plugin_checks)
        log = loaded.plugins.get("event_log")
        log_path = getattr(log, "path", None)
        checks.extend(check_ties(loaded, log_path if isinstance(log_path, str) else None))
        checks.extend(check_folders(loaded))
        checks.append(check_log_chain(loaded))
        checks.append(check_approvals(config))
        checks.extend(check_agents(Path.cwd(), Path.home()))
    finally:
        close_all(loaded)
    return (None if path is None else str(path)), checks


def run(args: argparse.Namespace) -> int:
    path, checks = run_checks(args)
    errors = sum(1 for c in checks if c.status == "error")
    warnings = sum(1 for c in checks if c.status == "warning")
    about = environment(path)
    if args.json:
        print_json(
            {
                **about,
                "ok": errors == 0,
                "errors": errors,
                "warnings": warnings,
                "checks": [c.to_dict() for c in checks],
            }
        )
        return PROBLEMS if errors else OK
    print(
        _table.pairs(
            [
                ("toolhooks", f"{about['toolhooks']} ({about['location']})"),
                ("python", f"{about['python']} ({about['executable']})"),
                ("config", path or "(no config file: defaults)"),
            ]
        )
    )
    print()
    rows: list[list[object]] = []
    for check in checks:
        rows.append([MARKS[check.status], check.check, check.detail])
        if check.fix:
            rows.append(["", "", f"fix: {check.fix}"])
    print(_table.render(["STATUS", "CHECK", "DETAIL"], rows, wrap=2, status=[0]))
    print()
    if errors:
        print(f"{_count(errors, 'error')}, {_count(warnings, 'warning')}: see the fix lines above")
    elif warnings:
        print(f"no errors, {_count(warnings, 'warning')} ({len(checks)} checks)")
    else:
        print(f"all {len(checks)} checks passed")
    return PROBLEMS if errors else OK


def environment(config: str | None) -> dict[str, Any]:
    """What a bug report needs: the versions and where they live."""
    try:
        version = metadata.version("toolhooks")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree on sys.path
        version = "unknown"
    return {
        "config": config,
        "toolhooks": version,
        "location": str(Path(__file__).resolve().parent.parent),
        "python": platform.python_version(),
        "executable": sys.executable,
    }


def _count(number: int, word: str) -> str:
    return f"{number} {word}" + ("" if number == 1 else "s")
