"""`toolhooks demo`: the bundled transcript through the real pipeline, every kind of decision."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

REQUIRED_KINDS = {
    "allowed",
    "rewritten",
    "blocked_by_policy",
    "approval_requested_then_blocked",
    "approval_granted",
    "loop_warning",
    "loop_critical",
    "truncated",
    "approval_edited",
    "approval_pending",
    "resumed",
}
EDITED = 'edited command: "git push --force origin main" -> "git push origin fix/settings-timeout"'


def rows_by_number(out):
    """``{1: "1  read README.md   rewritten\\n  workspace_guard changed ..."}``."""
    rows, current = {}, None
    for line in out.splitlines():
        match = re.match(r"\s*(\d+)  ", line)
        if match:
            current = int(match.group(1))
            rows[current] = line
        elif current is not None and line.startswith("      "):
            rows[current] += "\n" + line.strip()
        elif not line.strip():
            current = None
    return rows


def test_demo_shows_every_kind_of_decision(cli, tmp_path):
    folder = tmp_path / "demo"
    result = cli("demo", "--dir", str(folder))
    assert result.code == 0, result.err
    out = result.out
    assert out.splitlines()[:2] == [
        "toolhooks demo: a coding agent's session, every call through the real pipeline",
        "(recorded results stand in for the tools; the approver answers from the transcript)",
    ]
    rows = rows_by_number(out)
    assert len(rows) == 17
    assert "allowed" in rows[2]
    assert (
        "rewritten" in rows[1]
        and 'workspace_guard changed path: "README.md" -> "/workspace/README.md"' in rows[1]
    )
    assert "blocked by policy" in rows[4] and "rule tools.profile" in rows[4]
    assert "approval requested, then blocked" in rows[6]
    assert 'workspace_guard asked "Run a risky shell command?"' in rows[6]
    assert "change_window blocked it: Change freeze" in rows[6]
    assert "approval granted" in rows[7] and "answered allow-once" in rows[7]
    assert "approval denied" in rows[8]
    assert "loop warning" in rows[11] and "WARNING" in rows[11]
    assert "loop critical" in rows[13] and "CRITICAL" in rows[13]
    assert "truncated" in rows[16] and re.search(r"full result:\s+sha256:[0-9a-f]{64}", rows[16])
    assert "result changed" in rows[3] and "redacted 1 secret" in rows[3]
    # Edit-and-approve: the reviewer's command runs, after the chain ran again on it.
    assert "approval edited" in rows[14] and 'push_review asked "Push to the remote?"' in rows[14]
    assert EDITED in " ".join(rows[14].split())
    assert "the chain ran again on the edited params" in " ".join(rows[14].split())
    # Deferred at 15, the agent goes on (16), resumed at 17 under the same approval.
    assert "approval pending" in rows[15]
    short_id = re.search(r"deferred: approval ([0-9a-f]{8}) waits for a decision", rows[15])[1]
    assert "resumed + approval granted" in rows[17]
    assert f"finishes the call of line 15 (approval {short_id}), under its call id" in rows[17]
    assert "answered allow-once" in rows[17]
    # The paused call and its resume are one call.
    assert "16 calls: 12 ok, 3 blocked, 1 denied" in out
    log = folder / "events.jsonl"
    assert f"event log  {log} (" in out
    assert f"toolhooks logs --file {log} --follow" in out


def test_demo_writes_the_log_and_the_artifact(cli, tmp_path):
    folder = tmp_path / "kept"
    data = cli("demo", "--dir", str(folder), "--json").json()
    assert {kind for call in data["calls"] for kind in call["kinds"]} >= REQUIRED_KINDS
    log = Path(data["event_log"])
    assert log == folder / "events.jsonl"
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(events) == data["events"]
    names = {event["event"] for event in events}
    assert {
        "tool.proposed",
        "tool.blocked",
        "approval.requested",
        "approval.resolved",
        "loop.warning",
        "loop.critical",
        "result.trimmed",
        "tool.injected",
    } <= names
    assert {"approval.deferred", "approval.edited"} <= names
    calls = data["calls"]
    paused, resumed = calls[14], calls[16]
    assert paused["status"] == "pending" and resumed["status"] == "ok"
    assert paused["call_id"] == resumed["call_id"] and resumed["kinds"][0] == "resumed"
    story = [e for e in events if e["call_id"] == paused["call_id"]]
    assert [e["event"] for e in story].count("tool.proposed") == 1
    assert [e["event"] for e in story].count("tool.injected") == 1
    assert story[-1]["event"] == "tool.injected" and story[-1]["status"] == "ok"
    assert [e["event"] for e in story if e["event"].startswith("approval.")] == [
        "approval.requested",
        "approval.deferred",
        "approval.resolved",
    ]
    # Between the pause and the resume, the agent made another call.
    order = [e["call_id"] for e in events]
    deferred_at = next(i for i, e in enumerate(events) if e["event"] == "approval.deferred")
    assert calls[15]["call_id"] in order[deferred_at:]
    edited = [e for e in events if e["call_id"] == calls[13]["call_id"]]
    assert calls[13]["kinds"] == ["approval_edited"]
    asks = [e for e in edited if e["event"] == "hook.decision" and e["plugin"] == "push_review"]
    assert len(asks) == 2  # the first screening, and the chain again on the edited params
    (started,) = [e for e in edited if e["event"] == "tool.started"]
    assert started["params"] == {"command": "git push origin fix/settings-timeout"}
    (change,) = [e for e in edited if e["event"] == "approval.edited"]
    assert change["fields"] == ["command"]
    trimmed = next(call for call in data["calls"] if "truncated" in call["kinds"])
    digest = trimmed["artifact"].removeprefix("sha256:")
    full = (folder / "artifacts" / f"{digest}.txt").read_text()
    assert full.endswith("Error: build failed (exit code 1)\n") and len(full) > 2500


def test_the_printed_hints_work(cli, tmp_path):
    out = cli("demo", "--dir", str(tmp_path / "d")).out
    hint = next(line for line in out.splitlines() if line.startswith("one call"))
    args = shlex.split(hint.split(None, 2)[2])
    assert args[0] == "toolhooks"
    shown = cli(*args[1:])
    assert shown.code == 0
    # The last call is the one resumed: its pause and its end are one call in the log.
    assert shown.out.count("== ") == 1
    assert "approval.deferred" in shown.out and "approval.resolved" in shown.out
    assert shown.out.count("tool.proposed") == 1 and shown.out.count("tool.injected") == 1


def test_demo_ignores_the_local_config_and_defaults_to_a_temp_folder(cli):
    cli.config("this is not toml = [")
    result = cli("demo")
    assert result.code == 0, result.err
    log = Path(re.search(r"event log  (\S+) \(", result.out).group(1))
    assert log.is_file() and "toolhooks-demo-" in str(log)
    assert not (cli.cwd / ".toolhooks").exists()


def test_demo_runs_with_the_builtins_alone(cli, tmp_path):
    result = cli(
        "demo", "--dir", str(tmp_path / "d"), env={"TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    )
    assert result.code == 0, result.err
    assert "workspace_guard is not part of this run" in result.out
    rows = rows_by_number(result.out)
    assert "blocked by policy" in rows[4] and "blocked by change_window" in rows[6]
    assert "loop critical" in rows[13] and "truncated" in rows[16]
    # push_review is the demo's own: the edit and the paused call do not need the example.
    assert "approval edited" in rows[14] and "approval pending" in rows[15]
    assert "resumed + approval granted" in rows[17]


def test_demo_twice_in_one_folder(cli, tmp_path):
    folder = tmp_path / "again"
    first = cli("demo", "--dir", str(folder), "--json").json()
    second = cli("demo", "--dir", str(folder), "--json").json()
    assert {c["call_id"] for c in first["calls"]}.isdisjoint(c["call_id"] for c in second["calls"])
    lines = (folder / "events.jsonl").read_text().splitlines()
    assert len(lines) == first["events"] + second["events"]


def test_python_dash_m_demo(cli, tmp_path):
    result = cli.module("demo", "--dir", str(tmp_path / "m"))
    assert result.code == 0 and "approval requested, then blocked" in result.out


def test_example_importable_without_its_entry_point_is_registered(tmp_path, monkeypatch, capsys):
    """A source checkout on PYTHONPATH: the demo registers toolhooks_example itself."""
    from toolhooks.cli import _demo, main

    monkeypatch.setattr(_demo, "example_state", lambda: ("registered", None))
    # As in such a checkout, no workspace_guard entry point is loaded (here: it is installed).
    monkeypatch.setenv("TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert main(["demo", "--dir", str(tmp_path / "r"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["example_plugin"] == "registered"
    first = data["calls"][0]
    assert first["kinds"] == ["rewritten"] and first["by"] == ["workspace_guard"]
    assert "approval_requested_then_blocked" in data["calls"][5]["kinds"]
