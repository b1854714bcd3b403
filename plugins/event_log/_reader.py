"""Reading the log back: whole lines only, oldest rotated file first."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from ._defaults import DEFAULT_PATH


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


MAX_TS = 253_402_300_799.0
"""The last second of the year 9999: the latest time a reader can show as a date."""
_TEXT_FIELDS = ("event", "trace_id", "call_id", "session_id", "tool", "plugin")
_LISTS = {"hook.decision": (("params", str),), "tool.injected": (("quiet", dict),)}
"""Fields readers treat as lists, per event, with the type of their items."""


def unreadable(event: dict[str, Any]) -> str | None:
    """Why a JSON object cannot be shown as an event (None: it can).

    A log can be corrupted or forged, and every reader (``toolhooks logs`` and ``--follow``, the
    desk's calls feed, ``whatif``) shows such a line as unreadable and goes on, instead of
    failing on it and hiding every event after it. Checked: the envelope's types, a ``ts`` that
    is a finite time a date can show, and the fields readers treat as lists of names.
    """
    ts = event.get("ts")
    if ts is not None and (
        type(ts) not in (int, float) or not math.isfinite(ts) or not 0 <= ts <= MAX_TS
    ):
        return f"ts is not a time: {_brief(ts)}"
    if type(event.get("event")) is not str:
        return f"event is not a name: {_brief(event.get('event'))}"
    for key in _TEXT_FIELDS[1:]:
        value = event.get(key)
        if value is not None and type(value) is not str:
            return f"{key} is not a string: {_brief(value)}"
    for key, item_type in _LISTS.get(event["event"], ()):
        value = event.get(key)
        if value is None:
            continue
        if type(value) is not list or any(type(item) is not item_type for item in value):
            return f"{key} is not a list of {item_type.__name__}: {_brief(value)}"
    return None


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_events(
    path: str | os.PathLike[str] = DEFAULT_PATH,
    include_rotated: bool = True,
    on_skip: Callable[[str, int, str], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield every event in the log as a dict, oldest first.

    Lines that are not a complete JSON object are skipped: a final line without its newline (a
    write cut short, or one still in progress) and a fragment left in the middle by a write that
    was cut short. A missing log yields nothing. Rotating the log while it is being read may
    skip or repeat the events of the file being moved.

    :param on_skip: called with the file name, the 1-based line number and the reason of each
        complete line that is skipped: not a JSON object, or an object no reader can show
        (:func:`unreadable`); not for a torn final line.
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
                problem = "not a JSON object" if type(event) is not dict else unreadable(event)
                if problem is None:
                    yield event
                elif on_skip is not None:
                    on_skip(name, number, problem)
