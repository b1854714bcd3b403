"""Following the event log for ``toolhooks logs --follow``.

Following is ``tail -F``: the file is read from its start; at its end the reader polls. It notices
a rotation (the path now names another file: renamed to ``events.jsonl.1`` and a new one started)
and a truncation (the file is shorter than what was read), finishes what the old file still held
and continues with the new one from its start. Only complete lines are used, so a line being
written is never cut in two.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ._common import event_log_module, note
from ._table import clean

CHUNK = 1 << 16
MAX_PARTIAL = 64 << 20  # a "line" longer than this without a newline is dropped


def follow_events(
    path: Path, poll: float, stop: Callable[[], bool] | None = None
) -> Iterator[dict[str, Any]]:
    """Every event of ``path`` from its start, then each new one, across rotation; a line no
    reader can show is named on stderr (file, line number, reason) and the follow goes on."""
    reader = event_log_module()
    for number, raw in follow_lines(path, poll, stop):
        try:
            event = json.loads(raw)
        except ValueError:
            event = None  # a fragment left by a write that was cut short, or not JSON at all
        problem = "not a JSON object" if type(event) is not dict else reader.unreadable(event)
        if problem is None:
            yield event
        else:
            note(f"{clean(str(path))}:{number}: unreadable, skipped: {clean(problem)}")


class _Tail:
    """One open file and the partial line read from it so far."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        stat = os.fstat(handle.fileno())
        self.identity = (stat.st_dev, stat.st_ino)
        self.partial = b""
        self.number = 0
        """Lines read from this file so far (blank ones too): the next line's number - 1."""

    def read(self) -> list[tuple[int, bytes]]:
        """The complete lines that arrived since the last read (maybe none), numbered from 1."""
        lines: list[tuple[int, bytes]] = []
        while True:
            chunk = self.handle.read(CHUNK)
            if not chunk:
                return lines
            data = self.partial + chunk
            pieces = data.split(b"\n")
            self.partial = pieces.pop()
            if len(self.partial) > MAX_PARTIAL:
                self.partial = b""
            for piece in pieces:
                self.number += 1
                if piece.strip():
                    lines.append((self.number, piece))

    def replaced(self, path: Path) -> bool:
        """True when ``path`` no longer names this file, or the file was truncated."""
        try:
            stat = os.stat(path)
        except OSError:
            return False  # gone for now: keep reading the old file until a new one appears
        if (stat.st_dev, stat.st_ino) != self.identity:
            return True
        if stat.st_size < self.handle.tell():
            self.handle.seek(0)
            self.partial = b""
            self.number = 0
        return False

    def close(self) -> None:
        self.handle.close()


def _open(path: Path) -> _Tail | None:
    try:
        handle = open(path, "rb")  # noqa: SIM115 - owned by the _Tail, closed by follow_lines
    except OSError:
        return None
    return _Tail(handle)


def follow_lines(
    path: Path, poll: float = 0.25, stop: Callable[[], bool] | None = None
) -> Iterator[tuple[int, bytes]]:
    """Yield each complete line of ``path`` (with its number in its file) from its start, then
    as it is written, forever.

    :param poll: seconds to sleep when there is nothing new.
    :param stop: called while idle; returning True ends the iteration (tests use it).
    """
    tail = _open(path)
    try:
        while True:
            if tail is None:
                tail = _open(path)
            if tail is not None:
                lines = tail.read()
                if lines:
                    yield from lines
                    continue
                if tail.replaced(path):
                    # Rotated: what was appended to the old file before the switch comes first.
                    yield from tail.read()
                    tail.close()
                    tail = _open(path)
                    continue
            if stop is not None and stop():
                return
            time.sleep(poll)
    finally:
        if tail is not None:
            tail.close()
