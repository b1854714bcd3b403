"""`toolhooks replay`: recorded calls through the pipeline, recorded results instead of tools."""

from __future__ import annotations

POLICY = """
[tools]
profile = "coding"

[plugins.workspace_guard]
workspace = "/workspace"
"""

TRANSCRIPT = [
    {"name": "read", "params": {"path": "src/app.py"}, "session_id": "s1", "result": "print('hi')"},
    {
        "name": "message",
        "params": {"to": "bob", "text": "hi"},
        "session_id": "s1",
        "result": "sent",
    },
    {
        "name": "exec",
        "params": {"command": "sudo make install"},
        "session_id": "s1",
        "result": "done",
        "approve": "allow-once",
    },
    {
        "name": "exec",
        "params": {"command": "rm -rf /tmp/cache"},
        "session_id": "s1",
        "result": "",
        "approve": "deny",
    },
    {
        "name": "exec",
        "params": {"command": "make test"},
        "session_id": "s1",
        "error": "exit status 2",
    },
    {
        "name": "web_search",
        "params": {"query": "x"},
        "session_id": "s1",
        "result": ["a", "b"],
        "note": "free text",
    },
]


def calls(result):
    return result.json()["calls"]


def test_decision_table_and_summary(cli):
    cli.config(POLICY)
    path = cli.jsonl("last-week.jsonl", TRANSCRIPT)
    result = cli("replay", str(path))
    assert result.code == 0, result.err
    out = result.out
    assert "last-week.jsonl (6 calls)" in out
    header = next(line for line in out.splitlines() if line.lstrip().startswith("#"))
    for column in ("LINE", "TOOL", "STATUS", "DECISION", "DETAIL"):
        assert column in header
    assert (
        "rewritten" in out
        and 'workspace_guard changed path: "src/app.py" -> "/workspace/src/app.py"' in out
    )
    assert "blocked by policy" in out and "rule tools.profile" in out
    assert "approval granted" in out and "answered allow-once" in out
    assert "approval denied" in out and "Denied by user" in out
    assert "tool error" in out and "exit status 2" in out
    assert "6 calls: 3 ok, 1 error, 1 blocked, 1 denied" in out
    plugin_header = next(line for line in out.splitlines() if line.startswith("PLUGIN"))
    assert "BLOCKED" in plugin_header and "REWROTE" in plugin_header
    policy = next(line for line in out.splitlines() if line.startswith("policy "))
    assert policy.split()[1:] == ["1", "0", "0", "0", "0", "0"]


def test_json_for_ci(cli):
    cli.config(POLICY)
    path = cli.jsonl("t.jsonl", TRANSCRIPT)
    result = cli("replay", str(path), "--json")
    assert result.code == 0
    data = result.json()
    assert data["ok"] is True and data["errors"] == []
    assert [c["status"] for c in data["calls"]] == ["ok", "blocked", "ok", "denied", "error", "ok"]
    assert data["calls"][0]["kinds"] == ["rewritten"]
    assert data["calls"][0]["params"] == {"path": "/workspace/src/app.py"}
    assert data["calls"][1]["kinds"] == ["blocked_by_policy"] and data["calls"][1]["by"] == [
        "policy"
    ]
    assert data["calls"][2]["kinds"] == ["approval_granted"]
    assert data["calls"][5]["kinds"] == ["allowed"]
    summary = data["summary"]
    assert summary["calls"] == 6
    assert summary["by_status"] == {"ok": 3, "error": 1, "blocked": 1, "denied": 1}
    assert summary["by_plugin"]["policy"] == {"blocked": 1}
    assert summary["by_plugin"]["workspace_guard"] == {"rewrote": 1, "asked_approval": 2}


def test_a_policy_change_shows_in_the_replay(cli, tmp_path):
    path = cli.jsonl("t.jsonl", TRANSCRIPT)
    before = [c["status"] for c in calls(cli("replay", str(path), "--json"))]
    assert before[1] == "ok"  # no config: the full profile allows message
    strict = tmp_path / "strict.toml"
    strict.write_text('[tools]\nprofile = "coding"\ndeny = ["web_search"]\n')
    after = calls(cli("replay", str(path), "--config", str(strict), "--json"))
    assert after[1]["status"] == "blocked" and after[5]["status"] == "blocked"
    assert "tools.deny" in after[5]["detail"]
    global_flag = calls(cli("--config", str(strict), "replay", str(path), "--json"))
    assert [c["status"] for c in global_flag] == [c["status"] for c in after]


