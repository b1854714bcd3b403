"""Checking a hash-chained log: every line's own hash, and each writer's chain from line to line.

What counts as tampering (a problem, exit 1): a line whose bytes do not match its ``hash``
(edited; the hash covers the bytes as written, so a CR or a space added is an edit), a writer's
``seq`` that skips (lines deleted), goes back or repeats (reordered, a line inserted or copied), a
``prev`` that does not name the writer's previous line, a line without a chain in a file of
chained lines (before them or among them), a chain that starts after seq 0 where no earlier file
was rotated away, a ``log.export`` header in a log (an excerpt is verified as one only when the
caller says so: anyone can write a header). With a key, also: a checkpoint whose MAC is wrong, a
writer's first line in a file that is not its keyed opening checkpoint (a chain added, or its
first lines removed), more than ``every`` lines without a checkpoint (one removed). What does not:
a torn line (a write cut short by a crash: a line that is not JSON and does not end like a whole
line), which is reported on its own; a chain that simply ends (a writer that is still running, or
crashed), since no line says where it should end: with a key, its lines after the last
checkpoint are listed as not covered by the key (``unverified``).

Over 300 lines on purpose: one concept, checking a chained log, in small functions (issue #33
lifts the 300-line cap).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ._chain import GENESIS, checkpoint_mac
from ._export import EXPORT_EVENT, chain_shaped, export_heads

_HASH_TAIL = re.compile(rb',"hash":"([0-9a-f]{64})"\}\}\Z')
_AMONG = "a line without a chain among chained lines (added or stripped)"
_BEFORE = (
    "a line without a chain before the chained ones (added; or written before chain was "
    "turned on: start a new log file when turning it on)"
)
_BLANK = "a line of only whitespace in a file of chained lines (added)"


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One line that shows tampering: where, and what is wrong with it."""

    file: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.what}"


@dataclass(slots=True, kw_only=True)
class Report:
    """What verifying a log found."""

    files: list[str] = field(default_factory=list)
    lines: int = 0
    chained: int = 0
    checkpoints: int = 0
    writers: int = 0
    problems: list[Problem] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    """With a key: each writer's lines after its last checkpoint (the key does not cover them)."""

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(slots=True)
class _Writer:
    seq: int
    head: str
    where: str
    file: str
    """The file of its last line: its next line in another file is its first there."""
    every: int | None = None
    """``every`` of its last keyed checkpoint (None before one)."""
    since: int = 0
    """Lines since its last keyed checkpoint."""
    tail: str = ""
    """Where the lines after its last checkpoint begin."""
    gap: bool = False
    """A missing checkpoint was reported (once per writer)."""


def verify(files: list[str], key: bytes | None = None, *, excerpt: bool = False) -> Report:
    """Verify ``files`` (oldest first, as ``log_files`` lists them) against their chains.
    ``excerpt``: the files are one ``toolhooks logs export`` output, whose header names each
    writer's hash just before it."""
    report = Report(files=list(files))
    writers: dict[str, _Writer] = {}
    rotated_away = bool(files) and _is_rotated(files[0])
    for index, name in enumerate(files):
        with open(name, "rb") as handle:
            data = handle.read()
        found = _verify_file(
            name, data, report, writers, key, index, rotated_away, header=excerpt and index == 0
        )
        report.problems += sorted(found, key=lambda problem: problem.line)
    report.writers = len(writers)
    if excerpt:
        report.notes.append(
            "an excerpt (toolhooks logs export): each chain is checked from the hash its header "
            "names; compare those with the full log to place it there"
        )
    if key is None and report.checkpoints:
        report.notes.append("checkpoints were not checked: pass --key-file to check their MACs")
    if key is not None:
        _key_coverage(report, writers, files)
    return report


