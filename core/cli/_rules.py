"""``toolhooks rules import AGENT FILE``: an agent's own permission rules as ``[[rules]]``;
``toolhooks rules export --cedar``: the config's ``[[rules]]`` in another policy language.

Both print text to review and never change a file: a person reads what a translation kept and
what it left out (each left-out entry named, with why).

The exporters are other distributions' (entry-point group ``toolhooks.rules.exporters``, the
entry point named like the option: ``cedar = "toolhooks_cedar:export_rules"``): the language's
facts (what the Cedar plugin puts in ``context``) belong to the plugin that defines them, and the
core imports no add-on. An exporter is called as ``export(rules, settings=..., groups=...)``
with the validated rules (records with ``RuleConfig``'s fields, in order), the ``[plugins.rules]``
settings (``RulesSettings``' fields) and the tool groups, and returns
an object with ``text`` (the policy) and ``skipped`` (``(rule id or setting, why)`` pairs).
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from ._commands import help_of
from ._common import OK, UsageError, add_config_option, config_path
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
review the output, then add it to toolhooks.toml.

export --cedar prints the config's [[rules]] as Cedar policies for the cedar plugin (installed
with toolhooks-cedar): each rule Cedar can express with the same meaning becomes a forbid (ask
rules a forbid annotated @decision("ask")); every other rule, and each [plugins.rules] setting
Cedar cannot hold, is named with why, as a comment in the output and on stderr."""

EXPORTERS = "toolhooks.rules.exporters"
"""The entry-point group of the ``rules export`` formats (the module docstring)."""
FORMATS = {"cedar": "toolhooks-cedar"}
"""Each export format: its option and the distribution that provides it."""


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
    exporter = actions.add_parser(
        "export",
        help="print the config's [[rules]] as Cedar policies (--cedar), naming what cannot be",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    formats = exporter.add_mutually_exclusive_group(required=True)
    formats.add_argument(
        "--cedar",
        dest="format",
        action="store_const",
        const="cedar",
        help="Cedar policies for the cedar plugin (needs toolhooks-cedar)",
    )
    add_config_option(exporter)
    exporter.set_defaults(func=run_export)


def run_import(args: argparse.Namespace) -> int:
    try:
        imported = import_rules(args.agent, args.file)
    except UnreadableRules as exc:
        raise UsageError(str(exc)) from None
    sys.stdout.write(render(imported))
    for skip in imported.skipped:
        print(f"not translated: {skipped_line(skip)}", file=sys.stderr)
    return OK


def run_export(args: argparse.Namespace) -> int:
    export = _exporter(args.format)
    from ..runtime._runtime import Runtime

    path = config_path(args)
    if path is None:
        raise UsageError("no config found: give --config FILE (a toolhooks.toml with [[rules]])")
    runtime = Runtime(config=path)  # the rules are validated (and self-tested) as an agent's are
    try:
        plugin = runtime.get_plugin("rules")
        ruleset = getattr(plugin, "rules", None)
        if ruleset is None or not ruleset.rules:
            raise UsageError(f"{path}: no [[rules]] to export")
        result = export(
            [rule.config for rule in ruleset.rules],
            settings=plugin.config,
            groups=dict(ruleset.groups),
        )
    finally:
        runtime.close()
    sys.stdout.write(result.text)
    for name, why in result.skipped:
        print(f"not exported: {name}: {why}", file=sys.stderr)
    return OK


def _exporter(name: str) -> Any:
    """The installed exporter of format ``name``; a UsageError naming the package without one."""
    for entry_point in metadata.entry_points(group=EXPORTERS):
        if entry_point.name == name:
            try:
                return entry_point.load()
            except Exception as exc:
                reason = " ".join(str(exc).split()) or type(exc).__name__
                raise UsageError(
                    f"--{name}: the exporter of {FORMATS[name]} failed to load "
                    f"({type(exc).__name__}: {reason})"
                ) from None
    raise UsageError(f"--{name} needs {FORMATS[name]}: pip install {FORMATS[name]}")
