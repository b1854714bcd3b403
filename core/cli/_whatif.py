"""``toolhooks whatif``: what a config would have decided about the calls a log recorded.

Output is streamed: each changed call is printed when it is found (a ``--json`` document too,
its ``changed`` list item by item), and the counts come last, so a log of millions of calls needs
no more memory than a small one. On a terminal, a progress line on stderr says how far it is.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

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
from ._output import is_terminal, output_width
from ._table import cell_width, clean, cut, pairs, render

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
SHOWN_PROBLEMS = 10
"""Unreadable lines and calls that cannot be replayed listed in the text output."""
PROGRESS_EVERY_S = 0.25


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


class Progress:
    """A line on a terminal's stderr saying how far the reading is; nothing anywhere else."""

    def __init__(self, run: Any, stream: TextIO, every_s: float = PROGRESS_EVERY_S) -> None:
        raw = getattr(stream, "wrapped", stream)  # our own text only: \r must reach the terminal
        self._stream: TextIO | None = raw if is_terminal(raw) else None
        self._run = run
        self._started = time.monotonic()
        self._every = every_s
        self._next = self._started + every_s
        self._shown = False

    def tick(self, calls: int) -> None:
        if self._stream is None or (calls % 128 and self._every > 0):
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + self._every
        reading = self._run.reading
        rate = calls / max(now - self._started, 1e-9)
        share = reading.bytes_done / reading.total_bytes if reading.total_bytes else 0.0
        files = len(reading.files)
        where = f", file {min(reading.files_done + 1, files)} of {files}" if files > 1 else ""
        text = f"whatif: {calls:,} calls ({rate:,.0f}/s){where}, {share:.0%} of the log read"
        self._stream.write(f"\r{text}\x1b[K")
        self._stream.flush()
        self._shown = True

    def done(self) -> None:
        if self._stream is not None and self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False


def params_summary(params: Mapping[str, Any], limit: int = 60) -> str:
    """``{command: "ls -la", cwd: "/ws"}``, cut to ``limit`` characters."""
    parts = []
    for key, value in params.items():
        shown = f'"{value}"' if isinstance(value, str) else json_line(value)
        parts.append(f"{key}: {shown}")
    text = "{" + ", ".join(parts) + "}"
    return cut(clean(text), limit)


def changed_line(result: Any, width: int | None) -> str:
    """``CALL_ID  TOOL  {params}  before -> after  (detail)``, fitted to ``width``."""
    head = f"{clean(result.call_id)}  {clean(result.tool)}  "
    verdict = f"{clean(result.before.label)} -> {clean(result.after.label)}"
    details = [clean(c.detail) for c in result.changes if c.kind == "rewrite changed" and c.detail]
    tail = f"  {verdict}" + (f"  ({'; '.join(details)})" if details else "")
    room = 60 if width is None else max(12, width - cell_width(head) - cell_width(tail))
    return head + params_summary(result.params, room) + tail


def run(args: argparse.Namespace) -> int:
    from ..whatif import NoLog, Selection, WhatIf

    config = read_config(args)
    plugins = load_plugins(args.plugins)
    sessions = [part.strip() for text in args.session for part in text.split(",") if part.strip()]
    select = Selection(
        since=args.since, until=args.until, sessions=frozenset(sessions) if sessions else None
    )
    try:
        whatif = WhatIf(args.logs, config, plugins=plugins, select=select)
    except NoLog as error:
        note(clean(str(error)))
        return PROBLEMS
    progress = Progress(whatif, sys.stderr, args.progress_every)
    out = sys.stdout
    width = output_width()
    if args.json:
        out.write('{"changed": [')
    else:
        files = whatif.reading.files
        shown = files[0] if len(files) == 1 else f"{files[0]} ... {files[-1]} ({len(files)} files)"
        print(pairs([("log", shown), ("config", shown_config(config))]))
        print()
    first = True
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
                out.write(("\n  " if first else ",\n  ") + json_line(entry))
            else:
                print(changed_line(result, width))
            first = False
    except OSError as error:
        progress.done()
        note(f"cannot read the log: {clean(str(error))}")
        return PROBLEMS
    finally:
        progress.done()  # also on Ctrl-C: the terminal's line is left clean
    tally, reading = whatif.tally, whatif.reading
    if args.json:
        out.write(("\n" if not first else "") + "],\n")
        summary = _summary(whatif, config.file)
        body = json_line(summary)[1:]  # the rest of the one object: '"unchanged": ...}'
        out.write(f" {body}\n")
    else:
        if first:
            print("no decision changed")
        _print_tally(tally, reading)
    return PROBLEMS if args.fail_on_change and tally.changed else OK


def _summary(whatif: Any, config_file: str | None) -> dict[str, Any]:
    tally, reading = whatif.tally, whatif.reading
    return {
        "unchanged": tally.unchanged,
        "unreadable": reading.skipped,
        "cannot_replay": tally.cannot_replay,
        "calls": tally.calls,
        "by_kind": dict(sorted(tally.by_kind.items())),
        "by_plugin": {p: dict(sorted(c.items())) for p, c in sorted(tally.by_plugin.items())},
        "cannot_replay_reasons": dict(sorted(tally.by_reason.items())),
        "cannot_replay_calls": [
            {"call_id": r.call_id, "tool": r.tool, "reason": r.problem} for r in tally.not_replayed
        ],
        "unreadable_lines": [
            {"file": s.file, "line": s.line, "problem": s.problem} for s in reading.kept
        ],
        "files": reading.files,
        "config": config_file,
    }


def _count(number: int, word: str) -> str:
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def _print_tally(tally: Any, reading: Any) -> None:
    print()
    print(
        f"{_count(tally.calls, 'call')}: {tally.changed:,} changed, {tally.unchanged:,} unchanged,"
        f" {tally.cannot_replay:,} cannot replay; "
        f"{_count(reading.skipped, 'unreadable line')} skipped"
    )
    if tally.by_kind:
        print()
        rows = [[kind, f"{count:,}"] for kind, count in tally.by_kind.most_common()]
        print(render(["CHANGE", "CALLS"], rows, align=["left", "right"]))
        print()
        plugin_rows = [
            [
                plugin,
                f"{sum(counts.values()):,}",
                ", ".join(f"{n:,} {kind}" for kind, n in counts.most_common()),
            ]
            for plugin, counts in sorted(tally.by_plugin.items())
        ]
        print(
            render(
                ["PLUGIN", "CHANGES", "OF WHICH"],
                plugin_rows,
                align=["left", "right", "left"],
                wrap=2,
            )
        )
    if tally.cannot_replay:
        print()
        reasons = ", ".join(f"{n:,} {reason}" for reason, n in tally.by_reason.most_common())
        print(f"cannot replay {_count(tally.cannot_replay, 'call')}: {clean(reasons)}")
        for result in tally.not_replayed[:SHOWN_PROBLEMS]:
            print(f"  {clean(result.call_id)} {clean(result.tool)}: {clean(result.problem)}")
        if tally.cannot_replay > SHOWN_PROBLEMS:
            print(f"  ... and {tally.cannot_replay - SHOWN_PROBLEMS:,} more (--json lists 100)")
    for skipped in reading.kept[:SHOWN_PROBLEMS]:
        note(f"{clean(skipped.file)}:{skipped.line}: skipped: {clean(skipped.problem)}")
    if reading.skipped > SHOWN_PROBLEMS:
        note(
            f"... and {reading.skipped - SHOWN_PROBLEMS:,} more unreadable lines (--json lists 100)"
        )
