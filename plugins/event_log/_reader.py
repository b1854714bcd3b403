"""Reading the log back: whole lines only, oldest rotated file first."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from ._config import DEFAULT_PATH


def log_files(
    path: str | os.PathLike[str] = DEFAULT_PATH, include_rotated: bool = True
) -> list[str]:
    """The log's files in the order they were written: ``path.N`` ... ``path.1``, then ``path``.

    Only files that exist are listed.
    """
    base = os.fspath(path)
    files: list[tuple[int, str]] = []
    if include_rotated:
        directory = os.path.dirname(base) or "."
        pattern = re.compile(re.escape(os.path.basename(base)) + r"\.([1-9][0-9]{0,5})")
        try:
            names = os.listdir(directory)
        except OSError:
            names = []
        for name in names:
            match = pattern.fullmatch(name)
            if match:
                files.append((int(match.group(1)), os.path.join(directory, name)))
        files.sort(reverse=True)
    ordered = [name for _, name in files]
    if os.path.isfile(base):
        ordered.append(base)
    return ordered


def read_events(
    path: str | os.PathLike[str] = DEFAULT_PATH,
    include_rotated: bool = True,
    on_skip: Callable[[str, int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield every event in the log as a dict, oldest first.

    Lines that are not a complete JSON object are skipped: a final line without its newline (a
    write cut short, or one still in progress) and a fragment left in the middle by a write that
    was cut short. A missing log yields nothing. Rotating the log while it is being read may
    skip or repeat the events of the file being moved.

    :param on_skip: called with the file name and the 1-based line number of each complete line
        that is skipped because it is not a JSON object (not for a torn final line).
    """
    for name in log_files(path, include_rotated):
        try:
            handle = open(name, "rb")  # noqa: SIM115 - closed below; a vanished file is skipped
        except OSError:
            continue
        with handle:
            for number, raw in enumerate(handle, 1):
                if not raw.endswith(b"\n"):
                    break  # torn final line
                if not raw.strip():
                    continue
                try:
                    event = json.loads(raw)
                except ValueError:
                    event = None
                if isinstance(event, dict):
                    yield event
                elif on_skip is not None:
                    on_skip(name, number)
