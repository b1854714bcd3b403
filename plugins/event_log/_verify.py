"""Checking a hash-chained log: every line's own hash, and each writer's chain from line to line.

What counts as tampering (a problem, exit 1): a line whose bytes do not match its ``hash``
(edited), a writer's ``seq`` that skips (lines deleted), goes back or repeats (reordered, a line
inserted or copied), a ``prev`` that does not name the writer's previous line, a line without a
chain among chained ones, a chain that starts after seq 0 where no earlier file was rotated away,
and with a key, a checkpoint whose MAC is wrong. What does not: a torn line (a write cut short by
a crash: a line that is not JSON and does not end like a whole line), which is reported on its
own; a chain that simply ends (a writer that is still running, or crashed), since no line says
where it should end.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ._chain import GENESIS, checkpoint_mac

_HASH_TAIL = re.compile(rb',"hash":"([0-9a-f]{64})"\}\}$')


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

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(slots=True)
class _Writer:
    seq: int
    head: str
    where: str


def verify(files: list[str], key: bytes | None = None) -> Report:
    """Verify ``files`` (oldest first, as ``log_files`` lists them) against their chains."""
    report = Report(files=list(files))
    writers: dict[str, _Writer] = {}
    rotated_away = bool(files) and _is_rotated(files[0])
    for index, name in enumerate(files):
        with open(name, "rb") as handle:
            data = handle.read()
        lines = data.split(b"\n")
        complete = lines[:-1]
        tail = lines[-1]
        chained_file = False
        for number, raw in enumerate(complete, 1):
            if not raw.strip():
                continue
            if index == 0 and number == 1 and _export_header(raw, writers):
                report.notes.append(
                    "an excerpt (toolhooks logs export): each chain is checked from the hash "
                    "its header names; compare those with the full log to place it there"
                )
                continue
            report.lines += 1
            where = f"{name}:{number}"
            problem = _check_line(raw, where, report, writers, key, index == 0 and rotated_away)
            if problem == "unchained" and chained_file:
                problem = "a line without a chain among chained lines (added or stripped)"
            if problem == "chained":
                chained_file = True
            elif problem not in (None, "unchained"):
                report.problems.append(Problem(file=name, line=number, what=problem))
        if tail.strip():
            report.torn.append(
                f"{name}:{len(complete) + 1}: torn last line (a write cut short, by a crash "
                "or a full disk); the durability mode says how many lines may be missing"
            )
    report.writers = len(writers)
    if key is None and report.checkpoints:
        report.notes.append("checkpoints were not checked: pass --key-file to check their MACs")
    return report


def _check_line(
    raw: bytes,
    where: str,
    report: Report,
    writers: dict[str, _Writer],
    key: bytes | None,
    may_start_late: bool,
) -> str | None:
    """None (fine), "chained" (fine, and chained), "unchained", or what is wrong."""
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
        return "unchained"
    if not _chain_shaped(chain):
        return "its chain field is malformed: the line was edited"
    found = _HASH_TAIL.search(raw.rstrip())
    if found is None or found.group(1).decode() != chain["hash"]:
        return "its chain field is not where the writer puts it: the line was edited"
    body = raw.rstrip()[: found.start()] + b"}}"
    if hashlib.sha256(body).hexdigest() != chain["hash"]:
        return "edited: its bytes do not match its hash"
    report.chained += 1
    writer, seq, prev = chain["writer"], chain["seq"], chain["prev"]
    seen = writers.get(writer)
    if seen is None:
        writers[writer] = _Writer(seq, chain["hash"], where)
        if seq != 0 or prev != GENESIS:
            if not may_start_late:
                return (
                    f"writer {writer}'s chain starts at seq {seq}: its first {seq} lines are "
                    "missing"
                )
            report.notes.append(
                f"writer {writer}'s chain begins at seq {seq}: earlier lines were rotated away"
            )
    else:
        expected = seen.seq + 1
        last = seen.where
        if seq < expected:
            return f"reordered or repeated: writer {writer}'s seq {seq} comes after seq {seen.seq} ({last})"
        if seq > expected:
            gone = f"seq {expected}" if seq == expected + 1 else f"seqs {expected} to {seq - 1}"
            return f"missing lines before this one: writer {writer}'s {gone} (after {last})"
        if prev != seen.head:
            return f"prev does not match writer {writer}'s previous line ({last})"
        seen.seq, seen.head, seen.where = seq, chain["hash"], where
    if record.get("event") == "log.checkpoint":
        report.checkpoints += 1
        mac = record.get("mac")
        genuine = (
            isinstance(mac, str)
            and key is not None
            and hmac.compare_digest(mac, checkpoint_mac(key, writer, seq, prev))
        )
        if key is not None and not genuine:
            return "bad checkpoint: its MAC does not match (a wrong key, or a forged chain)"
    return "chained"


EXPORT_EVENT = "log.export"


def _export_header(raw: bytes, writers: dict[str, _Writer]) -> bool:
    """Read an export's first line (each writer's head just before the excerpt) into
    ``writers``; False when the line is not such a header."""
    try:
        record = json.loads(raw)
    except ValueError:
        return False
    if type(record) is not dict or record.get("event") != EXPORT_EVENT or "chain" in record:
        return False
    heads = record.get("heads")
    if type(heads) is not dict:
        return False
    for writer, head in heads.items():
        if type(head) is dict and type(head.get("seq")) is int and type(head.get("hash")) is str:
            writers[writer] = _Writer(head["seq"], head["hash"], "the export's header")
    return True


def export(files: list[str], since: float | None, until: float | None) -> Iterator[bytes]:
    """The lines written from ``since`` to ``until`` (unchanged bytes), after a header naming
    each writer's last hash before them, so that the excerpt verifies on its own."""
    heads: dict[str, dict[str, Any]] = {}
    started = since is None
    sent = False
    for name in files:
        with open(name, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n") or not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                if type(record) is not dict:
                    continue
                ts = record.get("ts")
                moment = ts if type(ts) in (int, float) else None
                if until is not None and moment is not None and moment > until:
                    return
                if not started and moment is not None and since is not None and moment >= since:
                    started = True
                if not started:
                    chain: Any = record.get("chain")
                    if _chain_shaped(chain):
                        heads[chain["writer"]] = {"seq": chain["seq"], "hash": chain["hash"]}
                    continue
                if not sent:
                    header = {"ts": time.time(), "event": EXPORT_EVENT, "heads": heads}
                    yield json.dumps(header, separators=(",", ":")).encode() + b"\n"
                    sent = True
                yield raw


def _chain_shaped(chain: Any) -> bool:
    return (
        type(chain) is dict
        and type(chain.get("writer")) is str
        and type(chain.get("seq")) is int
        and chain["seq"] >= 0
        and type(chain.get("prev")) is str
        and type(chain.get("hash")) is str
    )


def _is_rotated(name: str) -> bool:
    return bool(re.search(r"\.[1-9][0-9]*$", os.path.basename(name)))
