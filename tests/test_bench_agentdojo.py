"""bench/agentdojo.py on one suite: the no-rules replay gives AgentDojo's own figures.

AgentDojo is a bench requirement (bench/requirements-agentdojo.txt), not a test one: the test
skips where it is not installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_banking_replay_with_no_rules_keeps_every_task_and_lets_the_attacks_through(tmp_path):
    pytest.importorskip("agentdojo", reason="agentdojo is a bench requirement, not installed")
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agentdojo.py"), "--suite", "banking", "--jobs", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    row = next(
        line for line in done.stdout.splitlines() if line.startswith("no rules") and " all " in line
    )
    # 16 user tasks solved by their ground truth; 141 of the 144 hijacked replays succeed (the
    # other three injection checks depend on state the user task already changed).
    assert row.split()[3:5] == ["16/16", "141/144"]


def test_banking_replay_with_the_provenance_policy_stops_every_attack(tmp_path):
    pytest.importorskip("agentdojo", reason="agentdojo is a bench requirement, not installed")
    policy = ROOT / "bench" / "policies" / "provenance.toml"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agentdojo.py"), "--suite", "banking",
         "--jobs", "1", "--config", str(policy)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if " all " in line)
    # The two tasks lost pay an IBAN read from a file (BENCHMARKS.md, "What limits it").
    assert row.split()[2:4] == ["14/16", "0/144"]


def test_banking_replay_with_the_cedar_policy_blocks_what_provenance_blocks(tmp_path):
    """Issue #41: bench/policies/banking.cedar (context.from) against provenance.toml on the
    banking suite, in one run from another folder (the .cedar path is relative to its TOML)."""
    pytest.importorskip("agentdojo", reason="agentdojo is a bench requirement, not installed")
    pytest.importorskip("toolhooks_cedar", reason="toolhooks-cedar is not installed")
    policies = ROOT / "bench" / "policies"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agentdojo.py"), "--suite", "banking",
         "--jobs", "1", "--config", str(policies / "provenance.toml"),
         "--config", str(policies / "banking-cedar.toml"), "--json", str(tmp_path / "out.json")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    import json

    runs = json.loads((tmp_path / "out.json").read_text())["policies"]
    provenance, cedar = runs["provenance.toml"]["total"], runs["banking-cedar.toml"]["total"]
    assert (cedar["utility"], cedar["attacks"]) == (14, 0)
    for key in ("utility", "attacks", "utility_under_attack", "refused", "failed_user_tasks"):
        assert cedar[key] == provenance[key], key
