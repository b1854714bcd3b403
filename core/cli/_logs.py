"""``toolhooks logs``: read the JSONL event log, filter it, group each call's events, follow it
(the following itself, across rotation, is :mod:`._tail`)."""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
from pathlib import Path
from typing import Any

from ._commands import help_of
from ._common import (
    OK,
    PROBLEMS,
    add_config_option,
    add_wide_option,
    event_log_module,
    json_line,
    note,
    plugin_table,
    read_config,
)
from ._events import (
    KNOWN_EVENTS,
    Ambiguous,
    EventFilter,
    GroupedPrinter,
    history,
    parse_since,
    resolve,
)
from ._table import clean
from ._tail import follow_events

DESCRIPTION = """\
Print the events of the JSONL event log ([plugins.event_log] path, default
.toolhooks/events.jsonl), oldest first, rotated files included. A person sees each call's events
grouped under one heading; --json prints the matching events as JSON lines, unchanged.

--follow keeps printing new events as they are written, across rotation (the log is renamed to
events.jsonl.1 and a new file started), until interrupted. Exit code 1 when there is no log
(without --follow, which waits for it)."""
DEFAULT_PATH = ".toolhooks/events.jsonl"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "logs",
        help=help_of("logs"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-f", "--follow", action="store_true", help="keep printing new events")
    parser.add_argument("--json", action="store_true", help="print matching events as JSON lines")
    parser.add_argument(
        "--trace", metavar="ID", help="only this trace (its id, a unique prefix, or its #handle)"
    )
    parser.add_argument(
        "--call", metavar="ID", help="only this call (its id, a unique prefix, or its #handle)"
    )
    parser.add_argument("--session", metavar="ID", help="only this session")
    parser.add_argument(
        "--since",
        metavar="WHEN",
        type=parse_since,
        help="only events after WHEN: 30s, 10m, 2h, 1d, or an ISO date and time",
    )
    parser.add_argument(
        "--event",
        metavar="NAME",
        action="append",
        default=[],
        help="only these events (repeatable, comma-separated, * wildcard: tool.*)",
    )
    parser.add_argument(
        "--file", metavar="PATH", help="the log file (default: [plugins.event_log] path in config)"
    )
    add_wide_option(parser)
    parser.add_argument(
        "--poll", metavar="SECONDS", type=_positive, default=0.25, help=argparse.SUPPRESS
    )
    add_config_option(parser)
    parser.set_defaults(func=run)
    actions = parser.add_subparsers(dest="logs_action", metavar="ACTION")
    from ._verify import add_export_parser
    from ._verify import add_parser as add_verify

    add_verify(actions)
    add_export_parser(actions)
    for action in actions.choices.values():
        add_config_option(action)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def log_path(args: argparse.Namespace) -> Path:
    """``--file``, else ``[plugins.event_log] path`` from the config, else the default."""
    if args.file:
        return Path(args.file)
    configured = plugin_table(read_config(args), "event_log").get("path", DEFAULT_PATH)
    return Path(os.path.expanduser(str(configured)))


class Skipped:
    """The lines of the log no reader can show (torn, not JSON, forged or corrupt fields), each
    named with its file, line number and reason, so that one odd line hides nothing after it."""

    SHOWN = 20
    """Lines named one by one; past that, a count (a foreign file is not echoed line by line)."""

    def __init__(self) -> None:
        self.count = 0
        self.lines: list[str] = []

    def __call__(self, name: str, line: int, reason: str = "not a JSON object") -> None:
        self.count += 1
        if len(self.lines) < self.SHOWN:
            self.lines.append(f"{clean(name)}:{line}: unreadable, skipped: {clean(reason)}")

    def report(self) -> None:
        for line in self.lines:
            note(line)
        if self.count > len(self.lines):
            note(f"... and {self.count - len(self.lines)} more unreadable lines")
        self.lines.clear()


def _unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read as a log, or None when it can (or does not exist yet)."""
    if path.is_dir():
        return f"{path} is a directory, not an event log: pass the log file with --file"
    if not path.exists():
        return None
    try:
        with open(path, "rb"):
            return None
    except OSError as error:
        return f"cannot read {path}: {error.strerror or error}"


def run(args: argparse.Namespace) -> int:
    path = log_path(args)
    problem = _unreadable(path)
    if problem is not None:
        note(problem)
        return PROBLEMS
    unknown = unknown_event_names(args.event)
    skipped = Skipped()
    try:
        call = resolve(path, "call_id", args.call, args.follow)
        trace = resolve(path, "trace_id", args.trace, args.follow)
    except Ambiguous as error:
        note(str(error))
        return PROBLEMS
    keep = EventFilter(trace, call, args.session, args.since, args.event)
    out = sys.stdout
    printer = GroupedPrinter(out)
    seen = Seen()

    def emit(event: dict[str, Any]) -> None:
        seen.read(event)
        if not keep(event):
            return
        seen.matched += 1
        if args.json:
            out.write(json_line(event) + "\n")
        else:
            printer.print(event)
        if args.follow:
            out.flush()

    if not args.follow:
        if not path.exists() and not any(True for _ in history(path, include_current=False)):
            note(
                f"no event log at {path} (nothing logged yet, or [plugins.event_log] path "
                "points elsewhere: pass --file or --config)"
            )
            return PROBLEMS
        for event in history(path, include_current=True, skipped=skipped):
            emit(event)
        printer.finish()
        skipped.report()
        _report_chain(path)
        if not seen.events and skipped.count:
            note(f"{path} is not an event log: none of its lines is a JSON event")
            return PROBLEMS
        _report_unknown(unknown, seen)
        if seen.events and not seen.matched:
            note(f"no event matches the filters ({seen.events} events read from {path})")
        return OK
    _report_unknown(unknown, seen)
    for event in history(path, include_current=False, skipped=skipped):
        emit(event)
    skipped.report()
    if not path.exists():
        note(f"waiting for {path} to be written (Ctrl-C to stop)")
    out.flush()
    try:
        for event in follow_events(path, args.poll):
            emit(event)
    except KeyboardInterrupt:
        pass
    printer.finish()
    return OK


def _report_chain(path: Path) -> None:
    """One line on the log's hash chain (issue #25), when the log is chained."""
    reader = event_log_module()
    try:
        report = reader.verify(reader.log_files(path, include_rotated=True))
    except OSError:
        return
    if not report.chained:
        return  # an unchained log (chain = false, or written before chaining): no claim
    if not report.ok:
        note(
            f"log chain: the log shows tampering at {clean(str(report.problems[0]))} "
            "(toolhooks logs verify lists every line)"
        )
    elif report.chained:
        note(f"log chain: verified {report.chained} lines in {report.writers} chain(s)")


class Seen:
    """What was read: how many events, how many matched, which event names occurred."""

    def __init__(self) -> None:
        self.events = 0
        self.matched = 0
        self.names: set[str] = set()

    def read(self, event: dict[str, Any]) -> None:
        self.events += 1
        name = event.get("event")
        if isinstance(name, str) and len(self.names) < 10_000:
            self.names.add(name)


def unknown_event_names(patterns: list[str]) -> list[str]:
    """The ``--event`` names (or patterns) that match no event the core or a built-in emits."""
    names = [part.strip() for item in patterns for part in item.split(",") if part.strip()]
    return [name for name in names if not any(_matches(name, known) for known in KNOWN_EVENTS)]


def _report_unknown(unknown: list[str], seen: Seen) -> None:
    for name in unknown:
        if any(_matches(name, logged) for logged in seen.names):
            continue  # a plugin's own event: it is in the log
        known = ", ".join(KNOWN_EVENTS)
        note(f"--event {name!r} matches no known event name (known: {known}; plugins may add more)")


def _matches(pattern: str, name: str) -> bool:
    return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]"))
