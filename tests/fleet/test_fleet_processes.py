"""Four real worker processes sharing one Redis: limits are exact, loops are seen as one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

WORKER = Path(__file__).with_name("fleet_worker.py")


def run_workers(jobs: list[dict]) -> list:
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), json.dumps(job)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for job in jobs
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    return results


def test_four_workers_of_500_calls_admit_exactly_the_limit_of_100(state_table):
    limits = [{"name": "fleet budget", "tools": ["search"], "max_calls": 100, "scope": "global"}]
    jobs = [
        {
            "state": state_table,
            "limits": limits,
            "worker": worker,
            "calls": 500,
            "tool": "search",
            "distinct": True,
            "session": f"worker-{worker}",
        }
        for worker in range(4)
    ]
    results = [row for rows in run_workers(jobs) for row in rows]
    assert len(results) == 2000
    assert sum(row["status"] == "ok" for row in results) == 100
    refused = [row for row in results if row["status"] != "ok"]
    assert {row["reason"] for row in refused} == {
        "Call limit 'fleet budget' reached (100 calls per everyone); it resets only when the "
        "counter is reset or after 7 days without calls"
    }


def test_a_loop_in_one_session_spread_over_workers_is_caught(state_table):
    # Each worker alone makes 12 identical calls: below the critical threshold of 20, so no
    # process on its own state could ever block. Together they are 48 calls of one session.
    jobs = [
        {
            "state": state_table,
            "worker": worker,
            "calls": 12,
            "tool": "poll",
            "session": "one-agent",
        }
        for worker in range(4)
    ]
    results = [row for rows in run_workers(jobs) for row in rows]
    blocked = [row for row in results if row["status"] == "blocked"]
    assert blocked, "the shared session never reached the critical threshold"
    assert all(row["reason"].startswith("CRITICAL") for row in blocked)
    assert sum(row["status"] == "ok" for row in results) < 48


CALL = {
    "name": "deploy",
    "params": {"version": "1.2"},
    "session_id": "ops-1",
    "sender": {"id": "alice"},
}


def test_deferred_in_a_approved_with_the_cli_resumes_exactly_once_in_b(state_table, tmp_path):
    ran = tmp_path / "ran.txt"
    base = {"state": state_table, "ran": str(ran)}
    [deferred] = run_workers([{**base, "mode": "call", "approver": "defer", "call": CALL}])
    assert deferred["status"] == "pending"
    config = tmp_path / "toolhooks.toml"
    config.write_text(
        f'[state]\nurl = "{state_table["url"]}"\nkey_prefix = "{state_table["key_prefix"]}"\n'
    )
    cli = [sys.executable, "-m", "toolhooks", "approvals"]
    listed = subprocess.run([*cli, "list", "--config", str(config)], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert deferred["short_id"] in listed.stdout and "Deploy?" in listed.stdout
    approved = subprocess.run(
        [*cli, "approve", deferred["short_id"], "--by", "ops", "--config", str(config)],
        capture_output=True,
        text=True,
    )
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.startswith(f"{deferred['short_id']}: allow-once (deploy: Deploy?)")
    # Four workers race to finish it: the decision recorded by the CLI runs once, in one of them.
    jobs = [
        {**base, "mode": "resume", "approver": "deny", "approval": deferred["short_id"]}
        for _ in range(4)
    ]
    finished = run_workers(jobs)
    assert sorted(row["status"] for row in finished).count("ok") == 1
    [done] = [row for row in finished if row["status"] == "ok"]
    assert (done["content"], done["call_id"]) == ("deployed 1.2", deferred["call_id"])
    assert ran.read_text() == "1.2\n"
    twice = subprocess.run(
        [*cli, "approve", deferred["short_id"], "--config", str(config)],
        capture_output=True,
        text=True,
    )
    assert twice.returncode == 1
    assert "was already decided" in twice.stderr


def test_a_grant_made_in_worker_a_answers_in_worker_b(state_table, tmp_path):
    ran = tmp_path / "ran.txt"
    base = {"state": state_table, "ran": str(ran), "mode": "call", "call": CALL}
    [granted] = run_workers([{**base, "approver": "allow-always"}])
    assert granted["status"] == "ok"
    # Worker B's approver would deny: the grant from A answers without asking it.
    [again] = run_workers([{**base, "approver": "deny"}])
    assert (again["status"], again["content"]) == ("ok", "deployed 1.2")
    other = {**CALL, "sender": {"id": "mallory"}}
    [refused] = run_workers([{**base, "approver": "deny", "call": other}])
    assert refused["status"] == "denied"
    assert ran.read_text() == "1.2\n1.2\n"
