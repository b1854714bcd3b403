"""Issue #21 item 3: one odd line (a ``ts`` out of range or NaN, a ``hook.decision`` whose
``params`` is not a list, an id of the wrong type) stops no reader of the log. Each reader shows
the line as unreadable with its line number and goes on to every event after it."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from toolhooks import Runtime, hookimpl

ODD = [
    '{"ts": 1e20, "event": "tool.proposed", "call_id": "forged-1"}',
    '{"ts": NaN, "event": "tool.proposed", "call_id": "forged-2"}',
    '{"ts": 1796343851.0, "event": "hook.decision", "call_id": "forged-3", "params": "path"}',
    '{"ts": 1796343851.0, "event": "tool.injected", "call_id": 5}',
    '{"ts": Infinity, "event": "tool.injected", "call_id": "forged-4"}',
]

REASONS = [
    "ts is not a time: 1e+20",
    "ts is not a time: nan",
    "params is not a list of str: 'path'",
    "call_id is not a string: 5",
    "ts is not a time: inf",
]


class Rewrites:
    @hookimpl
    def before_tool_call(self, call):
        return {"params": {"path": "/ws/" + call.params["path"]}}


def real_log(tmp_path: Path) -> Path:
    """Two calls written by the real pipeline, the odd lines between them, a third call after."""
    path = tmp_path / "events.jsonl"

    def run(name: str) -> None:
        from toolhooks.plugins.event_log import EventLogConfig, EventLogPlugin

        log = EventLogPlugin(EventLogConfig(path=str(path), durability="call"))
        rt = Runtime(config={}, load_entrypoints=False, plugins=[Rewrites(), log])

        @rt.tool
        def read(path: str) -> str:
            """Read a file."""
            return f"contents of {path}"

        rt.call({"name": "read", "params": {"path": name}, "session_id": "s"})
        rt.close()

    run("a.txt")
    run("b.txt")
    with path.open("a", encoding="utf-8") as log:
        log.write("\n".join(ODD) + "\n")
    run("c.txt")
    return path


def odd_line_numbers(path: Path) -> list[int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [number for number, line in enumerate(lines, 1) if line in ODD]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return real_log(tmp_path)


def test_logs_shows_every_event_after_the_odd_lines_and_names_each(cli, log):
    result = cli("logs", "--file", str(log), "--json")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    events = result.json_lines()
    tools = [e.get("params", {}).get("path") for e in events if e["event"] == "tool.started"]
    assert tools == ["/ws/a.txt", "/ws/b.txt", "/ws/c.txt"]  # nothing after the odd lines lost
    assert not any(str(e.get("call_id", "")).startswith("forged") for e in events)
    for number in odd_line_numbers(log):
        assert f"{log}:{number}: unreadable, skipped" in result.err
    assert "ts is not a time" in result.err and "params is not a list" in result.err
    assert "call_id is not a string" in result.err


def test_logs_for_a_person_too(cli, log):
    result = cli("logs", "--file", str(log))
    assert result.code == 0 and "Traceback" not in result.err
    assert "c.txt" in result.out
    assert len([line for line in result.err.splitlines() if "unreadable" in line]) == len(ODD)


def test_follow_names_each_odd_line_and_goes_on(log, capsys):
    from toolhooks.cli._tail import follow_events

    events = list(follow_events(log, 0.01, stop=lambda: True))
    assert sum(1 for e in events if e["event"] == "tool.started") == 3
    err = capsys.readouterr().err
    for number in odd_line_numbers(log):
        assert f"{log}:{number}: unreadable, skipped" in err


def test_the_desk_calls_feed_lists_every_real_call_and_the_odd_lines(log):
    pytest.importorskip("fastapi", reason="the desk needs the web extra")
    from toolhooks.web._calls import CallLog

    calls = CallLog(log)
    found = calls.calls()
    assert sorted(c.tool for c in found) == ["read", "read", "read"]
    assert calls.unreadable_count == len(ODD)
    assert calls.unreadable == [
        f"{log}:{n}: {reason}" for n, reason in zip(odd_line_numbers(log), REASONS, strict=True)
    ]
    for summary in found:  # a call's timeline reads the same file
        assert calls.timeline(summary.call_id)


def test_control_characters_in_an_odd_line_reach_the_terminal_escaped(cli, tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"ts": "\x1b[2J\u202eevil", "event": "x"}) + "\n", encoding="utf-8")
    result = cli("logs", "--file", str(path))
    assert "\x1b" not in result.err and "\u202e" not in result.err
    assert "unreadable" in result.err


def test_a_hostile_file_name_is_escaped_too(tmp_path, capsys):
    from toolhooks.cli._logs import Skipped

    skipped = Skipped()
    skipped("ev\x1b[31mil.jsonl", 3, "bad\u202e")
    skipped.report()
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err and ":3: unreadable" in err
    _ = sys, io  # the harness' streams are left as pytest set them
