"""``toolhooks logs verify``: check the event log's hash chain (see plugins/event_log/_chain.py).

Exit 0 with the count of lines and chains verified; exit 1 naming the first line that shows
tampering (its file, line number and what is wrong), then every other one. Torn lines left by a
crash are listed, not counted as tampering.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ._common import OK, PROBLEMS, event_log_module, note, plugin_table, print_json, read_config
from ._events import parse_since
from ._table import clean

HELP = "check the log's hash chain: edited, missing, reordered or inserted lines"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help=HELP,
        description=(
            "Verify the event log's hash chain: each line's own hash, and each writer's chain "
            "from line to line and across rotated files. PATH is the log file (its rotated "
            "files included) or a folder of logs; default [plugins.event_log] path."
        ),
    )
    parser.add_argument("path", metavar="PATH", nargs="?", help="a log file or a folder")
    parser.add_argument(
        "--key-file",
        metavar="FILE",
        help="the key the log was written with: check every checkpoint's MAC",
    )
    parser.add_argument(
        "--excerpt",
        action="store_true",
        help="PATH is the output of `toolhooks logs export`: check its chains from the hashes "
        "its header names (in a log, such a header is tampering)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def add_export_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="an excerpt of the log that verifies on its own",
        description=(
            "Print the log's lines from --since to --until, unchanged, after a header naming "
            "each writer's last hash before them: `toolhooks logs verify --excerpt` checks it "
            "on its own, and the header's hashes place it in the full log."
        ),
    )
    parser.add_argument("path", metavar="PATH", nargs="?", help="a log file or a folder")
    parser.add_argument("--since", metavar="WHEN", type=parse_since, help="30s, 2h, 1d or a date")
    parser.add_argument("--until", metavar="WHEN", type=parse_since, help="the same; default now")
    parser.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    reader, files = event_log_module(), _log_files(args)
    if not files:
        return PROBLEMS
    out = sys.stdout.buffer
    try:
        for line in reader.export(files, args.since, args.until):
            out.write(line)
    except OSError as error:
        note(f"cannot read the log: {clean(str(error))}")
        return PROBLEMS
    out.flush()
    return OK


def _log_files(args: argparse.Namespace) -> list[str]:
    """PATH (a log with its rotated files, or a folder of logs), else the configured log; none
    found is said here."""
    if args.path:
        path = Path(args.path)
    else:
        configured = plugin_table(read_config(args), "event_log").get("path")
        path = Path(os.path.expanduser(str(configured or ".toolhooks/events.jsonl")))
    reader = event_log_module()
    if path.is_dir():
        bases = sorted(p for p in path.iterdir() if p.suffix == ".jsonl" and p.is_file())
        files = [name for base in bases for name in reader.log_files(base, include_rotated=True)]
    else:
        files = list(reader.log_files(path, include_rotated=True))
    if not files:
        note(f"no event log at {clean(str(path))}")
    return files


def run(args: argparse.Namespace) -> int:
    reader, files = event_log_module(), _log_files(args)
    if not files:
        return PROBLEMS
    key = None
    if args.key_file:
        try:
            key = reader.read_key(args.key_file)
        except (OSError, ValueError) as error:
            note(f"--key-file: {clean(str(error))}")
            return PROBLEMS
    try:
        report = reader.verify(files, key, excerpt=args.excerpt)
    except OSError as error:
        note(f"cannot read the log: {clean(str(error))}")
        return PROBLEMS
    if args.json:
        print_json(
            {
                "ok": report.ok,
                "files": report.files,
                "lines": report.lines,
                "chained": report.chained,
                "writers": report.writers,
                "checkpoints": report.checkpoints,
                "problems": [str(p) for p in report.problems],
                "torn": report.torn,
                "notes": report.notes,
                "unverified": report.unverified,
            }
        )
        return OK if report.ok else PROBLEMS
    for line in report.torn + report.notes + report.unverified:
        note(clean(line))
    if not report.ok:
        first = report.problems[0]
        print(f"FAILED {clean(str(first))}")
        for other in report.problems[1:20]:
            print(f"       {clean(str(other))}")
        if len(report.problems) > 20:
            print(f"       ... and {len(report.problems) - 20} more")
        return PROBLEMS
    unchained = report.lines - report.chained
    extra = f"; {unchained} lines without a chain (written with chain = false)" if unchained else ""
    if report.unverified:
        extra += (
            "; the lines after each running writer's last checkpoint are not covered by the key"
        )
    print(
        f"verified {report.chained} lines in {report.writers} chain"
        f"{'' if report.writers == 1 else 's'} across {len(report.files)} file"
        f"{'' if len(report.files) == 1 else 's'}{extra}"
    )
    sys.stdout.flush()
    return OK
