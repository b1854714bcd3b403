"""Turning an Event into one JSON line, cheaply, for any value it may carry.

The fast path writes the envelope by hand (its encoded ids are cached per call, since every event
of one call shares them) and hands ``data`` to the C JSON encoder. Anything unusual - a value JSON
cannot hold, a non-finite float, a non-string key, a cycle, a line over the size limit - falls to
a slow path that sanitizes the whole event. The result is always one line of ASCII JSON (string
escapes keep newlines out of it) ending in ``\\n``; encoding never raises.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from toolhooks import Event

ENVELOPE = ("ts", "event", "trace_id", "call_id", "session_id", "tool", "plugin")
_ENVELOPE_KEYS = frozenset(ENVELOPE)
_REPR_LIMIT = 200
_MAX_DEPTH = 32
_SHRUNK_STRING = 1_000
_SHRUNK_ITEMS = 100
_CACHE_LIMIT = 4096

_esc: Callable[[str], str] = json.encoder.encode_basestring_ascii


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


def _short(text: str) -> str:
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."


def _short_repr(value: Any) -> str:
    try:
        return _short(repr(value))
    except Exception:
        return f"<unrepresentable {type(value).__name__}>"


def json_default(value: Any) -> Any:
    """The encoder's fallback for values JSON has no type for. Never raises."""
    try:
        if isinstance(value, (set, frozenset)):
            return list(value)
        if isinstance(value, (bytes, bytearray, memoryview)):
            raw = bytes(value[:_REPR_LIMIT])
            return raw.decode("utf-8", "backslashreplace") + (
                "..." if len(value) > _REPR_LIMIT else ""
            )
        if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
            return value.isoformat()
        if isinstance(value, enum.Enum):
            return (
                _short_repr(value.value) if not isinstance(value.value, (str, int)) else value.value
            )
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        if isinstance(value, BaseException):
            return _short(f"{type(value).__name__}: {value}")
        dump = getattr(value, "model_dump", None)
        if callable(dump) and not isinstance(value, type):
            return dump(mode="json")
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {
                f.name: _short_repr(getattr(value, f.name, None)) for f in dataclasses.fields(value)
            }
    except Exception:
        pass
    return _short_repr(value)


def _make_data_encoder() -> Callable[[Mapping[str, Any], int], list[str]]:
    """``encode(data, 0)`` -> chunks of compact ASCII JSON; raises on NaN, odd keys, cycles."""
    maker = getattr(json.encoder, "c_make_encoder", None)
    if maker is not None:
        try:
            # markers=None: no cycle bookkeeping on the fast path; a cycle raises RecursionError
            # and the event takes the slow path, which has a depth limit.
            encode: Callable[[Mapping[str, Any], int], list[str]] = maker(
                None, json_default, _esc, None, ":", ",", False, False, False
            )
            return encode
        except Exception:  # pragma: no cover - an interpreter without the C accelerator
            pass
    encoder = json.JSONEncoder(  # pragma: no cover
        default=json_default, separators=(",", ":"), allow_nan=False, check_circular=False
    )
    return lambda data, _level: [encoder.encode(data)]  # pragma: no cover


def _key(key: Any) -> str:
    if isinstance(key, str):
        return str(key)
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, (int, float)):
        return _short_repr(key)
    converted = json_default(key)
    return converted if isinstance(converted, str) else _short_repr(key)


