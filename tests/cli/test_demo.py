"""`toolhooks demo`: the bundled transcript through the real pipeline, every kind of decision."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

REQUIRED_KINDS = {
    "allowed",
    "blocked",
    "labelled",
    "approval_denied",
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


def flat(text):
    """``text`` with its wrapping undone (a row's notes wrap at the terminal's width)."""
    return " ".join(text.split())


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
    assert len(rows) == 20
    assert "allowed" in rows[2]
    assert (
        "rewritten" in rows[1]
        and 'workspace_guard changed path: "README.md" -> "/workspace/README.md"' in rows[1]
    )
    assert "result changed" in rows[3] and "redacted 1 secret" in rows[3]
    # A secret read through a cd: the rules resolve the path the command really reads.
    assert "blocked by rules" in rows[4] and "Blocked by rule 'no-secrets'" in rows[4]
    assert "path /workspace/config/.env" in flat(rows[4])
    assert "rules read it as: cat .env (in /workspace/config)" in flat(rows[4])
    assert "blocked by policy" in rows[5] and "rule tools.profile" in rows[5]
    assert "approval requested, then blocked" in rows[7]
    assert 'rules asked "Deploy to production?"' in flat(rows[7])
    assert "change_window blocked it: Change freeze" in flat(rows[7])
    # An obfuscated recursive delete, denied with the command as the shell grammar reads it.
    assert "blocked by rules" in rows[8] and "Blocked by rule 'no-recursive-delete'" in rows[8]
    assert "rules read it as: rm -rf src (inside bash -c)" in flat(rows[8])
    # A download piped into a shell cannot be seen through: the rules ask, the approver denies.
    assert "approval denied" in rows[9]
    assert "sh reads its program from a pipe" in flat(rows[9])
    # The fetched page: labelled web by a rule, and hidden_text by the scanners' finding.
    assert "labelled" in rows[10] and "scanners: hidden_text found tag_characters" in rows[10]
    assert "the session now carries hidden_text, web" in rows[10]
    # Its address in a command: denied by provenance, the user never said it.
    assert "Blocked by rule 'no-values-from-pages'" in flat(rows[11])
    assert "value 'https://ci-mirror.example.net/shop-api.git' came from a result labelled web" in (
        flat(rows[11])
    )
    assert "loop warning" in rows[14] and "WARNING" in rows[14]
    assert "loop critical" in rows[16] and "CRITICAL" in rows[16]
    assert "truncated" in rows[19] and re.search(r"full result:\s+sha256:[0-9a-f]{64}", rows[19])
    # Edit-and-approve: the reviewer's command runs, after the chain ran again on it.
    assert "approval edited" in rows[17] and 'push_review asked "Push to the remote?"' in rows[17]
    assert EDITED in flat(rows[17])
    assert "the chain ran again on the edited params" in flat(rows[17])
    # Deferred at 18, the agent goes on (19), resumed at 20 under the same approval.
    assert "approval pending" in rows[18]
    short_id = re.search(r"deferred: approval ([0-9a-f]{8}) waits for a decision", rows[18])[1]
    assert "resumed + approval granted" in rows[20]
    assert (
        f"finishes the call of #18, line 19 of the transcript (approval {short_id}), under its call id"
        in rows[20]
    )
    assert "answered allow-once" in rows[20]
    # The paused call and its resume are one call.
    assert "19 calls: 12 ok, 6 blocked, 1 denied" in out
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
        "rules.matched",
        "scan.finding",
    } <= names
    assert {"approval.deferred", "approval.edited"} <= names
    calls = data["calls"]
    paused, resumed = calls[17], calls[19]
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
    assert calls[18]["call_id"] in order[deferred_at:]
    edited = [e for e in events if e["call_id"] == calls[16]["call_id"]]
    assert calls[16]["kinds"] == ["approval_edited"]
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
    assert "blocked by policy" in rows[5] and "approval requested, then blocked" in rows[7]
    assert "blocked by rules" in rows[8] and "labelled" in rows[10]
    assert "loop critical" in rows[16] and "truncated" in rows[19]
    # push_review is the demo's own: the edit and the paused call do not need the example.
    assert "approval edited" in rows[17] and "approval pending" in rows[18]
    assert "resumed + approval granted" in rows[20]


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
    assert "approval_requested_then_blocked" in data["calls"][6]["kinds"]
