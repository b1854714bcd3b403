"""toolhooks.records._json: log lines are the stdlib reference's bytes whichever path made them
(orjson's when it is installed, pydantic_core's otherwise); canonical text is total."""

from __future__ import annotations

import collections
import datetime
import enum
import importlib.util
import json
import math
import subprocess
import sys
import textwrap
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from toolhooks import FrozenDict, FrozenList
from toolhooks.records import _json
from toolhooks.records._json import (
    canonical_json,
    json_line,
    orjson_line,
    pydantic_line,
    stdlib_line,
)

ORJSON = importlib.util.find_spec("orjson") is not None
FAST_PATHS = [pydantic_line] + ([orjson_line] if ORJSON else [])


class Level(enum.IntEnum):
    LOW = 1


class Mode(str, enum.Enum):
    READ = "read"


class Color(enum.Enum):
    RED = "red"
    SHAPE = (1, 2)


Pair = collections.namedtuple("Pair", "a b")

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # beyond 64 bits too: those go to the stdlib
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),  # NaN, infinities, subnormals, -0.0
    st.floats(min_value=-1e-3, max_value=1e-3),  # where pydantic_core spells floats its own way
    st.text(),  # lone surrogates, control characters, U+2028, emoji
    st.binary(max_size=40),
    st.sampled_from(
        [
            Level.LOW,
            Mode.READ,
            Color.RED,
            Color.SHAPE,
            uuid.UUID(int=7),
            datetime.datetime(2024, 5, 1, 12, 0, 0, 123, tzinfo=datetime.timezone.utc),
            datetime.date(2024, 5, 1),
            ValueError("boom"),
        ]
    ),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.lists(children, max_size=5).map(FrozenList),
        st.dictionaries(st.text(max_size=8), children, max_size=5),
        st.dictionaries(st.text(max_size=8), children, max_size=5).map(FrozenDict),
        st.dictionaries(st.integers() | st.booleans() | st.none(), children, max_size=3),
        st.frozensets(st.integers(), max_size=4),
        st.builds(Pair, children, children),
    )


payloads = st.recursive(scalars, _containers, max_leaves=25)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(payloads)
@example({"small": 1e-05, "tiny": 1e-07, "text": "1e-5 and 0.00001 in a string"})
@example({"nan": math.nan, "inf": -math.inf, "deep": [[[[math.nan]]]]})
@example({"big": 2**64, "huge": 10**5000})
@example({"surrogate": "a\ud800b", "é": "\u2028\x00"})
def test_the_fast_paths_and_the_stdlib_write_the_same_bytes(value):
    reference = stdlib_line(value)
    for fast in FAST_PATHS:
        assert fast(value) == reference, fast
    assert json_line(value) == reference
    text = reference.decode("utf-8")  # valid UTF-8 whatever the input held
    assert "\n" not in text and "\r" not in text
    json.loads(text)  # and valid JSON: no NaN, no Infinity


@pytest.mark.parametrize("fast", FAST_PATHS)
def test_every_path_cuts_a_nested_nan_at_the_same_depth(fast):
    deep: Any = math.nan
    for _ in range(
        260
    ):  # orjson and pydantic_core nest 254 levels; the stdlib must not cut earlier
        deep = [deep]
    assert fast(deep) == stdlib_line(deep)
    shallow: Any = math.nan
    for _ in range(200):
        shallow = [shallow]
    assert fast(shallow) == stdlib_line(shallow)
    assert json.loads(fast(shallow)) == json.loads(json.dumps(shallow).replace("NaN", "null"))


class _Reordered(dict):  # type: ignore[type-arg]
    def items(self):  # type: ignore[override]
        return reversed(list(super().items()))


class _Doubled(list):  # type: ignore[type-arg]
    def __iter__(self):  # type: ignore[override]
        for item in super().__iter__():
            yield item
            yield item


