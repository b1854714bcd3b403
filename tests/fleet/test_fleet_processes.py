"""Four real worker processes sharing one Redis: limits are exact, loops are seen as one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

WORKER = Path(__file__).with_name("fleet_worker.py")


def run_workers(jobs: list[dict]) -> list[list[dict]]:
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
