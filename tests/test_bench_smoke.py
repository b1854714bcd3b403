"""The benchmark script runs (tiny sizes, no timing asserted), and the hot-path shortcuts taken
for speed give exactly what the general code they skip would have given."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolhooks import Event
from toolhooks.events._events import make_event
from toolhooks.pipeline._tools import build_tool

ROOT = Path(__file__).resolve().parents[1]


def test_bench_script_prints_every_table_on_tiny_sizes(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--json", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for number in range(1, 10):
        assert f"\n## {number}. " in done.stdout
    assert "| plugins | plain loop | raw pluggy |" in done.stdout
    assert "target:" in done.stdout
    # The concurrency check itself must hold even on tiny sizes: no event lost or duplicated.
    assert "target: no lost or duplicated events: met" in done.stdout
    # Item 13 runs real hook processes and a daemon: it must have run, not just printed a title.
    assert "\n## 13. " in done.stdout and "bench/agents.py failed" not in done.stdout
    assert out.read_text().startswith("{")


def test_cold_start_script_runs_with_and_without_a_lock(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "cold_start.py"), "--rounds", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  no lock " in done.stdout and "  lock " in done.stdout
    assert "the check alone (" in done.stdout


def test_make_event_is_a_read_only_record():
    fields: dict[str, Any] = {
        "event": "hook.decision",
        "ts": 1.5,
        "trace_id": "t",
        "call_id": "c",
        "session_id": None,
        "tool": "read",
        "plugin": "policy",
        "data": {"returned": None},
    }
    made = make_event(*fields.values())
    assert made == Event(**fields)
    assert {name: getattr(made, name) for name in fields} == fields
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.plugin = "other"  # type: ignore[misc]
    assert not hasattr(made, "__dict__")  # slotted


def sample_tool(path: str, count: int = 0, ratio: float = 1.0, flag: bool = False, note=None):
    return path


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
)
params = st.dictionaries(
    st.sampled_from(["path", "count", "ratio", "flag", "note", "other"]), scalars, max_size=5
)


@given(params)
def test_fast_validation_agrees_with_pydantic(proposed):
    tool = build_tool(sample_tool)
    assert tool.fast_fields is not None  # the shortcut applies to this signature
    fast_error = slow_error = None
    try:
        fast = tool.validate(dict(proposed))
    except ValueError as exc:
        fast_error = str(exc)
    tool.fast_fields = None  # the general path: pydantic for everything
    try:
        slow = tool.validate(dict(proposed))
    except ValueError as exc:
        slow_error = str(exc)
    assert fast_error == slow_error
    if fast_error is None:
        assert [typed(part) for part in fast] == [typed(part) for part in slow]


def typed(values: dict[str, Any]) -> dict[str, tuple[type, str]]:
    """Compare by type and repr: NaN != NaN, and 1 == 1.0 == True would hide a coercion."""
    return {key: (type(value), repr(value)) for key, value in values.items()}