def _clean(value: Any, depth: int, max_str: int | None, max_items: int | None) -> Any:
    """A JSON-safe copy: str keys, finite floats, bounded depth (and sizes, when shrinking)."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        if max_str is not None and len(value) > max_str:
            return head_and_tail(str(value), max_str)
        return str(value)
    if isinstance(value, int):
        try:
            int.__repr__(value)
            return int(value)
        except ValueError:  # more digits than int -> str conversion allows
            return f"<int of {value.bit_length()} bits>"
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(float(value))
    if depth >= _MAX_DEPTH:
        return "<nested too deep>"
    if isinstance(value, Mapping):
        items = list(value.items())
        out: dict[str, Any] = {}
        for key, item in items[:max_items]:
            out[_key(key)] = _clean(item, depth + 1, max_str, max_items)
        if max_items is not None and len(items) > max_items:
            out["_more_items"] = len(items) - max_items
        return out
    if isinstance(value, (list, tuple)):
        seq = [_clean(item, depth + 1, max_str, max_items) for item in value[:max_items]]
        if max_items is not None and len(value) > max_items:
            seq.append(f"... {len(value) - max_items} more items")
        return seq
    converted = json_default(value)
    if converted is value or isinstance(converted, str):
        return converted if isinstance(converted, str) else _short_repr(value)
    return _clean(converted, depth + 1, max_str, max_items)


class LineEncoder:
    """Encodes events to lines; shared by threads (its caches are safe to race on)."""

    __slots__ = ("_data", "_envelopes", "_max_line", "_names")

    def __init__(self, max_line_bytes: int) -> None:
        self._max_line = max_line_bytes
        self._data = _make_data_encoder()
        self._names: dict[str | None, str] = {None: "null"}
        # call_id -> (trace_id, session_id, tool, the encoded ',"trace_id":...,"tool":...')
        self._envelopes: dict[str, tuple[str, str | None, str | None, str]] = {}

    def _name(self, name: str | None) -> str:
        encoded = _esc(name)  # type: ignore[arg-type]  # a non-str raises: slow path
        if len(self._names) < _CACHE_LIMIT:
            self._names[name] = encoded
        return encoded

    def _envelope(self, event: Event) -> str:
        """The encoded ids of ``event``'s call, cached by call id (all its events share them)."""
        call_id = event.call_id
        trace_id = event.trace_id
        session_id = event.session_id
        tool = event.tool
        cached = self._envelopes.get(call_id)
        if cached is None or cached[0] != trace_id or cached[1] != session_id or cached[2] != tool:
            fragment = (
                f',"trace_id":{_esc(trace_id)},"call_id":{_esc(call_id)}'
                f',"session_id":{"null" if session_id is None else _esc(session_id)}'
                f',"tool":{"null" if tool is None else _esc(tool)}'
            )
            cached = (trace_id, session_id, tool, fragment)
            envelopes = self._envelopes
            if len(envelopes) >= _CACHE_LIMIT:
                envelopes.clear()
            envelopes[call_id] = cached
        return cached[3]

    def encode(self, event: Event) -> str:
        """One line for ``event``, ending in a newline. Never raises."""
        # The fast path is written out inline: this runs for every event of every call.
        try:
            ts = event.ts
            if type(ts) is not float or ts - ts != 0.0:
                raise ValueError("ts is not a finite float")
            cached = self._envelopes.get(event.call_id)
            if (
                cached is None
                or cached[0] != event.trace_id
                or cached[1] != event.session_id
                or cached[2] != event.tool
            ):
                envelope = self._envelope(event)
            else:
                envelope = cached[3]
            names = self._names
            name = names.get(event.event) or self._name(event.event)
            plugin = names.get(event.plugin) or self._name(event.plugin)
            data = event.data
            if not data:
                if not isinstance(data, dict):
                    raise TypeError("data is not a dict")
                line = f'{{"ts":{ts!r},"event":{name}{envelope},"plugin":{plugin}}}\n'
            else:
                if not _ENVELOPE_KEYS.isdisjoint(data):
                    raise ValueError("data repeats an envelope key")
                body = "".join(self._data(data, 0))
                line = f'{{"ts":{ts!r},"event":{name}{envelope},"plugin":{plugin},{body[1:]}\n'
        except Exception:
            line = self._slow(event, None, None)
        if len(line) > self._max_line:
            line = self._slow(event, _SHRUNK_STRING, _SHRUNK_ITEMS)
            if len(line) > self._max_line:
                line = self._envelope_only(event, len(line))
        return line

    def _flat(self, event: Event) -> dict[str, Any]:
        line: dict[str, Any] = {key: getattr(event, key, None) for key in ENVELOPE}
        data = getattr(event, "data", None)
        if isinstance(data, Mapping):
            for key, value in list(data.items()):
                if key not in line:
                    line[key] = value
        elif data is not None:
            line["data"] = data
        return line

    def _slow(self, event: Event, max_str: int | None, max_items: int | None) -> str:
        try:
            clean = _clean(self._flat(event), 0, max_str, max_items)
            if max_str is not None:
                clean["_truncated"] = True
            return json.dumps(clean, separators=(",", ":"), allow_nan=False) + "\n"
        except Exception as error:
            return self._envelope_only(event, None, error)

    def _envelope_only(self, event: Event, size: int | None, error: Exception | None = None) -> str:
        line: dict[str, Any] = {}
        for key in ENVELOPE:
            try:
                line[key] = _clean(getattr(event, key, None), _MAX_DEPTH - 1, _REPR_LIMIT, 1)
            except Exception:
                line[key] = None
        line["_truncated"] = True
        if size is not None:
            line["_original_chars"] = size
        if error is not None:
            line["_encode_error"] = json_default(error)
        try:
            return json.dumps(line, separators=(",", ":"), allow_nan=False) + "\n"
        except Exception:  # pragma: no cover - every value above is already JSON-safe
            return '{"event":null,"_encode_error":"unencodable"}\n'
