"""``toolhooks hook AGENT`` as the agents run it: a real subprocess, stdin in, the agent's answer
out. Bad input (malformed, huge, truncated, an unknown event) gets a clear answer in the agent's
protocol, fails closed and still leaves a line in the audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bridge_support import payload

TOOLHOOKS = [sys.executable, "-m", "toolhooks"]
AGENTS = ("claude-code", "codex", "gemini")
BEFORE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "toolhooks.toml").write_text(
        f'[plugins.event_log]\npath = "{tmp_path / "events.jsonl"}"\n[tools]\ndeny = ["exec"]\n'
    )
    return tmp_path


def hook(project: Path, agent: str, stdin: bytes, **env: str) -> subprocess.CompletedProcess[bytes]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    return subprocess.run(
        [*TOOLHOOKS, "hook", agent],
        input=stdin,
        cwd=project,
        env={**environ, **env},
        capture_output=True,
        timeout=60,
    )


def log(project: Path) -> list[dict[str, Any]]:
    path = project / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("agent", AGENTS)
def test_a_call_the_policy_denies_is_denied_in_the_agents_own_terms(agent, project):
    stdin = json.dumps(payload(agent, BEFORE[agent])).encode()
    done = hook(project, agent, stdin)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert "deny" in json.dumps(answer) and "exec" in json.dumps(answer)
    assert [e["event"] for e in log(project)][:2] == ["agent.hook", "tool.proposed"]


BAD = {
    "empty": b"",
    "not json": b"rm -rf /",
    "truncated": json.dumps(payload("claude-code", "PreToolUse")).encode()[:-20],
    "not an object": b"[1, 2]",
    "not utf-8": b'{"a": "\xff"}',
    "huge": b'{"tool_input": {"content": "' + b"x" * (10 * 1024 * 1024) + b'"}}',
}


# Each kind once, the agents taken in turn: every agent meets several kinds (a subprocess each).
@pytest.mark.parametrize(
    ("agent", "kind"), [(AGENTS[i % len(AGENTS)], kind) for i, kind in enumerate(BAD)]
)
def test_unreadable_stdin_is_refused_fail_closed_and_logged(agent, kind, project):
    done = hook(project, agent, BAD[kind])
    # No event to answer in its own terms: exit 2, the reason on stderr, which all three read as
    # "block this" (and show to the model).
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.startswith(b"toolhooks: the hook event"), done.stderr
    [refused] = [e for e in log(project) if e["event"] == "agent.refused"]
    assert refused["agent"] == agent and refused["bytes"] == len(BAD[kind])


@pytest.mark.parametrize("agent", AGENTS)
def test_an_unknown_event_is_refused_naming_it(agent, project):
    stdin = json.dumps({**payload(agent, BEFORE[agent]), "hook_event_name": "Teleport"}).encode()
    done = hook(project, agent, stdin)
    assert done.returncode == 2
    assert b"'Teleport'" in done.stderr
    [refused] = [e for e in log(project) if e["event"] == "agent.refused"]
    assert refused["event_name"] == "Teleport"


def test_a_config_that_cannot_be_read_fails_closed(project):
    stdin = json.dumps(payload("claude-code", "PreToolUse")).encode()
    done = hook(project, "claude-code", stdin, TOOLHOOKS_CONFIG=str(project / "missing.toml"))
    assert done.returncode == 0
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "config" in output["permissionDecisionReason"]


@pytest.mark.parametrize(("on_error", "decision"), [("deny", "deny"), ("allow", None)])
def test_toolhooks_failing_to_start_follows_on_error(project, on_error, decision):
    (project / "db-is-a-dir").mkdir()
    (project / "toolhooks.toml").write_text(
        f'[agents]\non_error = "{on_error}"\n[approvals]\ndb = "db-is-a-dir"\n'
    )
    stdin = json.dumps(payload("gemini", "BeforeTool")).encode()
    done = hook(project, "gemini", stdin)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert answer.get("decision") == decision
    if decision:
        assert "cannot start" in answer["reason"]


def test_an_unknown_agent_is_a_usage_error(project):
    done = hook(project, "vim", b"{}")
    assert done.returncode == 2
    assert b"invalid choice" in done.stderr


def test_an_event_that_is_not_about_a_governed_tool_needs_no_runtime(project):
    (project / "toolhooks.toml").write_text("this is not toml")  # never read for this event
    stdin = json.dumps({**payload("claude-code", "PreToolUse"), "tool_name": "TodoWrite"})
    done = hook(project, "claude-code", stdin.encode())
    assert (done.returncode, done.stdout.strip()) == (0, b"{}")
