"""Team approvals across real processes: two voters meeting the quorum at once on Redis run the
call once; a restart between votes loses none (SQLite file and Redis)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROCESS = r"""
import json, sys, time
from toolhooks import Runtime, hookimpl
from toolhooks.approvals._team import cast

opts = json.loads(sys.argv[1])

class Gate:
    name = "gate"
    priority = 50

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "Pay?", "description": "a payment"}}

def pay(amount: int) -> str:
    with open(opts["ran"], "a", encoding="utf-8") as f:  # O_APPEND: one line per run
        f.write(f"{amount}\n")
    return "paid"

with Runtime(plugins=[Gate()], tools=[pay], config=opts["config"], load_entrypoints=False) as rt:
    if opts["do"] == "ask":
        outcome = rt.call({"name": "pay", "params": {"amount": 7}, "sender": {"id": "agent"}})
        print(json.dumps({"approval": outcome.pending.id, "status": outcome.status}))
        sys.exit(0)
    approval = opts["approval"]
    together = opts.get("together", False)
    if opts.get("person"):
        if together:
            print("ready", flush=True)
            sys.stdin.readline()  # both voters start at once
        cast(rt.approvals, approval, opts["person"], "allow", "cli")
    # Together: resume until no longer pending; whichever process sees the quorum first runs it.
    deadline = time.monotonic() + 30
    while True:
        outcome = rt.resume(approval)
        if outcome.status != "pending" or not together or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    print(json.dumps({"status": outcome.status, "reason": outcome.reason}))
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _config(tmp_path: Path, state: dict[str, Any] | None) -> dict[str, Any]:
    config: dict[str, Any] = {
        "approvals": {
            "route": "queue",
            "db": str(tmp_path / "approvals.db"),
            "wait_s": 0,
            "people": {"alice": {"groups": ["pay"]}, "bob": {"groups": ["pay"]}},
            "policies": [{"tools": ["pay"], "approvers": ["group:pay"], "quorum": 2}],
        }
    }
    if state is not None:
        config["state"] = state
    return config


def _run(opts: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROCESS, json.dumps(opts)],
        capture_output=True, text=True, env=_env(), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_two_processes_meeting_the_quorum_at_once_on_redis_run_the_call_once(
    tmp_path: Path, state_table: dict[str, Any]
):
    ran = tmp_path / "ran.txt"
    config = _config(tmp_path, state_table)
    asked = _run({"do": "ask", "config": config, "ran": str(ran)})
    assert asked["status"] == "pending"
    voters = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                PROCESS,
                json.dumps(
                    {
                        "do": "vote",
                        "config": config,
                        "ran": str(ran),
                        "approval": asked["approval"],
                        "person": person,
                        "together": True,
                    }
                ),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for person in ("alice", "bob")
    ]
    for voter in voters:
        assert voter.stdout is not None and voter.stdout.readline().strip() == "ready"
    for voter in voters:
        assert voter.stdin is not None
        voter.stdin.write("go\n")
        voter.stdin.flush()
    results = []
    for voter in voters:
        out, err = voter.communicate(timeout=120)
        assert voter.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    statuses = sorted(r["status"] for r in results)
    assert statuses == ["blocked", "ok"], results
    assert "already resolved" in next(r["reason"] for r in results if r["status"] == "blocked")
    assert ran.read_text().splitlines() == ["7"]


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_a_restart_between_votes_loses_no_vote(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
):
    state = request.getfixturevalue("state_table") if backend == "redis" else None
    ran = tmp_path / "ran.txt"
    config = _config(tmp_path, state)
    asked = _run({"do": "ask", "config": config, "ran": str(ran)})  # the agent exits
    approval = asked["approval"]
    first = _run_vote(config, ran, approval, "alice")  # a process that votes, resumes, exits
    assert first["status"] == "pending"
    restarted = _run({"do": "resume", "config": config, "ran": str(ran), "approval": approval})
    assert restarted["status"] == "pending"  # alice's vote is still there, and still not enough
    second = _run_vote(config, ran, approval, "bob")
    assert second["status"] == "ok"
    assert ran.read_text().splitlines() == ["7"]


def _run_vote(config: dict[str, Any], ran: Path, approval: str, person: str) -> dict[str, Any]:
    """One voter process: votes, resumes once, exits."""
    return _run(
        {"do": "vote", "config": config, "ran": str(ran), "approval": approval, "person": person}
    )