def _verify_file(
    name: str,
    data: bytes,
    report: Report,
    writers: dict[str, _Writer],
    key: bytes | None,
    index: int,
    rotated_away: bool,
    *,
    header: bool,
) -> list[Problem]:
    """The problems of one file's lines (``header``: its first line is an export's header)."""
    lines = data.split(b"\n")
    complete = lines[:-1]
    tail = lines[-1]
    chained_file = False
    loose: list[tuple[int, str]] = []  # lines without a chain: wrong only in a chained file
    found: list[Problem] = []
    for number, raw in enumerate(complete, 1):
        if header and number == 1:
            if not _export_header(raw, name, writers):
                found.append(Problem(file=name, line=1, what="not an export's header"))
            continue
        if not raw.strip():
            # An empty line carries nothing (and a writer that took another's write in
            # progress for a torn tail once left one); whitespace was put there.
            if raw:
                loose.append((number, _BLANK))
            continue
        report.lines += 1
        where = f"{name}:{number}"
        problem = _check_line(raw, where, name, report, writers, key, index, rotated_away)
        if problem == "chained":
            chained_file = True
        elif problem == "unchained":
            loose.append((number, _AMONG if chained_file else _BEFORE))
        elif problem is not None:
            what = _EXPORT_IN_LOG if problem == "export" else problem
            found.append(Problem(file=name, line=number, what=what))
    if tail and not tail.strip() and chained_file:
        found.append(Problem(file=name, line=len(complete) + 1, what=_BLANK))
    if tail.strip():
        report.torn.append(
            f"{name}:{len(complete) + 1}: torn last line (a write cut short, by a crash "
            "or a full disk); the durability mode says how many lines may be missing"
        )
    if chained_file:
        found += [Problem(file=name, line=n, what=what) for n, what in loose]
    return found


def _export_header(raw: bytes, name: str, writers: dict[str, _Writer]) -> bool:
    """Start each writer at the hash an export's header names; False when ``raw`` is not one."""
    heads = export_heads(raw)
    for writer, (seq, head) in (heads or {}).items():
        writers[writer] = _Writer(seq, head, "the export's header", name)
    return heads is not None


def _key_coverage(report: Report, writers: dict[str, _Writer], files: list[str]) -> None:
    """With a key: a log with lines but no chain is a chain stripped; each writer's lines after
    its last checkpoint are listed as not covered by the key."""
    if report.lines and not report.chained and files:
        report.problems.append(
            Problem(file=files[0], line=1, what="no chained line: a keyed log's lines are chained")
        )
    for writer, seen in writers.items():
        if seen.every is not None and seen.since:
            report.unverified.append(
                f"{seen.tail}: writer {writer}'s last {seen.since} line"
                f"{'' if seen.since == 1 else 's'} come after its last checkpoint: not covered "
                "by the key yet (a writer still running, or one that crashed)"
            )


_EXPORT_IN_LOG = (
    "a log.export header in a log: its lines before were removed and this put in their place "
    "(to verify an export, say it is one: toolhooks logs verify --excerpt)"
)


def _check_line(
    raw: bytes,
    where: str,
    file: str,
    report: Report,
    writers: dict[str, _Writer],
    key: bytes | None,
    index: int,
    rotated_away: bool,
) -> str | None:
    """None (fine), "chained" (fine, and chained), "unchained", "export", or what is wrong.
    ``index``: the file's place among the files (a chain may start late only in the oldest,
    when files were rotated away, or with a key, at its keyed checkpoint there)."""
    record = _chained_record(raw, where, report)
    if not isinstance(record, dict):
        return record
    report.chained += 1
    chain = record["chain"]
    writer, seq, prev = chain["writer"], chain["seq"], chain["prev"]
    checkpoint = record.get("event") == "log.checkpoint"
    genuine = checkpoint and key is not None and _genuine(record, key, writer, seq, prev)
    reason = record.get("reason")
    opening = genuine and (reason == "open" if seq == 0 else reason == "file")
    seen = writers.get(writer)
    if seen is None:
        seen = writers[writer] = _Writer(seq, chain["hash"], where, file)
        problem = _chain_start(
            writer, seq, prev, report, late=bool(index) or not (rotated_away or opening)
        )
        first_here = True
    else:
        problem = _chain_step(writer, seq, prev, seen)
        first_here = seen.file != file
        if problem is None:
            seen.seq, seen.head, seen.where, seen.file = seq, chain["hash"], where, file
    if problem is not None:
        return problem
    if checkpoint:
        report.checkpoints += 1
        if key is not None and not genuine:
            return "bad checkpoint: its MAC does not match (a wrong key, or a forged chain)"
    if key is None:
        return "chained"
    return _keyed(
        seen, writer, where, record, genuine=genuine, opening=opening, first_here=first_here
    )


