"""The event log's lines, byte for byte: the same bytes as before the writer thread encoded them.

``event_log_golden.jsonl`` holds the lines the encoder wrote for :func:`cases` when the caller's
thread encoded them with orjson (or the stdlib, the same bytes), before issue #22: a line of the
log must not change when the encoding moves or changes its library. ``python
tests/plugins/test_event_log_bytes.py --write`` writes the file again (only when a change to the
format is meant).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import enum
import json
import math
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from toolhooks import Event, FrozenDict, FrozenList
from toolhooks.plugins.event_log import EventLogConfig, EventLogPlugin
from toolhooks.plugins.event_log._encode import LineEncoder
from toolhooks.records import _json

GOLDEN = Path(__file__).with_name("event_log_golden.jsonl")
MAX_LINE = 16384
TS = 1796367276.9555984
TRACE = "e96624ada42d10021000000000000000"


class Level(enum.IntEnum):
    LOW = 1


class Mode(str, enum.Enum):
    READ = "read"


class Color(enum.Enum):
    RED = "red"
    SHAPE = (1, 2)


@dataclasses.dataclass
class Point:
    x: int
    y: float


class Model(BaseModel):
    a: int = 1
    b: list[str] = ["x"]
    c: float = 1e-05


class Hostile(dict):  # type: ignore[type-arg]
    def items(self):  # type: ignore[override]
        raise RuntimeError("no items")

    def __iter__(self):  # type: ignore[override]
        raise RuntimeError("no keys")


Pair = collections.namedtuple("Pair", "a b")


def _event(name: str, data: Any, call: str = "call_1", **envelope: Any) -> Event:
    fields: dict[str, Any] = {
        "event": name,
        "ts": TS,
        "trace_id": TRACE,
        "call_id": call,
        "session_id": "bench",
        "tool": "read",
        "plugin": None,
    }
    fields.update(envelope)
    return Event(**fields, data=data)


def cases() -> list[Event]:
    """Events as the core and the built-ins make them, then every odd value the format decides."""
    params = FrozenDict(path="src/module_0.py", flags=FrozenList(["-n", 3, 2.5, None, True]))
    quiet = [
        {"plugin": "policy", "hook": "before_tool_call", "priority": 10000, "latency_ms": 0.0469},
        {
            "plugin": "result_budget",
            "hook": "after_tool_call",
            "priority": -10000,
            "latency_ms": 1e-05,
        },
    ]
    events = [
        _event(
            "tool.proposed",
            {"params": dict(params), "origin": "agent", "agent_id": None, "sender": None},
        ),
        _event("tool.started", {"params": params}),
        _event(
            "hook.decision",
            {"returned": "no decision", "priority": 9000, "latency_ms": 0.0307, "applied": True},
            plugin="loop_detection",
        ),
        _event(
            "tool.finished",
            {"status": "ok", "duration_ms": 0.0023, "error": None, "result_digest": "216:56fc8ba4"},
        ),
        _event(
            "result.trimmed",
            {"original_chars": 120_000, "kept_chars": 4000, "artifact": "a/b.txt", "mode": "text"},
            plugin="result_budget",
        ),
        _event(
            "tool.injected",
            {"status": "ok", "chars": 216, "truncated": False, "artifact": None, "quiet": quiet},
        ),
        _event("plugin.unlocked", {"reason": "not in the lock"}, call="", trace_id="", tool=None),
    ]
    floats = [0.1, 1.0, -0.0, 1e-05, 1e-07, 9.999999999999999e-05, 0.0001, 1e16, 1e22, 5e-324]
    odd: dict[str, Any] = {
        "floats": [*floats, 1.7976931348623157e308, 123456789.123, 2.5e-10],
        "specials": [math.nan, math.inf, -math.inf],
        "text": 'é😀 \u2028 \x00\x1f\x7f \n\r\t"\\ </script>',
        "surrogate": "a\ud800b\udfff",
        "ints": [0, -1, 2**63 - 1, 2**63, 2**64, -(2**64), 2**70, 10**30],
        "huge_int": 10**5000,
        "bytes": b"\xff\x00abc",
        "bytearray": bytearray(b"xyz"),
        "frozen": FrozenDict(b=FrozenList([1, FrozenDict(c=None)]), a=()),
        "tuple": (1, "two", (3.0,)),
        "pair": Pair(1, 2),
        "a_set": {3},
        "frozenset": frozenset({7}),
        "when": datetime.datetime(2024, 5, 1, 12, 0, 0, 123, tzinfo=datetime.timezone.utc),
        "day": datetime.date(2024, 5, 1),
        "elapsed": datetime.timedelta(seconds=1.5),
        "uuid": uuid.UUID(int=7),
        "path": Path("/tmp/x"),
        "enums": [Level.LOW, Mode.READ, Color.RED, Color.SHAPE],
        "point": Point(1, 1e-07),
        "model": Model(),
        "error": ValueError("boom"),
        "type": int,
        "keys": {1: "one", None: "none", False: "no", 2.5: "f", (1, 2): "t", "z": 0, "a": 1},
        "order": {"z": 1, "a": 2, "m": 3},
        "empty": [{}, [], ""],
    }
    for key, value in odd.items():
        events.append(_event("odd", {"value": value}, call=f"call_{key}"))
    events.append(_event("odd", odd, call="call_all"))
    events += [
        _event("odd", {"tool": "evil", "call_id": "forged", "chain": "x", "other": 1}),
        _event("odd", None),
        _event("odd", ["not", "a dict"]),
        _event("odd", {}, ts=math.nan, trace_id=123, call_id=("a", "b")),
        _event("big", {"content": "x" * 10_000, "items": list(range(2000))}),
        _event("big", {f"k{i}": "y" * 900 for i in range(30)}),
        _event("odd", Hostile(a=1)),
    ]
    return events


def encoded() -> list[bytes]:
    encoder = LineEncoder(MAX_LINE)
    return [encoder.encode(event) for event in cases()]


@pytest.mark.parametrize("path", ["as installed", "without orjson"])
def test_every_line_is_the_bytes_it_was(path, monkeypatch):
    if path == "without orjson":
        monkeypatch.setattr(_json, "orjson", None)  # pydantic_core's path, then the stdlib
        monkeypatch.setattr(_json, "_orjson_missing", True)  # (not imported after 256 lines)
    elif _json.orjson is None:
        _json._load_orjson()  # orjson's path when it is installed, not after 256 lines
    golden = GOLDEN.read_bytes().splitlines(keepends=True)
    lines = encoded()
    assert len(lines) == len(golden)
    for index, (line, expected) in enumerate(zip(lines, golden, strict=True)):
        assert line == expected, f"line {index + 1}: {line[:300]!r} != {expected[:300]!r}"


@pytest.mark.parametrize("durability", ["call", "interval"])
def test_the_file_holds_those_bytes_with_the_chain_after_them(tmp_path, durability):
    path = tmp_path / "events.jsonl"
    plugin = EventLogPlugin(
        EventLogConfig(path=str(path), durability=durability, max_line_bytes=MAX_LINE)
    )
    try:
        for event in cases():
            plugin.on_event(event)
    finally:
        plugin.close()
    golden = GOLDEN.read_bytes().splitlines()
    written = path.read_bytes().splitlines()
    assert len(written) == len(golden)
    for line, expected in zip(written, golden, strict=True):
        chain_at = line.rindex(b',"chain":{"writer":')
        assert line[:chain_at] + b"}" == expected
        json.loads(line)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_bytes(b"".join(encoded()))
