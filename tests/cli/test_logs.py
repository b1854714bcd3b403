"""`toolhooks logs`: reading, filtering, grouping and following the JSONL event log."""

from __future__ import annotations

import json
import os
import queue
import threading
import time

import pytest
from toolhooks.cli._events import handle

WAIT = 60  # seconds to wait for a followed line: a generous upper bound, not a timing assertion


def event(name, call="call_a", ts=None, **data):
    row = {
        "ts": ts if ts is not None else time.time(),
        "event": name,
        "trace_id": f"trace_{call}",
        "call_id": call,
        "session_id": data.pop("session_id", "s1"),
        "tool": data.pop("tool", "read"),
        "plugin": data.pop("plugin", None),
    }
    row.update(data)
    return row


def sample():
    return [
        event("tool.proposed", "call_a", params={"path": "a.txt"}),
        event("hook.decision", "call_a", plugin="policy", hook="before_tool_call", returned=None),
        event("tool.finished", "call_a", status="ok", duration_ms=1.5, error=None),
        event(
            "tool.injected",
            "call_a",
            status="ok",
            chars=5,
            quiet=[
                {"plugin": "loops", "hook": "before_tool_call", "priority": 0, "latency_ms": 0.01},
                {"plugin": "budget", "hook": "after_tool_call", "priority": -9, "latency_ms": 0.2},
            ],
        ),
        event("tool.proposed", "call_b", tool="exec", session_id="s2", params={"command": "ls"}),
        event(
            "tool.blocked",
            "call_b",
            tool="exec",
            session_id="s2",
            plugin="policy",
            by="policy",
            reason="Tool 'exec' denied by policy",
        ),
        event("tool.injected", "call_b", tool="exec", session_id="s2", status="blocked", chars=28),
    ]


@pytest.fixture
def log(cli):
    return cli.jsonl(".toolhooks/events.jsonl", sample())


def test_groups_each_call_under_a_heading(cli, log):
    result = cli("logs")
    assert result.code == 0, result.err
    headings = [line for line in result.out.splitlines() if line.startswith("== ")]
    assert len(headings) == 2
    assert f"read  call call_a #{handle('call_a')}  session s1  trace trace_call_a" in headings[0]
    assert f"exec  call call_b #{handle('call_b')}  session s2" in headings[1]
    out = result.out
    assert 'params={"path": "a.txt"}' in out
    assert "before: no opinion" in out  # a log written before quiet handlers left the chain
    # The handlers with no opinion, in chain order, on the tool.injected line.
    assert "ok, 5 chars; quiet: loops (before 0.01 ms), budget (after 0.2 ms)" in out
    assert "blocked by policy: Tool 'exec' denied by policy" in out
    body = out.split(headings[1])[0]
    assert "tool.blocked" not in body  # call_b's events are under call_b's heading


def test_interleaved_calls_repeat_the_heading(cli):
    cli.jsonl(
        ".toolhooks/events.jsonl",
        [
            event("tool.proposed", "c1"),
            event("tool.proposed", "c2"),
            event("tool.injected", "c1", status="ok", chars=1),
        ],
    )
    headings = [line for line in cli("logs").out.splitlines() if line.startswith("== ")]
    assert [h.split("call ")[1].split()[0] for h in headings] == ["c1", "c2", "c1"]


def test_json_lines_unchanged(cli, log):
    result = cli("logs", "--json")
    assert result.code == 0
    assert result.json_lines() == [json.loads(line) for line in log.read_text().splitlines()]


def test_filters(cli, log):
    def names(*args):
        return [(e["call_id"], e["event"]) for e in cli("logs", "--json", *args).json_lines()]

    assert {c for c, _ in names("--call", "call_b")} == {"call_b"}
    assert {c for c, _ in names("--call", "call_")} == set()  # a prefix naming two: an error
    assert {c for c, _ in names("--call", "call_b"[:-1] + "b")} == {"call_b"}
    assert {c for c, _ in names("--trace", "trace_call_a")} == {"call_a"}
    assert {c for c, _ in names("--session", "s2")} == {"call_b"}
    assert [e for _, e in names("--event", "tool.blocked")] == ["tool.blocked"]
    both = ["tool.proposed", "tool.proposed", "tool.blocked"]
    assert [e for _, e in names("--event", "tool.proposed,tool.blocked")] == both
    assert [e for _, e in names("--event", "tool.proposed", "--event", "tool.blocked")] == both
    assert {e for _, e in names("--event", "tool.*")} == {
        "tool.proposed",
        "tool.finished",
        "tool.injected",
        "tool.blocked",
    }
    assert names("--session", "s2", "--event", "tool.injected") == [("call_b", "tool.injected")]


