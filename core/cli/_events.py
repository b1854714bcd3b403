"""Filtering logged events and printing them for a person: one heading per call, one line each."""

from __future__ import annotations

import argparse
import hashlib
import re
import time
from collections import OrderedDict
from collections.abc import Container, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..events._events import EVENT_NAMES
from ..events._names import (
    HOOK_ERROR,
    LOOP_CRITICAL,
    LOOP_WARNING,
    POLICY_DENIED,
    TOOL_BLOCKED,
)
from ..registry._names import name_patterns
from ._common import event_log_module
from ._output import RED, YELLOW, output_width, paint
from ._summary import summarize
from ._table import cell_width, clean, cut, pad

if TYPE_CHECKING:
    from ._logs import Skipped

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
EVENT_WIDTH = 21
PLUGIN_WIDTH = 16
DETAIL_WIDTH = 160
HANDLE_CHARS = 8
KNOWN_EVENTS = (*EVENT_NAMES, POLICY_DENIED)
"""Event names the core and the built-in plugins emit (``--event`` warns about others)."""
ALERT_EVENTS = {
    TOOL_BLOCKED: RED,
    LOOP_CRITICAL: RED,
    HOOK_ERROR: RED,
    POLICY_DENIED: RED,
    LOOP_WARNING: YELLOW,
}


def handle(identifier: str) -> str:
    """A short handle for a call or trace id, for people to read and type: 8 hex digits of
    its sha256 (ids share long prefixes; their hashes do not)."""
    return hashlib.sha256(identifier.encode("utf-8", "surrogatepass")).hexdigest()[:HANDLE_CHARS]


class Ambiguous(Exception):
    """An id prefix or handle that names more than one call (or trace)."""


class IdMatch:
    """Matches one field against a resolved id (exactly), or an unresolved id prefix / handle."""

    def __init__(self, wanted: str, exact: bool) -> None:
        self.wanted = wanted
        self.exact = exact
        self.handle = wanted.lower() if re.fullmatch(r"[0-9a-fA-F]{1,64}", wanted) else None

    def __call__(self, value: str) -> bool:
        if value == self.wanted:
            return True
        if self.exact:
            return False
        if value.startswith(self.wanted):
            return True
        return self.handle is not None and handle(value).startswith(self.handle)


def resolve(path: Path, field: str, wanted: str | None, follow: bool) -> IdMatch | None:
    """``--call`` / ``--trace`` resolved against the log: the one id it names.

    An exact id, a prefix of an id, or a prefix of an id's handle (with or without ``#``). A
    value that names several ids raises :class:`Ambiguous` listing them; one that names none
    stays a prefix, for events still to come with ``--follow``.
    """
    if not wanted:
        return None
    text = wanted[1:] if wanted.startswith("#") else wanted
    probe = IdMatch(text, exact=False)
    found: dict[str, Any] = {}
    for event in history(path, include_current=True):
        value = event.get(field)
        if not isinstance(value, str) or value in found or not probe(value):
            continue
        if value == text:
            return IdMatch(text, exact=True)
        found[value] = event.get("tool")
        if len(found) > 50:
            break
    if len(found) == 1:
        return IdMatch(next(iter(found)), exact=True)
    if not found:
        return probe
    what = "call" if field == "call_id" else "trace"
    listed = "; ".join(
        f"#{handle(value)} {clean(value)} ({clean(str(tool or '?'))})"
        for value, tool in list(found.items())[:10]
    )
    more = f" and {len(found) - 10}+ more" if len(found) > 10 else ""
    raise Ambiguous(
        f"--{what} {clean(wanted)!r} matches {len(found)}{'+' if len(found) > 50 else ''} "
        f"{what}s: {listed}{more}; give more of the id or its #handle"
    )


def parse_since(text: str) -> float:
    """``30s``, ``10m``, ``2h``, ``1d``, ``1w`` ago, or an ISO date / date and time, as epoch seconds."""
    value = text.strip().lower()
    match = _DURATION.fullmatch(value)
    if match:
        return time.time() - float(match.group(1)) * UNITS[match.group(2)]
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a duration (30s, 10m, 2h, 1d) nor an ISO date and time"
        ) from None
    return moment.timestamp()


def _pattern(names: Sequence[str]) -> Container[str] | None:
    parts = [part.strip() for name in names for part in name.split(",") if part.strip()]
    return name_patterns(parts) if parts else None


