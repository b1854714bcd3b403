"""`toolhooks logs` against bad files and filters that match nothing (issue #10 items 18, 20,
21, 25): every problem is one line naming what is wrong, never a traceback or silence."""

from __future__ import annotations

import os

import pytest
from toolhooks.cli._events import handle

from .test_logs import event, sample
from .tty import on_tty


def one_line_error(result, *needles: str) -> None:
    assert result.code == 1
    assert "Traceback" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    for needle in needles:
        assert needle in lines[0]


def test_a_directory_is_an_error_naming_it(cli):
    (cli.cwd / "logs").mkdir()
    result = cli("logs", "--file", "logs")
    one_line_error(result, "logs is a directory, not an event log")
    assert result.out == ""


def test_a_binary_file_is_not_an_event_log(cli):
    (cli.cwd / "blob").write_bytes(bytes(range(256)) * 20 + b"\n\xff\xfe\n")
    result = cli("logs", "--file", "blob")
    assert result.code == 1 and "Traceback" not in result.err
    assert "blob is not an event log: none of its lines is a JSON event" in result.err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_an_unreadable_file(cli):
    path = cli.jsonl("events.jsonl", sample())
    path.chmod(0)
    one_line_error(cli("logs", "--file", str(path)), "cannot read", "Permission denied")


def test_corrupt_lines_are_counted_not_silently_skipped(cli):
    path = cli.cwd / "events.jsonl"
    rows = sample()
    import json

    text = json.dumps(rows[0]) + "\n{torn by a crash\n" + "[1, 2]\n" + json.dumps(rows[1]) + "\n"
    path.write_text(text)
    result = cli("logs", "--file", str(path), "--json")
    assert result.code == 0
    assert [row["event"] for row in result.json_lines()] == ["tool.proposed", "hook.decision"]
    assert result.err.strip().splitlines() == [
        f"toolhooks: {path}:2: unreadable, skipped: not a JSON object",
        f"toolhooks: {path}:3: unreadable, skipped: not a JSON object",
    ]


def test_a_filter_that_matches_nothing_says_so(cli):
    cli.jsonl(".toolhooks/events.jsonl", sample())
    result = cli("logs", "--session", "nope")
    assert result.code == 0 and result.out == ""
    assert "no event matches the filters (7 events read from .toolhooks/events.jsonl)" in result.err


def test_an_unknown_event_name_says_so(cli):
    cli.jsonl(".toolhooks/events.jsonl", [*sample(), event("myplugin.audit", "call_c")])
    result = cli("logs", "--event", "tool.proposd")
    assert result.code == 0
    assert "--event 'tool.proposd' matches no known event name (known: tool.proposed," in result.err
    assert "no event matches the filters" in result.err
    mine = cli("logs", "--event", "myplugin.audit", "--json")  # a plugin's own event, logged
    assert [row["event"] for row in mine.json_lines()] == ["myplugin.audit"]
    assert mine.err == ""
    assert cli("logs", "--event", "tool.*,loop.critical").err == ""


# -- short call handles (item 20) -----------------------------------------------------------------

IDS = ["call_5c1f0e2a9b7d4c3e1000000000000001", "call_5c1f0e2a9b7d4c3e1000000000000002"]


def two_calls(cli):
    rows = [event("tool.proposed", IDS[0]), event("tool.proposed", IDS[1], tool="exec")]
    cli.jsonl(".toolhooks/events.jsonl", rows)


def test_each_heading_shows_a_short_handle_that_selects_the_call(cli):
    two_calls(cli)
    out = cli("logs").out
    first, second = handle(IDS[0]), handle(IDS[1])
    assert first != second and len(first) == 8
    assert f"call {IDS[0]} #{first}" in out and f"call {IDS[1]} #{second}" in out
    for typed in (f"#{second}", second, second[:5], IDS[1]):
        rows = cli("logs", "--json", "--call", typed).json_lines()
        assert [row["call_id"] for row in rows] == [IDS[1]], typed


def test_a_prefix_naming_several_calls_is_an_error_listing_them(cli):
    two_calls(cli)
    result = cli("logs", "--call", "call_5c1f")
    one_line_error(result, "--call 'call_5c1f' matches 2 calls:")
    for call in IDS:
        assert f"#{handle(call)} {call}" in result.err
    assert result.out == ""


# -- terminal width and colour (item 21) ---------------------------------------------------------

LONG = "x" * 400


def long_log(cli):
    rows = [
        event("tool.proposed", "call_a", params={"cmd": LONG}),
        event("tool.blocked", "call_a", by="policy", reason="Tool 'exec' denied by policy"),
    ]
    cli.jsonl(".toolhooks/events.jsonl", rows)


def test_piped_output_is_full_width(cli):
    long_log(cli)
    out = cli("logs", env={"COLUMNS": "80"}).out
    assert LONG[:150] in out  # not cut to the terminal's width: it is not a terminal
    assert "\x1b[" not in out


def test_a_terminal_gets_lines_that_fit_and_colour(cli):
    long_log(cli)
    out = on_tty(cli, "logs", columns=80)
    lines = [line for line in out.splitlines() if not line.startswith("== ")]
    assert lines and all(
        len(line.replace("\x1b[31m", "").replace("\x1b[0m", "")) <= 80 for line in lines
    )
    assert "\x1b[31mtool.blocked\x1b[0m" in out
    wide = on_tty(cli, "logs", "--wide", columns=80)
    assert LONG[:150] in wide


def test_no_color_is_honoured(cli):
    long_log(cli)
    out = on_tty(cli, "logs", columns=80, env={"NO_COLOR": "1"})
    assert "tool.blocked" in out and "\x1b[" not in out