def test_what_pydantic_core_takes_and_what_it_leaves_to_the_stdlib():
    # An event as the core makes it takes the fast path ...
    event = {
        "ts": 1.5,
        "event": "tool.injected",
        "params": FrozenDict(path="a", n=FrozenList([1, 2.5, None, True])),
        "quiet": [{"plugin": "policy", "hook": "before_tool_call"}],
        "pair": (1, "x"),
        "nan": math.nan,
    }
    assert _json._agreed(event)
    # ... what pydantic_core spells its own way does not, and the bytes are the stdlib's anyway.
    for odd in (
        b"x",
        datetime.date(2024, 5, 1),
        Level.LOW,
        Mode.READ,
        {1: "a"},
        {None: "a"},
        2**64,
        frozenset({1}),
        Pair(1, 2),
        _Reordered(a=1, b=2),
        _Doubled([1, 2]),
    ):
        assert not _json._agreed({"value": odd}), odd
        assert pydantic_line({"value": odd}) == stdlib_line({"value": odd})
    assert pydantic_line(_Reordered(a=1, b=2)) == b'{"b":2,"a":1}'
    assert pydantic_line(_Doubled([1, 2])) == b"[1,1,2,2]"
    cycle: list[Any] = [1]
    cycle.append(cycle)
    assert not _json._agreed(cycle)
    assert pydantic_line(cycle) == stdlib_line(cycle)


def test_the_decisions_taken_once():
    assert json_line({"b": b"\xff\x00abc"}) == b'{"b":{"$bytes":"/wBhYmM="}}'
    assert json_line([math.nan, math.inf, -math.inf]) == b"[null,null,null]"
    assert json_line({"t": "\u00e9\n"}) == '{"t":"\u00e9\\n"}'.encode()
    assert json_line({"t": "\udc80"}) == b'{"t":"\\udc80"}'
    assert json.loads(json_line({"t": "\udc80"}))["t"] == "\udc80"
    assert json_line([1e-05, 1e16, 0.1]) == b"[1e-05,1e+16,0.1]"
    assert json_line({1: "a", None: "b"}) == b'{"1":"a","null":"b"}'


def test_canonical_text_keeps_what_a_digest_must_tell_apart():
    assert canonical_json({"b": 1, "a": [b"\x00", {2, 1}]}) == (
        '{"a":[{"$bytes":"AA=="},{"$set":["1","2"]}],"b":1}'
    )
    assert canonical_json([math.nan, None]) == "[NaN,null]"
    assert canonical_json("\u00e9\ud800") == '"\u00e9\ud800"'
    assert canonical_json(10**5000) == f'{{"$int":"{hex(10**5000)}"}}'
    circular: list[Any] = [1]
    circular.append(circular)
    assert canonical_json(circular) == canonical_json(circular) == '[1,{"$cycle":true}]'
    assert canonical_json({1: "x", "1": "y"}) == '{"$key:1":"x","1":"y"}'


class _Opaque:
    pass


def test_canonical_text_describes_objects_without_their_address():
    first, second = canonical_json(_Opaque()), canonical_json(_Opaque())
    assert first == second and "0x" not in first and "_Opaque" in first


def test_log_lines_import_no_pydantic_core_of_their_own() -> None:
    """Without orjson, a process that has not imported pydantic_core writes its lines with the
    stdlib (the same bytes) instead of importing it; once something imports it, its encoder is
    used from the next line on."""
    code = textwrap.dedent(
        """
        import sys
        sys.modules["orjson"] = None  # as if toolhooks[fast] were not installed
        from toolhooks.records import _json
        line = _json.json_line({"a": [1, 2.5, "x"]})
        print(line == _json.stdlib_line({"a": [1, 2.5, "x"]}), "pydantic_core" in sys.modules)
        import pydantic_core
        assert _json.json_line({"a": 1}) == b'{"a":1}'
        print(_json._to_json is pydantic_core.to_json)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "True"]


@pytest.mark.skipif(not ORJSON, reason="orjson is not installed (toolhooks[fast])")
def test_orjson_is_imported_for_log_lines_only_once_a_process_has_written_enough() -> None:
    """A process that writes a handful of lines (a hook's) does not import orjson for them (10 M
    instructions); one that writes more than ``ORJSON_AFTER`` imports it at the next line, and
    every line is the stdlib's bytes either way. A process that imported orjson itself has it
    used at once."""
    code = textwrap.dedent(
        """
        import sys
        from toolhooks.records import _json
        value = {"a": [1, 2.5, "x", 1e-05], "b": None}
        same = set()
        for _ in range(_json.ORJSON_AFTER):
            same.add(_json.json_line(value) == _json.stdlib_line(value))
        print(same == {True}, "orjson" in sys.modules)
        same.add(_json.json_line(value) == _json.stdlib_line(value))
        print(same == {True}, _json.orjson is sys.modules.get("orjson") is not None)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "True", "True"]
    already = "import orjson\nfrom toolhooks.records import _json\nprint(_json.orjson is orjson)"
    done = subprocess.run([sys.executable, "-c", already], capture_output=True, text=True)
    assert done.stdout.split() == ["True"], done.stderr
