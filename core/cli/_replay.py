"""``toolhooks replay``: recorded tool calls through the pipeline, with their recorded results.

Nothing real runs: each line's ``result`` / ``error`` stands in for the tool, and its
``approve`` answers an approval. So a policy can be tried on last week's traffic before it is
deployed. The replay's own events are not written to the configured event log (it would mix
with real traffic) unless ``--events FILE`` names a log for them; full results of trimmed calls
go to a temporary artifact folder unless ``--artifacts DIR`` is given.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config._settings import LoadedConfig
from ..records._results import DECISIONS
from . import _table
from ._commands import help_of
from ._common import (
    OK,
    PROBLEMS,
    add_config_option,
    add_json_option,
    build_runtime,
    disabling,
    note,
    print_json,
    read_config,
    shown_config,
    with_tables,
)
from ._decisions import ACTIONS, CallReport, classify, summarize
from ._transcript import Answers, Line, Recorder, Transcript, load_transcript, run_lines

DESCRIPTION = """\
Feed recorded tool calls through the pipeline of this config (--config FILE) without running
any tool: each line's recorded result stands in for the tool. Prints the decision of every call
and a summary (counts by status and by plugin); --json for CI.

The transcript is JSON Lines, one call per line:
  {"name": "exec", "params": {"command": "ls"}, "session_id": "s1", "result": "a.txt"}
keys: name, params, id, session_id, run_id, trace_id, agent_id, sender, origin,
context_window_tokens, result (what the tool returned) or error (its failure message), approve
(allow-once / allow-always / deny / edit / defer: the answer to an approval), edit (with
"approve": "edit": the params to run instead), note (ignored). A call answered defer pauses; a
later line {"resume": N, "approve": "allow-once"} finishes the call of line N.

Exit code 1 when a line cannot be read or a call ends with a --fail-on status."""
STATUSES = ("ok", "error", "blocked", "denied", "pending")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help=help_of("replay"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("transcript", metavar="TRANSCRIPT.jsonl", type=Path)
    parser.add_argument(
        "--approve",
        choices=DECISIONS,
        default="deny",
        help="the answer to an approval when the line has no 'approve' (default: deny)",
    )
    parser.add_argument(
        "--fail-on",
        metavar="STATUS",
        action="append",
        default=[],
        type=_status,
        help="exit 1 when a call ends with STATUS (blocked, denied, "
        "error, ok, pending; repeatable or comma-separated)",
    )
    parser.add_argument(
        "--events",
        metavar="FILE",
        type=Path,
        help="write the replay's event log here (default: no event log)",
    )
    parser.add_argument(
        "--artifacts",
        metavar="DIR",
        type=Path,
        help="keep full results of trimmed calls here (default: a temporary folder)",
    )
    add_json_option(parser, "the decisions and the summary")
    add_config_option(parser)
    parser.set_defaults(func=run)


def _status(text: str) -> list[str]:
    values = [part.strip() for part in text.split(",") if part.strip()]
    for value in values:
        if value not in STATUSES:
            raise argparse.ArgumentTypeError(
                f"unknown status {value!r} (expected {', '.join(STATUSES)})"
            )
    return values


def replay_config(config: LoadedConfig, events: Path | None, artifacts: Path) -> LoadedConfig:
    """The config with the replay's own event log (or none) and artifact folder."""
    changes: dict[str, dict[str, Any]] = {"result_budget": {"artifact_dir": str(artifacts)}}
    if events is None:
        return disabling(with_tables(config, changes), ["event_log"])
    changes["event_log"] = {"path": str(events)}
    return with_tables(config, changes)


def replay(
    config: LoadedConfig, transcript: Transcript, answers: Answers, plugins: Sequence[Any] = ()
) -> tuple[list[CallReport], Recorder]:
    """Run every line through a runtime of ``config`` (plus ``plugins``); the decisions and the
    recorder (which counted the events)."""
    recorder = Recorder()
    runtime = build_runtime(config, plugins=plugins, approver=answers)
    runtime._register_observer(recorder, recorder.name)  # not subject to [plugins] only
    decisions: list[CallReport] = []

    calls = {line.number: line.call for line in transcript.lines}
    labelled: dict[str, frozenset[str]] = {}  # each session's labels after its last call

    def collect(line: Line, outcome: Any, events: list[Any]) -> None:
        call = calls[line.resume] if line.resume is not None else line.call
        params = call.get("params") or {}
        index = len(decisions) + 1
        added = _labels_added(runtime, labelled, call.get("session_id"))
        row = next((d.index for d in decisions if d.line == line.resume), None)
        decisions.append(
            classify(
                index,
                line.number,
                params,
                outcome,
                events,
                line.resume,
                labels=added,
                resumed_index=row,
            )
        )

    try:
        run_lines(runtime, transcript.lines, answers, recorder, collect, transcript.errors)
    finally:
        runtime.close()
    return decisions, recorder


