"""``toolhooks whatif``: what a config would have decided about the calls a log recorded.

Output is streamed: each changed call is printed when it is found (a ``--json`` document too,
its ``changed`` list item by item), and the counts come last, so a log of millions of calls needs
no more memory than a small one. On a terminal, a progress line on stderr says how far it is.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ._commands import help_of
from ._common import (
    OK,
    PROBLEMS,
    UsageError,
    add_config_option,
    add_json_option,
    json_line,
    note,
    read_config,
    shown_config,
)
from ._events import parse_since
from ._output import output_width
from ._table import clean, pairs
from ._whatif_output import PROGRESS_EVERY_S, Progress, changed_line, print_tally, summary

if TYPE_CHECKING:
    from ..whatif import Selection, WhatIf  # imported when run: --help stays light

DESCRIPTION = """\
Replay every call an event log recorded (tool, params as proposed, sender, session, agent,
origin) through the pipeline of this config (--config NEW.toml, plus --plugins), with nothing
real running: the recorded result stands in for the tool, and an approval is answered as it was
answered then. Compare each call's decision with the recorded one, and print every call whose
decision changed (ok, blocked by X, needs approval from X, rewritten F, loop warning), then the
counts by kind of change and by plugin.

EVENTS is a log file (its rotated files .1, .2, ... included), a rotated file alone, or a folder
of logs; several may be given. Calls whose params the log did not keep (cut for size, redacted,
no tool.proposed) are counted as "cannot replay", never guessed. Lines that are not events are
skipped and counted, with their file and line number.

Exit code 1 with --fail-on-change when any decision changed (for CI), or when a log cannot be
read."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "whatif",
        help=help_of("whatif"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("logs", metavar="EVENTS", nargs="+", help="event log files or folders")
    parser.add_argument(
        "--plugins",
        metavar="MODULE:NAME",
        action="append",
        default=[],
        help="also run this plugin (a class, object or module; repeatable or comma-separated): "
        "try a plugin before it is installed",
    )
    parser.add_argument(
        "--fail-on-change", action="store_true", help="exit 1 when any decision changed"
    )
    parser.add_argument(
        "--since",
        metavar="WHEN",
        type=parse_since,
        help="only calls proposed at or after WHEN: 30s, 10m, 2h, 1d, 1w, or an ISO date",
    )
    parser.add_argument(
        "--until", metavar="WHEN", type=parse_since, help="only calls proposed before WHEN"
    )
    parser.add_argument(
        "--session",
        metavar="ID",
        action="append",
        default=[],
        help="only the calls of this session (repeatable or comma-separated)",
    )
    parser.add_argument(
        "--progress-every",
        metavar="SECONDS",
        type=float,
        default=PROGRESS_EVERY_S,
        help=argparse.SUPPRESS,  # how often the terminal's progress line is redrawn (tests)
    )
    add_json_option(parser, "the changed calls and the counts")
    add_config_option(parser)
    parser.set_defaults(func=run)


def load_plugins(specs: list[str]) -> list[Any]:
    """The objects ``--plugins`` names (``module:attribute`` or a module)."""
    found: list[Any] = []
    for spec in (part.strip() for text in specs for part in text.split(",")):
        if not spec:
            continue
        module_name, _, attribute = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except Exception as error:  # an import error, or whatever the module raises
            raise UsageError(f"--plugins {spec}: cannot import {module_name}: {error}") from None
        if not attribute:
            found.append(module)
            continue
        target: Any = module
        for part in attribute.split("."):
            target = getattr(target, part, None)
            if target is None:
                raise UsageError(f"--plugins {spec}: {module_name} has no {attribute}")
        found.append(target)
    return found


def run(args: argparse.Namespace) -> int:
    from ..whatif import NoLog, WhatIf

    config = read_config(args)
    plugins = load_plugins(args.plugins)
    try:
        whatif = WhatIf(args.logs, config, plugins=plugins, select=_selection(args))
    except NoLog as error:
        note(clean(str(error)))
        return PROBLEMS
    if _uses_from(config.data):
        note(FROM_NOT_REPLAYED)
    out = sys.stdout
    if args.json:
        out.write('{"changed": [')
    else:
        files = whatif.reading.files
        shown = files[0] if len(files) == 1 else f"{files[0]} ... {files[-1]} ({len(files)} files)"
        print(pairs([("log", shown), ("config", shown_config(config))]))
        print()
    try:
        changed = _stream_changes(whatif, args, out)
    except OSError as error:
        note(f"cannot read the log: {clean(str(error))}")
        return PROBLEMS
    if args.json:
        out.write(("\n" if changed else "") + "],\n")
        counts = summary(whatif, config.file)
        body = json_line(counts)[1:]  # the rest of the one object: '"unchanged": ...}'
        out.write(f" {body}\n")
    else:
        if not changed:
            print("no decision changed")
        print_tally(whatif.tally, whatif.reading)
    return PROBLEMS if args.fail_on_change and whatif.tally.changed else OK


FROM_NOT_REPLAYED = (
    "this config's rules use `from`: whatif replays each session's labels in log order, but the "
    "log keeps no result text (a digest), so no `from` condition holds in the replay and what it "
    "decided may show as changed"
)


def _uses_from(data: dict[str, Any]) -> bool:
    """Whether a ``[[rules]]`` entry of the config has a ``from`` condition."""
    rules = data.get("rules")
    return isinstance(rules, list) and any(isinstance(r, dict) and "from" in r for r in rules)


def _selection(args: argparse.Namespace) -> Selection:
    from ..whatif import Selection

    sessions = [part.strip() for text in args.session for part in text.split(",") if part.strip()]
    return Selection(
        since=args.since, until=args.until, sessions=frozenset(sessions) if sessions else None
    )


def _stream_changes(whatif: WhatIf, args: argparse.Namespace, out: TextIO) -> int:
    """Print each changed call as it is found (a ``--json`` list item, or a line); how many."""
    progress = Progress(whatif, sys.stderr, args.progress_every)
    width = output_width()
    changed = 0
    try:
        for result in whatif:
            progress.tick(whatif.tally.calls)
            before, after = result.before, result.after
            if not result.changes or before is None or after is None:
                continue
            if args.json:
                entry = {
                    "call_id": result.call_id,
                    "tool": result.tool,
                    "session_id": result.session_id,
                    "before": before.label,
                    "after": after.label,
                    "by": result.by,
                    "kinds": [change.kind for change in result.changes],
                }
                out.write(("\n  " if not changed else ",\n  ") + json_line(entry))
            else:
                print(changed_line(result, width))
            changed += 1
    finally:
        progress.done()  # also on Ctrl-C: the terminal's line is left clean
    return changed