class EventFilter:
    """Keeps events matching every given criterion; ids match exactly or by prefix."""

    def __init__(
        self,
        trace: IdMatch | str | None,
        call: IdMatch | str | None,
        session: str | None,
        since: float | None,
        events: Sequence[str],
    ) -> None:
        self.trace = IdMatch(trace, exact=False) if isinstance(trace, str) else trace
        self.call = IdMatch(call, exact=False) if isinstance(call, str) else call
        self.session = session
        self.since = since
        self.events = _pattern(events)

    def __call__(self, event: dict[str, Any]) -> bool:
        if self.trace is not None and not self.trace(str(event.get("trace_id") or "")):
            return False
        if self.call is not None and not self.call(str(event.get("call_id") or "")):
            return False
        if self.session is not None and event.get("session_id") != self.session:
            return False
        if self.since is not None:
            ts = event.get("ts")
            if not isinstance(ts, (int, float)) or ts < self.since:
                return False
        return self.events is None or str(event.get("event", "")) in self.events


def stamp(ts: Any, with_date: bool = True) -> str:
    if not isinstance(ts, (int, float)):
        return "?"
    moment = datetime.fromtimestamp(ts)
    text = moment.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")
    return f"{text}.{moment.microsecond // 1000:03d}"


class GroupedPrinter:
    """Prints a heading when the call changes, then one aligned line per event.

    Events of one call logged together print under one heading; when calls interleave (several
    agents share the log, or while following) the heading is repeated for each run.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        # On a terminal a line is cut to its width; piped (or --wide) it is written whole.
        self.width = output_width(out)
        self.current: str | None = None
        self.first_ts: OrderedDict[str, float] = OrderedDict()
        self.count = 0

    def print(self, event: dict[str, Any]) -> None:
        call = str(event.get("call_id") or "-")
        ts = event.get("ts")
        if call != self.current:
            if self.count:
                self.out.write("\n")
            self.out.write(self.heading(event) + "\n")
            self.current = call
        if call not in self.first_ts and isinstance(ts, (int, float)):
            self.first_ts[call] = ts
            if len(self.first_ts) > 4096:
                self.first_ts.popitem(last=False)
        start = self.first_ts.get(call)
        offset = f"+{(ts - start) * 1000:.1f}ms" if isinstance(ts, (int, float)) and start else "?"
        name = clean(str(event.get("event", "?")))
        plugin = clean(str(event.get("plugin") or ""))
        detail = clean(summarize(event, full=self.width is None))
        if self.width is not None:
            name, plugin = cut(name, EVENT_WIDTH), cut(plugin, PLUGIN_WIDTH)
        colour = ALERT_EVENTS.get(name)
        if colour is None and event.get("status") in ("blocked", "denied"):
            colour = RED
        shown = pad(paint(name, colour) if colour else name, EVENT_WIDTH)
        head = f"  {offset:>10}  {shown} {pad(plugin, PLUGIN_WIDTH)} "
        if self.width is not None:
            detail = cut(detail, max(10, min(DETAIL_WIDTH, self.width - cell_width(head))))
        self.out.write((head + detail).rstrip() + "\n")
        self.count += 1

    def heading(self, event: dict[str, Any]) -> str:
        call = event.get("call_id")
        parts = [
            f"== {stamp(event.get('ts'))}",
            clean(str(event.get("tool") or "?")),
            f"call {clean(call or '-')}" + (f" #{handle(call)}" if isinstance(call, str) else ""),
        ]
        if event.get("session_id"):
            parts.append(f"session {clean(str(event['session_id']))}")
        parts.append(f"trace {clean(event.get('trace_id') or '-')}")
        line = "  ".join(parts)
        return line if self.width is None else cut(line, self.width)

    def finish(self) -> None:
        self.out.flush()


def history(
    path: Path, include_current: bool, skipped: Skipped | None = None
) -> Iterator[dict[str, Any]]:
    """The events already written, oldest rotated file first."""
    reader = event_log_module()
    if reader is None:  # pragma: no cover - the built-in is part of the distribution
        return
    files: list[str] = reader.log_files(path, include_rotated=True)
    if not include_current:
        files = [name for name in files if Path(name) != path]
    for name in files:
        yield from reader.read_events(name, include_rotated=False, on_skip=skipped)