def _labels_added(
    runtime: Any, labelled: dict[str, frozenset[str]], session: str | None
) -> list[str]:
    """The labels ``session`` gained with the call just made (none without a session, or while
    no plugin has labelled anything: the label store is not made for that)."""
    if session is None or (runtime._label_store is None and not labelled):
        return []
    now = runtime.label_store.labels(session)
    before = labelled.get(session, frozenset())
    labelled[session] = now
    return sorted(now - before)


def _bad_output(events: Path | None, artifacts: Path | None) -> str | None:
    """Why ``--events`` or ``--artifacts`` cannot be written, checked before anything runs (the
    event log and the artifact store would otherwise drop what they cannot write, silently)."""
    if events is not None:
        if events.is_dir():
            return f"--events {events} is a directory: name the event log file to write"
        if events.exists() and not os.access(events, os.W_OK):
            return f"--events {events} is not writable"
        parent = next(p for p in (events.absolute(), *events.absolute().parents) if p.exists())
        if parent != events.absolute() and not parent.is_dir():
            return f"--events {events}: {parent} is not a directory"
    if artifacts is not None and artifacts.exists() and not artifacts.is_dir():
        return f"--artifacts {artifacts} is not a directory"
    return None


def run(args: argparse.Namespace) -> int:
    config = read_config(args)
    try:
        transcript = load_transcript(args.transcript)
    except (OSError, UnicodeDecodeError) as exc:
        note(f"cannot read {args.transcript}: {getattr(exc, 'strerror', None) or exc}")
        return PROBLEMS
    problem = _bad_output(args.events, args.artifacts)
    if problem is not None:
        note(problem)
        return PROBLEMS
    with tempfile.TemporaryDirectory(prefix="toolhooks-replay-") as scratch:
        artifacts = args.artifacts or Path(scratch) / "artifacts"
        effective = replay_config(config, args.events, artifacts)
        answers = Answers(args.approve, by="replay")
        decisions, _ = replay(effective, transcript, answers)
    summary = summarize(decisions)
    failing = {status for group in args.fail_on for status in group}
    # How each call ended: a paused call's last line is the one that resumed it, if any.
    ended = {d.call_id: d for d in decisions}.values()
    failed = [d for d in ended if d.status in failing]
    problems = bool(transcript.errors) or bool(failed)
    if args.json:
        print_json(
            {
                "transcript": str(args.transcript),
                "config": config.file,
                "calls": [d.to_dict() for d in decisions],
                "summary": summary,
                "errors": [{"line": n, "error": e} for n, e in transcript.errors],
                "failed": [d.index for d in failed],
                "ok": not problems,
            }
        )
        return PROBLEMS if problems else OK
    print(
        _table.pairs(
            [
                ("transcript", f"{args.transcript} ({summary['calls']} calls)"),
                ("config", shown_config(config)),
            ]
        )
    )
    print()
    print(decision_table(decisions))
    print_summary(summary)
    for number, error in transcript.errors:
        note(f"{args.transcript}:{number}: skipped: {error}")
    if failed:
        note(f"{len(failed)} call(s) ended {' or '.join(sorted(failing))} (--fail-on)")
    return PROBLEMS if problems else OK


def decision_table(decisions: list[CallReport]) -> str:
    rows = [[d.index, d.line, d.tool, d.status, d.label, d.detail] for d in decisions]
    return _table.render(
        ["#", "LINE", "TOOL", "STATUS", "DECISION", "DETAIL"],
        rows,
        align=["right", "right"],
        wrap=5,
        flex=[5, 2, 4],
        status=[3, 4],
        empty="(no calls)",
    )


def print_summary(summary: dict[str, Any]) -> None:
    print()
    statuses = summary["by_status"]
    print(
        f"{summary['calls']} calls: "
        + (", ".join(f"{n} {s}" for s, n in statuses.items()) or "none")
    )
    plugins = summary["by_plugin"]
    if not plugins:
        return
    print()
    headers = ["PLUGIN", *(action.upper().replace("_", " ") for action in ACTIONS)]
    rows = [
        [name, *(counts.get(action, 0) for action in ACTIONS)] for name, counts in plugins.items()
    ]
    print(
        _table.render(
            headers, rows, align=["left", "right", "right", "right", "right", "right", "right"]
        )
    )
