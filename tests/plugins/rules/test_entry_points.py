"""Issue #34 item 6: one ``[[rules]]`` policy through every entry point. Each coding agent's own
tool and param names reach the rules (through its bridge, with payloads shaped like the real
ones), ``toolhooks hook claude-code`` as the agent runs it, and the MCP proxy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolhooks import Runtime, load_config
from toolhooks.agents._bridge import AgentBridge
from toolhooks.agents._run import build_runtime

POLICY = """\
[approvals]
db = ".toolhooks/approvals.db"
wait_s = 0

[[rules]]
id = "no-recursive-delete"
tools = ["exec"]
command = ["rm"]
flags = ["-r", "-R", "--recursive"]
unless = { paths = ["build/**"] }
decision = "deny"
reason = "Recursive deletes are for build/ only"

[[rules]]
id = "no-secrets"
paths = [".env", "*.pem"]
decision = "deny"
reason = "Secrets stay out of reach"

[[rules]]
id = "web"
tools = ["web_fetch"]
hosts = ["*"]
unless = { hosts = ["docs.python.org"] }
decision = "ask"
reason = "A page outside the allow list"
"""
DISGUISED = 'cd src && \\r""m -r -f .'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "toolhooks.toml").write_text(POLICY)
    (tmp_path / "src").mkdir()
    (tmp_path / "build").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    monkeypatch.delenv("TOOLHOOKS_STATE_URL", raising=False)
    return tmp_path


@pytest.fixture
def bridge(project: Path) -> Iterator[AgentBridge]:
    made = AgentBridge(build_runtime(load_config(project / "toolhooks.toml")))
    yield made
    made.close()
    made.rt.close()


def answer(bridge: AgentBridge, agent: str, payload: dict[str, Any]) -> str:
    reply = bridge.handle(agent, json.dumps(payload).encode())
    return reply.stdout + reply.stderr + f" exit={reply.exit_code}"


def claude(tool: str, **params: Any) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "cwd": "/work/project",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": params,
        "tool_use_id": f"t-{tool}-{len(params)}",
    }


CASES = [
    ("claude-code", claude("Bash", command=DISGUISED), "deny", "no-recursive-delete"),
    ("claude-code", claude("Read", file_path="config/.env"), "deny", "no-secrets"),
    (
        "claude-code",
        claude("Edit", file_path="certs/site.pem", old_string="a", new_string="b"),
        "deny",
        "no-secrets",
    ),
    ("claude-code", claude("Write", file_path="build/out.txt", content="x"), "allow", None),
    ("claude-code", claude("WebFetch", url="https://evil.example/x", prompt="read"), "ask", "web"),
    ("codex", {**claude("Bash", command=DISGUISED), "turn_id": "t"}, "deny", "no-recursive-delete"),
    (
        "gemini",
        {
            "session_id": "s",
            "cwd": "/w",
            "hook_event_name": "BeforeTool",
            "tool_name": "read_file",
            "tool_input": {"absolute_path": "/srv/app/.env"},
        },
        "deny",
        "no-secrets",
    ),
    (
        "gemini",
        {
            "session_id": "s",
            "cwd": "/w",
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": DISGUISED},
        },
        "deny",
        "no-recursive-delete",
    ),
    (
        "cursor",
        {
            "conversation_id": "c",
            "generation_id": "g",
            "hook_event_name": "preToolUse",
            "workspace_roots": ["/w"],
            "session_id": "c",
            "tool_name": "Shell",
            "tool_input": {"command": "rm -fr src"},
            "tool_use_id": "u1",
        },
        "deny",
        "no-recursive-delete",
    ),
    (
        "cline",
        {
            "clineVersion": "3.40.0",
            "hookName": "PreToolUse",
            "timestamp": "1",
            "taskId": "t",
            "workspaceRoots": ["/w"],
            "userId": "u",
            "preToolUse": {
                "toolName": "run_commands",
                "parameters": {"commands": '["ls", "sudo rm -rf src"]'},
            },
        },
        "deny",
        "no-recursive-delete",
    ),
    (
        "copilot",
        {
            "sessionId": "s",
            "timestamp": 1,
            "cwd": "/w",
            "toolName": "view",
            "toolArgs": {"path": ".env"},
        },
        "deny",
        "no-secrets",
    ),
    (
        "windsurf",
        {
            "agent_action_name": "pre_read_code",
            "trajectory_id": "t",
            "execution_id": "e",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "tool_info": {"file_path": "/work/demo/.env"},
        },
        "deny",
        "no-secrets",
    ),
    (
        "windsurf",
        {
            "agent_action_name": "pre_run_command",
            "trajectory_id": "t",
            "execution_id": "e2",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "tool_info": {"command_line": "env rm -rf src", "cwd": "/work/demo"},
        },
        "deny",
        "no-recursive-delete",
    ),
]


@pytest.mark.parametrize(
    ("agent", "payload", "expect", "rule"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_each_agents_own_names_reach_the_rules(bridge, agent, payload, expect, rule):
    said = answer(bridge, agent, payload)
    if rule is not None:
        assert rule in said, said
    lowered = said.lower()
    if expect == "deny":
        assert "deny" in lowered or "block" in lowered or "exit=2" in said, said
    elif expect == "ask":
        assert "ask" in lowered or "approval" in lowered, said
    else:
        assert rule is None and "no-" not in said, said


def test_toolhooks_hook_claude_code_applies_a_rule(project: Path):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "toolhooks", "hook", "claude-code"],
            input=json.dumps(claude("Bash", command=DISGUISED)).encode(),
            cwd=project,
            env=environ,
            capture_output=True,
            timeout=120,
        )
    finally:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "agents"))
        try:
            from daemon_support import stop_daemons_under

            stop_daemons_under(project)
        finally:
            sys.path.pop(0)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "no-recursive-delete" in output["permissionDecisionReason"]


def test_a_codex_shell_argv_is_analysed_too(project: Path):
    with Runtime(config=project / "toolhooks.toml") as rt:
        argv = ["bash", "-lc", "cd src && rm -rf ."]
        blocked = rt.decide({"name": "exec", "params": {"command": argv, "workdir": "."}})
        assert blocked.status == "blocked" and "no-recursive-delete" in blocked.reason
        fine = rt.decide({"name": "exec", "params": {"command": ["rm", "-rf", "build/x"]}})
        assert fine.status == "allowed"
        patch = "*** Begin Patch\n*** Update File: config/.env\n@@\n-a\n+b\n*** End Patch\n"
        assert rt.decide({"name": "apply_patch", "params": {"input": patch}}).status == "blocked"
