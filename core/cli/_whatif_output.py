"""What ``toolhooks whatif`` prints: the progress line on a terminal, a line per changed call,
and the counts at the end (by kind of change, by plugin, the calls it cannot replay, the lines it
could not read), as text or as the rest of the ``--json`` document.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, TextIO

from ._common import json_line, note
from ._output import is_terminal
from ._table import cell_width, clean, cut, render

SHOWN_PROBLEMS = 10
"""Unreadable lines and calls that cannot be replayed listed in the text output."""


PROGRESS_EVERY_S = 0.25


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


def summary(whatif: Any, config_file: str | None) -> dict[str, Any]:
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


def print_tally(tally: Any, reading: Any) -> None:
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
