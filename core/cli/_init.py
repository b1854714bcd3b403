"""``toolhooks init``: a project's ``toolhooks.toml`` from a starter policy, checked, and
optionally one coding agent's hook wired to it, with what to try next.

The policy is one of the rules plugin's package files (``toolhooks.plugins.rules``): the deny
list for an agent that still asks its user before a command runs, or with ``--unattended`` the
allow list for an agent in an auto-approve mode (what it does not know asks). The written file is loaded once as a runtime
would load it, so its rules' own examples (``match`` / ``not_match``) are checked before the
command says it is done. An existing ``toolhooks.toml`` is never replaced without ``--force``:
the command shows how it differs and stops. Running it again changes nothing.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config._settings import CONFIG_FILE, load_config, read_toml
from ._commands import help_of
from ._common import OK, PROBLEMS, build_runtime

POLICIES = {False: "deny-list", True: "allow-list"}
"""``--unattended`` -> the starter policy's name in ``toolhooks.plugins.rules``."""
TRY_COMMAND = "rm -rf ~"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help=help_of("init"),
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
    )
    parser.add_argument(
        "--unattended",
        action="store_true",
        help="the allow list, for an agent that runs calls without asking its user (what the "
        "policy does not know asks); default: the deny list, for an agent that still asks",
    )
    parser.add_argument(
        "--agent",
        metavar="AGENT",
        choices=_agents(),
        help=f"also wire this coding agent's hook ({', '.join(_agents())})",
    )
    parser.add_argument(
        "--scope",
        choices=("project", "user"),
        default="project",
        help="with --agent: the project's agent settings (default) or your user settings",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an existing toolhooks.toml that differs"
    )
    parser.add_argument(
        "--dir",
        metavar="PATH",
        type=Path,
        default=None,
        help="the project folder (default: the current one)",
    )
    parser.set_defaults(func=run)


def _agents() -> list[str]:
    from ..agents import PROTOCOLS

    return sorted(PROTOCOLS)


@dataclass(frozen=True, slots=True, kw_only=True)
class Written:
    """What happened to ``toolhooks.toml``: ``wrote``, ``replaced``, ``unchanged`` or
    ``differs`` (left alone: an existing file and no ``--force``)."""

    path: Path
    status: str
    diff: str = ""


def write_policy(path: Path, text: str, force: bool) -> Written:
    """Write ``text`` to ``path`` unless a different file is there and ``force`` is not given."""
    if not path.exists():
        path.write_text(text, encoding="utf-8")
        return Written(path=path, status="wrote")
    current = path.read_text(encoding="utf-8", errors="replace")
    if current == text:
        return Written(path=path, status="unchanged")
    diff = "".join(
        difflib.unified_diff(
            current.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"{path.name} (yours)",
            tofile=f"{path.name} (starter)",
        )
    )
    if not force:
        return Written(path=path, status="differs", diff=diff)
    path.write_text(text, encoding="utf-8")
    return Written(path=path, status="replaced", diff=diff)


def self_test(path: Path) -> tuple[int, int]:
    """Load ``path`` as a runtime does (a ConfigError names the rule and example that fail);
    return (rules, examples checked)."""
    config = load_config(path)
    build_runtime(config).close()
    rules = read_toml(path).get("rules", [])
    examples = sum(len(r.get("match", [])) + len(r.get("not_match", [])) for r in rules)
    return len(rules), examples


def run(args: argparse.Namespace) -> int:
    project = (args.dir or Path.cwd()).resolve()
    if not project.is_dir():
        print(f"toolhooks init: {project} is not a folder", file=sys.stderr)
        return PROBLEMS
    name = POLICIES[args.unattended]
    starters = importlib.import_module("toolhooks.plugins.rules")
    written = write_policy(project / CONFIG_FILE, starters.starter_policy(name), args.force)
    if written.status == "differs":
        sys.stdout.write(written.diff)
        print(
            f"toolhooks init: {written.path} exists and differs from the {name} starter policy "
            "(above); nothing was changed. --force replaces it.",
            file=sys.stderr,
        )
        return PROBLEMS
    if written.status == "replaced":
        sys.stdout.write(written.diff)
    rules, examples = self_test(written.path)
    print(f"{written.path}: {written.status} (the {name} starter policy, {rules} rules)")
    print(f"  self-tests: the policy loads and its {examples} examples decide as written")
    if args.agent:
        print(_wire(args.agent, args.scope, project))
    print(_next_steps(project, args.agent))
    return OK


def _wire(agent: str, scope: str, project: Path) -> str:
    from ..agents._install import hook_command, install

    done = install(agent, scope, project, Path.home(), hook_command(agent))
    return f"{agent}: {done.path}: {done.message}"


def _next_steps(project: Path, agent: str | None) -> str:
    call = json.dumps({"name": "exec", "params": {"command": TRY_COMMAND}})
    cd = "" if project == Path.cwd().resolve() else f"cd {shlex.quote(str(project))} && "
    lines = [
        "next:",
        f"  {cd}toolhooks explain --call {shlex.quote(call)}",
        "      what the rules see in a call and which rule decides",
        "  toolhooks test",
        "      your own cases (*.cases.toml): the how-to 'Change a policy safely'",
    ]
    if agent:
        lines.append(f"  start {agent} here: every tool call now goes through toolhooks")
    else:
        lines.append("  toolhooks init --agent claude-code")
        lines.append("      wire a coding agent's hook too (codex, gemini, cursor, ...)")
    return "\n".join(lines)