def test_no_tool_runs(cli):
    marker = cli.cwd / "marker"
    path = cli.jsonl(
        "t.jsonl",
        [
            {"name": "exec", "params": {"command": f"touch {marker}"}, "result": "ok"},
            {"name": "write", "params": {"path": str(marker), "content": "x"}, "result": "written"},
        ],
    )
    assert cli("replay", str(path)).code == 0
    assert not marker.exists()


def test_default_approval_answer(cli):
    cli.config('[plugins.workspace_guard]\nworkspace = "/workspace"\n')  # it asks about sudo
    path = cli.jsonl(
        "t.jsonl", [{"name": "exec", "params": {"command": "sudo ls"}, "result": "ok"}]
    )
    assert calls(cli("replay", str(path), "--json"))[0]["status"] == "denied"
    allowed = calls(cli("replay", str(path), "--json", "--approve", "allow-once"))[0]
    assert allowed["status"] == "ok" and allowed["kinds"] == ["approval_granted"]


def test_loop_and_truncation_kinds(cli):
    cli.config("""
        [plugins.loop_detection]
        warning_threshold = 2
        critical_threshold = 3
        window = 5
        [plugins.result_budget]
        tiers = [{ min_tokens = 0, max_chars = 1000 }]
        floor = 500
    """)
    poll = {"name": "process", "params": {"action": "poll"}, "session_id": "s", "result": "running"}
    big = {
        "name": "read",
        "params": {"path": "/workspace/big.log"},
        "session_id": "t",
        "result": "line\n" * 1000,
    }
    path = cli.jsonl("t.jsonl", [poll, poll, poll, big])
    result = cli("replay", str(path), "--json", "--artifacts", "kept")
    kinds = [c["kinds"] for c in calls(result)]
    assert kinds == [["allowed"], ["loop_warning"], ["loop_critical"], ["truncated"]]
    artifact = calls(result)[3]["artifact"]
    assert artifact.startswith("sha256:")
    stored = cli.cwd / "kept" / f"{artifact.removeprefix('sha256:')}.txt"
    assert stored.read_text() == "line\n" * 1000


def test_bad_lines_are_reported_and_exit_1(cli):
    path = cli.cwd / "t.jsonl"
    path.write_text(
        '{"name": "read", "params": {}, "result": "x"}\n\nnot json\n{"name": "read", "parms": {}}\n'
        '[1, 2]\n{"name": "exec", "approve": "maybe"}\n{"name": "read", "result": 1, "error": "e"}\n'
    )
    result = cli("replay", str(path))
    assert result.code == 1
    assert "(1 calls)" in result.out
    err = result.err
    assert "t.jsonl:3: skipped: not JSON" in err
    assert "t.jsonl:4: skipped: unknown key 'parms'" in err
    assert "t.jsonl:5: skipped: expected a JSON object" in err
    assert "t.jsonl:6: skipped: 'approve' must be one of" in err
    assert "t.jsonl:7: skipped: give 'result' or 'error', not both" in err
    data = cli("replay", str(path), "--json").json()
    assert data["ok"] is False and [e["line"] for e in data["errors"]] == [3, 4, 5, 6, 7]


def test_fail_on(cli):
    cli.config(POLICY)
    path = cli.jsonl("t.jsonl", TRANSCRIPT)
    assert cli("replay", str(path), "--fail-on", "error").code == 1
    failed = cli("replay", str(path), "--fail-on", "blocked,denied", "--json")
    assert failed.code == 1 and failed.json()["failed"] == [2, 4]
    clean = cli.jsonl("ok.jsonl", TRANSCRIPT[:1])
    assert cli("replay", str(clean), "--fail-on", "blocked").code == 0
    assert cli("replay", str(clean), "--fail-on", "nope").code == 2


def test_event_log_only_when_asked(cli):
    path = cli.jsonl("t.jsonl", TRANSCRIPT[:2])
    assert cli("replay", str(path)).code == 0
    assert not (cli.cwd / ".toolhooks" / "events.jsonl").exists()
    assert cli("replay", str(path), "--events", "replay-events.jsonl").code == 0
    assert (cli.cwd / "replay-events.jsonl").read_text().count('"tool.proposed"') == 2


def test_missing_transcript_exit_1(cli):
    result = cli("replay", "nope.jsonl")
    assert result.code == 1 and "cannot read nope.jsonl" in result.err
    assert cli("replay").code == 2