def test_since(cli):
    now = time.time()
    cli.jsonl(
        ".toolhooks/events.jsonl",
        [event("tool.proposed", "old", ts=now - 7200), event("tool.proposed", "new", ts=now - 60)],
    )
    assert [e["call_id"] for e in cli("logs", "--json", "--since", "10m").json_lines()] == ["new"]
    assert [e["call_id"] for e in cli("logs", "--json", "--since", "3h").json_lines()] == [
        "old",
        "new",
    ]
    assert cli("logs", "--json", "--since", "2999-01-01T00:00:00").out == ""
    bad = cli("logs", "--since", "yesterday-ish")
    assert bad.code == 2 and "neither a duration" in bad.err


def test_reads_rotated_files_oldest_first(cli):
    cli.jsonl(".toolhooks/events.jsonl.2", [event("tool.proposed", "first")])
    cli.jsonl(".toolhooks/events.jsonl.1", [event("tool.proposed", "second")])
    cli.jsonl(".toolhooks/events.jsonl", [event("tool.proposed", "third")])
    assert [e["call_id"] for e in cli("logs", "--json").json_lines()] == [
        "first",
        "second",
        "third",
    ]


def test_skips_torn_lines(cli):
    path = cli.jsonl(".toolhooks/events.jsonl", [event("tool.proposed", "ok")])
    with path.open("a") as handle:
        handle.write('{"event": "tool.prop\n{"ts": 1, "event": "tool.finished", "call_id": "ok"')
    assert [e["event"] for e in cli("logs", "--json").json_lines()] == ["tool.proposed"]


def test_path_from_config_and_file_flag(cli, tmp_path):
    cli.config('[plugins.event_log]\npath = "logs/agent.jsonl"\n')
    cli.jsonl("logs/agent.jsonl", [event("tool.proposed", "configured")])
    assert [e["call_id"] for e in cli("logs", "--json").json_lines()] == ["configured"]
    elsewhere = tmp_path / "other.jsonl"
    elsewhere.write_text(json.dumps(event("tool.proposed", "flag")) + "\n")
    assert [e["call_id"] for e in cli("logs", "--json", "--file", str(elsewhere)).json_lines()] == [
        "flag"
    ]


def test_missing_log_exit_1(cli):
    result = cli("logs")
    assert result.code == 1
    assert "no event log at .toolhooks/events.jsonl" in result.err


def test_real_log_from_a_replay(cli):
    cli.config('[tools]\nprofile = "coding"\n')
    transcript = cli.jsonl(
        "t.jsonl",
        [
            {"name": "read", "params": {"path": "a"}, "result": "x"},
            {"name": "cron", "params": {}, "result": "y"},
        ],
    )
    assert cli("replay", str(transcript), "--events", "ev.jsonl").code == 0
    events = cli("logs", "--json", "--file", "ev.jsonl").json_lines()
    assert {e["tool"] for e in events} == {"read", "cron"}
    assert "tool.blocked" in {e["event"] for e in events}
    human = cli("logs", "--file", "ev.jsonl")
    assert human.out.count("\n== ") + human.out.startswith("== ") == 2


class Follower:
    """``toolhooks logs --follow`` in the background; its stdout lines arrive on a queue."""

    def __init__(self, cli, *args):
        self.process = cli.popen("logs", "--follow", "--poll", "0.05", *args)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, text):
        deadline = time.monotonic() + WAIT
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            seen.append(line)
            if text in line:
                return seen
        raise AssertionError(f"{text!r} never printed; got {seen}")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=WAIT)
        self.process.stdout.close()
        self.process.stderr.close()


def append(path, *rows):
    with path.open("a") as handle:
        handle.write("".join(json.dumps(row) + "\n" for row in rows))


def test_follow_across_rotation(cli):
    path = cli.jsonl(".toolhooks/events.jsonl", [event("tool.proposed", "before_start")])
    follower = Follower(cli, "--json")
    try:
        follower.wait_for("before_start")
        append(path, event("tool.proposed", "appended"))
        follower.wait_for("appended")
        os.replace(path, path.with_name("events.jsonl.1"))
        append(path.with_name("events.jsonl.1"), event("tool.proposed", "late_in_old_file"))
        append(path, event("tool.proposed", "in_new_file"))
        seen = follower.wait_for("in_new_file")
        assert any("late_in_old_file" in line for line in seen)
        with path.open("a") as handle:  # a line written in two pieces is printed once, whole
            line = json.dumps(event("tool.finished", "split", status="ok"))
            handle.write(line[:20])
            handle.flush()
            handle.write(line[20:] + "\n")
        seen = follower.wait_for("split")
        assert json.loads(seen[-1])["event"] == "tool.finished"
    finally:
        follower.stop()


def test_follow_waits_for_the_file_and_groups(cli):
    follower = Follower(cli, "--session", "s9")
    try:
        path = cli.cwd / ".toolhooks" / "events.jsonl"
        path.parent.mkdir()
        append(
            path,
            event("tool.proposed", "other", session_id="s1"),
            event("tool.proposed", "mine", session_id="s9", tool="exec"),
        )
        seen = follower.wait_for("tool.proposed")
        assert any(line.startswith("== ") and "call mine" in line for line in seen)
        assert not any("call other" in line for line in seen)
    finally:
        follower.stop()
