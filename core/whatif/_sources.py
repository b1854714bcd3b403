"""Which files a ``whatif`` reads, and their events as one stream, oldest first.

Each argument is a log file (with its rotated files ``events.jsonl.N`` ... ``.1``, as the event
log writes them), a single rotated file, or a folder (every ``*.jsonl`` log in it, each with its
rotated files). Every file is read once however often it is named. One log is read in the order
it was written; several logs (one per process, say) are merged by the events' times, one event
of each held at a time. Lines that are not events are counted and skipped by the shared reader
(:func:`toolhooks.plugins.event_log.read_events`), with their file and line number.
"""

from __future__ import annotations

import heapq
import importlib
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..records._errors import ToolhooksError

_ROTATED = re.compile(r"(.+)\.([1-9][0-9]{0,5})")
MAX_SKIPS_KEPT = 100
"""Unreadable lines listed by file and line number; beyond this they are only counted."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    """A line that is not an event: its file, 1-based line number and what is wrong with it."""

    file: str
    line: int
    problem: str


@dataclass(slots=True)
class Reading:
    """How far the reading is: files and bytes done, and the lines skipped so far."""

    files: list[str]
    total_bytes: int = 0
    files_done: int = 0
    bytes_done: int = 0
    skipped: int = 0
    kept: list[Skipped] = field(default_factory=list)

    def skip(self, file: str, line: int, problem: str) -> None:
        self.skipped += 1
        if len(self.kept) < MAX_SKIPS_KEPT:
            self.kept.append(Skipped(file=file, line=line, problem=problem))


class NoLog(ToolhooksError, ValueError):
    """A named file or folder holds no event log."""


def log_groups(paths: Sequence[str]) -> list[list[str]]:
    """The files of each log named by ``paths``, each log's oldest first; every file once."""
    reader = _reader()
    groups: list[list[str]] = []
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            bases = sorted(
                {
                    os.path.join(path, _base(name))
                    for name in os.listdir(path)
                    if _base(name).endswith(".jsonl") and os.path.isfile(os.path.join(path, name))
                }
            )
            found = [reader.log_files(base, include_rotated=True) for base in bases]
        elif os.path.isfile(path):
            rotated = _ROTATED.fullmatch(path)
            alone = rotated is not None and not path.endswith(".jsonl")
            found = [[path] if alone else reader.log_files(path, include_rotated=True)]
        else:
            raise NoLog(f"{path}: no such file or folder")
        fresh = [[f for f in files if os.path.realpath(f) not in seen] for files in found]
        for files in fresh:
            seen.update(os.path.realpath(f) for f in files)
        if not any(fresh):
            if not any(found):
                raise NoLog(f"{path}: no event log (*.jsonl) in it")
            continue
        groups += [files for files in fresh if files]
    return groups


def _base(name: str) -> str:
    rotated = _ROTATED.fullmatch(name)
    return rotated.group(1) if rotated else name


def _reader() -> Any:
    """The event log's reader (a built-in plugin: imported, not a layer of the core)."""
    return importlib.import_module("toolhooks.plugins.event_log")


def _size(name: str) -> int:
    try:
        return os.path.getsize(name)
    except OSError:
        return 0


def _ts(event: dict[str, Any]) -> float:
    ts = event.get("ts")
    return float(ts) if isinstance(ts, (int, float)) else 0.0


def events(groups: list[list[str]], reading: Reading) -> Iterator[dict[str, Any]]:
    """The events of every log in ``groups``: one log in its order, several merged by time."""
    reader = _reader()
    skip: Callable[[str, int, str], None] = reading.skip

    def one_log(files: list[str]) -> Iterator[dict[str, Any]]:
        for name in files:
            yield from reader.read_events(name, include_rotated=False, on_skip=skip)
            reading.files_done += 1
            reading.bytes_done += _size(name)

    streams = [one_log(files) for files in groups]
    if len(streams) == 1:
        return streams[0]
    return heapq.merge(*streams, key=_ts)


def reading_of(groups: list[list[str]]) -> Reading:
    files = [name for files in groups for name in files]
    return Reading(files=files, total_bytes=sum(_size(name) for name in files))
