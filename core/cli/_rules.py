"""``toolhooks rules import AGENT FILE``: an agent's own permission rules as ``[[rules]]``.

The command prints TOML to paste into ``toolhooks.toml`` and never changes a file: a person
reviews what a translation kept and what it left out (listed at the end, each with why).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._commands import help_of
from ._common import OK, UsageError
from ._rules_import import AGENTS, UnreadableRules, import_rules, render, skipped_line

DESCRIPTION = """\
import AGENT FILE prints the [[rules]] equivalent of a coding agent's own permission rules:
  claude-code  a settings.json's permissions.allow / ask / deny (Bash(...), Read(...), Edit(...),
               WebFetch(domain:...), mcp__server__tool)
  gemini       a Gemini CLI policy TOML file's [[rule]] tables (toolName, commandPrefix, decision)
  codex        a Codex .rules file's prefix_rule(...) calls (pattern, decision, justification,
               match, not_match)
Every entry that cannot be translated with the same meaning is named at the end, with why
(a regex over the command text, an approval mode, a Starlark expression). Nothing is written:
review the output, then add it to toolhooks.toml."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        help=help_of("rules"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="rules_action", metavar="ACTION", required=True)
    importer = actions.add_parser(
        "import",
        help="print the [[rules]] equivalent of an agent's permission rules",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    importer.add_argument("agent", choices=AGENTS, metavar="AGENT", help=", ".join(AGENTS))
    importer.add_argument("file", type=Path, metavar="FILE", help="the agent's rules file")
    importer.set_defaults(func=run_import)


def run_import(args: argparse.Namespace) -> int:
    try:
        imported = import_rules(args.agent, args.file)
    except UnreadableRules as exc:
        raise UsageError(str(exc)) from None
    sys.stdout.write(render(imported))
    for skip in imported.skipped:
        print(f"not translated: {skipped_line(skip)}", file=sys.stderr)
    return OK
