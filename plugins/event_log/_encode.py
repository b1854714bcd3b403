"""Turning an Event into one JSON line: the envelope, then the stage's own fields.

The bytes come from :func:`toolhooks.kit.json_line` (orjson when installed, past a process's
first 256 lines; the same bytes without it). A line over ``max_line_bytes`` is encoded again with long strings cut to their head
and tail and long containers shortened, marked ``"_truncated": true``; if even that is too long,
only the envelope is kept. Encoding never raises.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from toolhooks import Event
from toolhooks.kit import json_line, sanitize, short_repr

ENVELOPE = ("ts", "event", "trace_id", "call_id", "session_id", "tool", "plugin")
_SHRUNK_STRING = 1_000
_SHRUNK_ITEMS = 100


def head_and_tail(text: str, keep: int) -> str:
    """``text`` cut to about ``keep`` characters: its head and tail, and between them the full
    length and the sha256 of the part that was cut, so padding cannot hide how a string ends and
    the cut part can still be checked against a copy.
    """
    head = keep - keep // 2
    tail = keep // 2
    cut = text[head : len(text) - tail]
    digest = hashlib.sha256(cut.encode("utf-8", "surrogatepass")).hexdigest()
    marker = f"[... {len(cut)} characters cut of {len(text)}; sha256 of the cut part {digest} ...]"
    return f"{text[:head]}{marker}{text[len(text) - tail :]}"


def flat(event: Event) -> dict[str, Any]:
    """The line's fields: the envelope, then ``data``'s (an envelope key in data is dropped)."""
    if type(event) is Event:
        # An Event is a tuple underneath: one unpacking instead of eight property reads
        # (BENCHMARKS.md, choices made for speed).
        name, ts, trace_id, call_id, session_id, tool, plugin, data = event
    else:  # an Event subclass, or anything shaped like one
        name, ts, trace_id, call_id = event.event, event.ts, event.trace_id, event.call_id
        session_id, tool, plugin, data = event.session_id, event.tool, event.plugin, event.data
    line: dict[str, Any] = {
        "ts": ts,
        "event": name,
        "trace_id": trace_id,
        "call_id": call_id,
        "session_id": session_id,
        "tool": tool,
        "plugin": plugin,
    }
    if type(data) is dict and line.keys().isdisjoint(data) and "chain" not in data:
        line.update(data)  # the usual case, in one step
    elif isinstance(data, Mapping):
        for key, value in data.items():
            if key not in line and key != "chain":  # the hash chain's field, added last
                line[key] = value
    elif data is not None:
        line["data"] = data
    return line


class LineEncoder:
    """Encodes events to lines (bytes ending in a newline); holds no state, shared by threads."""

    __slots__ = ("_max_line",)

    def __init__(self, max_line_bytes: int) -> None:
        self._max_line = max_line_bytes

    def encode(self, event: Event) -> bytes:
        """One line for ``event``, ending in a newline. Never raises."""
        try:
            fields = flat(event)
            line = json_line(fields) + b"\n"
        except Exception as error:  # a hostile mapping or a recursion limit: the envelope only
            return self._envelope_only(event, None, error)
        if len(line) > self._max_line:
            line = self._shrunk(fields)
            if len(line) > self._max_line:
                line = self._envelope_only(event, len(line))
        return line

    def _shrunk(self, fields: dict[str, Any]) -> bytes:
        try:
            clean = sanitize(fields, _SHRUNK_STRING, _SHRUNK_ITEMS, head_and_tail)
            clean["_truncated"] = True
            return json_line(clean) + b"\n"
        except Exception:
            return b"\n" * (self._max_line + 1)  # too long: the caller keeps the envelope only

    def _envelope_only(
        self, event: Event, size: int | None, error: Exception | None = None
    ) -> bytes:
        line: dict[str, Any] = {}
        for key in ENVELOPE:
            try:
                line[key] = sanitize(getattr(event, key, None), 200, 1, head_and_tail)
            except Exception:
                line[key] = None
        line["_truncated"] = True
        if size is not None:
            line["_original_bytes"] = size
        if error is not None:
            line["_encode_error"] = short_repr(error)
        try:
            return json_line(line) + b"\n"
        except Exception:  # pragma: no cover - every value above is already JSON-safe
            return b'{"event":null,"_encode_error":"unencodable"}\n'