def _chained_record(raw: bytes, where: str, report: Report) -> dict[str, Any] | str | None:
    """The line's record when it is JSON with a well-formed chain whose hash matches its bytes;
    else what :func:`_check_line` returns for it."""
    try:
        record: Any = json.loads(raw)
    except ValueError:
        if not raw.rstrip().endswith(b"}}"):
            report.torn.append(f"{where}: torn line (a write cut short by a crash)")
            return None
        return "not valid JSON: the line was edited"
    if type(record) is not dict:
        return "not a JSON object: the line was edited"
    chain = record.get("chain")
    if chain is None:
        return "export" if record.get("event") == EXPORT_EVENT else "unchained"
    if not chain_shaped(chain):
        return "its chain field is malformed: the line was edited"
    found = _HASH_TAIL.search(raw)
    if found is None and _HASH_TAIL.search(raw.rstrip()) is not None:
        return "bytes added after its hash (spaces, a CR): the line was edited"
    if found is None or found.group(1).decode() != chain["hash"]:
        return "its chain field is not where the writer puts it: the line was edited"
    body = raw[: found.start()] + b"}}"
    if hashlib.sha256(body).hexdigest() != chain["hash"]:
        return "edited: its bytes do not match its hash"
    return record


def _genuine(record: dict[str, Any], key: bytes, writer: str, seq: int, prev: str) -> bool:
    """A checkpoint whose fields are well formed and whose MAC the key makes."""
    reason = record.get("reason")
    every = record.get("every")
    return (
        isinstance(record.get("mac"), str)
        and isinstance(reason, str)
        and type(every) is int
        and every >= 1
        and hmac.compare_digest(
            record["mac"], checkpoint_mac(key, writer, seq, prev, str(reason), int(every))
        )
    )


def _chain_start(writer: str, seq: int, prev: str, report: Report, *, late: bool) -> str | None:
    """A writer's first line seen: a chain may begin after seq 0 only where it may start late."""
    if seq == 0 and prev == GENESIS:
        return None
    if late:
        return f"writer {writer}'s chain starts at seq {seq}: its first {seq} lines are missing"
    report.notes.append(
        f"writer {writer}'s chain begins at seq {seq}: earlier lines were rotated away"
    )
    return None


def _chain_step(writer: str, seq: int, prev: str, seen: _Writer) -> str | None:
    """A writer's next line: the seq after its last one, naming its last line's hash."""
    expected = seen.seq + 1
    last = seen.where
    if seq < expected:
        return f"reordered or repeated: writer {writer}'s seq {seq} comes after seq {seen.seq} ({last})"
    if seq > expected:
        gone = f"seq {expected}" if seq == expected + 1 else f"seqs {expected} to {seq - 1}"
        return f"missing lines before this one: writer {writer}'s {gone} (after {last})"
    if prev != seen.head:
        return f"prev does not match writer {writer}'s previous line ({last})"
    return None


def _keyed(
    seen: _Writer,
    writer: str,
    where: str,
    record: dict[str, Any],
    *,
    genuine: bool,
    opening: bool,
    first_here: bool,
) -> str:
    """With a key: each file opens with a keyed checkpoint, and one comes every ``every`` lines."""
    if genuine:
        seen.every, seen.since, seen.gap = record["every"], 0, False
    else:
        seen.since += 1
        if seen.since == 1:
            seen.tail = where
    if first_here and not opening:
        seen.gap = True  # one problem for this start, not another at the next checkpoint's place
        return (
            f"writer {writer}'s first line in this file is not its keyed opening checkpoint: "
            "a chain added without the key, its first lines removed, or a log written without one"
        )
    if seen.every is not None and seen.since > seen.every and not seen.gap:
        seen.gap = True
        return (
            f"a checkpoint is missing: writer {writer} has gone {seen.since} lines since its "
            f"last one (they come every {seen.every}), from {seen.tail}"
        )
    return "chained"


def _is_rotated(name: str) -> bool:
    return bool(re.search(r"\.[1-9][0-9]*$", os.path.basename(name)))