def test_origin_sender_and_agent_fields(cli):
    cli.config("""
        [tools]
        profile = "full"
        [tools.by_agent.helper]
        deny = ["exec"]
        [tools.by_sender."id:mallory"]
        deny = ["read"]
    """)
    path = cli.jsonl(
        "t.jsonl",
        [
            {"name": "cron", "params": {}, "origin": "external", "result": "x"},
            {"name": "exec", "params": {"command": "ls"}, "agent_id": "helper", "result": "x"},
            {
                "name": "read",
                "params": {"path": "/workspace/a"},
                "sender": {"id": "mallory"},
                "result": "x",
            },
            {"name": "read", "params": {"path": "/workspace/a"}, "sender": "alice", "result": "x"},
        ],
    )
    statuses = [c["status"] for c in calls(cli("replay", str(path), "--json"))]
    assert statuses == ["blocked", "blocked", "blocked", "ok"]


PAUSED = [
    {
        "name": "exec",
        "params": {"command": "sudo make install"},
        "session_id": "s1",
        "result": "installed",
        "approve": "defer",
    },
    {"name": "exec", "params": {"command": "sudo reboot"}, "session_id": "s1", "approve": "defer"},
    {"name": "read", "params": {"path": "a.txt"}, "session_id": "s1", "result": "a"},
    {"resume": 1, "approve": "allow-once", "note": "decided later"},
]


def test_a_deferred_call_is_finished_by_the_line_that_resumes_it(cli):
    cli.config(POLICY)
    path = cli.jsonl("paused.jsonl", PAUSED)
    result = cli("replay", str(path), "--json")
    assert result.code == 0, result.err
    rows = calls(result)
    assert [r["status"] for r in rows] == ["pending", "pending", "ok", "ok"]
    assert rows[0]["kinds"] == ["approval_pending"]
    assert rows[3]["kinds"] == ["resumed", "approval_granted"]
    assert rows[3]["call_id"] == rows[0]["call_id"] and rows[3]["line"] == 4
    assert rows[3]["tool"] == "exec" and rows[3]["params"] == {"command": "sudo make install"}
    # Line 2 is never resumed: its call ends pending. Three calls, not four rows.
    assert result.json()["summary"]["by_status"] == {"ok": 2, "pending": 1}
    table = cli("replay", str(path)).out
    assert "paused.jsonl (3 calls)" in table and "3 calls: 2 ok, 1 pending" in table
    assert "finishes the call of #1, line 1 of the transcript (approval " in table
    failing = cli("replay", str(path), "--fail-on", "pending", "--json")
    assert failing.code == 1 and failing.json()["failed"] == [2]


def test_resume_lines_are_checked(cli):
    cli.config(POLICY)
    lines = [
        {"name": "exec", "params": {"command": "sudo ls"}, "approve": "defer"},
        {"name": "read", "params": {"path": "a"}, "result": "a"},
        {"resume": 2, "approve": "allow-once"},
        {"resume": 9, "approve": "allow-once"},
        {"resume": 1},
        {"resume": 1, "approve": "allow-once", "result": "x"},
        {"name": "exec", "params": {"command": "sudo ls"}, "edit": {"command": "ls"}},
        {"name": "exec", "params": {"command": "sudo ls"}, "approve": "edit"},
        {"resume": 1, "approve": "deny"},
        {"resume": 1, "approve": "allow-once"},
    ]
    result = cli("replay", str(cli.jsonl("r.jsonl", lines)))
    assert result.code == 1
    err = result.err
    assert "r.jsonl:3: skipped: 'resume': line 2 is not a call answered 'defer'" in err
    assert "r.jsonl:4: skipped: 'resume' must be the number of an earlier line" in err
    assert "r.jsonl:5: skipped: a resume line needs 'approve'" in err
    assert "r.jsonl:6: skipped: unknown key 'result' in a resume line" in err
    assert "r.jsonl:7: skipped: 'edit' goes with 'approve': 'edit'" in err
    assert "r.jsonl:8: skipped: 'approve': 'edit' needs 'edit'" in err
    # Line 9 denies the paused call; line 10 finds nothing paused any more.
    assert "r.jsonl:10: skipped: 'resume': line 1's call is not paused" in err
    assert "approval denied" in result.out and "2 calls: 1 ok, 1 denied" in result.out
