"""Claude Code's, Codex CLI's and Gemini CLI's hook protocols: reading the payloads the real CLIs
sent (captured by tests/agents/e2e/test_cli_hooks.py into tests/agents/fixtures/) and answering
in each one's terms."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolhooks.agents import HookAnswer, HookEvent, ProtocolError, protocol

FIXTURES = Path(__file__).parent / "fixtures"
BEFORE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
AFTER = {"claude-code": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}
AGENTS = list(BEFORE)


def fixture(agent: str, event: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / agent / f"{event}.json").read_text())
    return data


def out(reply: Any) -> dict[str, Any]:
    assert reply.exit_code == 0, reply
    data: dict[str, Any] = json.loads(reply.stdout)
    return data


@pytest.mark.parametrize("agent", AGENTS)
def test_a_real_before_payload_is_an_exec_call_with_the_agents_ids(agent):
    payload = fixture(agent, BEFORE[agent])
    event = protocol(agent).parse(payload)
    assert (event.phase, event.tool, event.event_name) == ("before", "exec", BEFORE[agent])
    assert event.original_tool == payload["tool_name"]
    assert event.params == {"command": "echo hello > made.txt"}
    assert event.session_id == payload["session_id"]
    assert event.cwd == "/work/project"
    assert event.call_id == payload.get("tool_use_id")  # Gemini gives none
    assert event.raw is payload


@pytest.mark.parametrize("agent", AGENTS)
def test_a_real_after_payload_carries_the_result(agent):
    payload = fixture(agent, AFTER[agent])
    event = protocol(agent).parse(payload)
    assert (event.phase, event.tool, event.failed) == ("after", "exec", False)
    assert event.result == payload["tool_response"]


@pytest.mark.parametrize("agent", AGENTS)
def test_allow_says_nothing_so_the_agents_own_rules_still_apply(agent):
    proto = protocol(agent)
    event = proto.parse(fixture(agent, BEFORE[agent]))
    assert out(proto.render(event, HookAnswer(action="none"))) == {}
    assert out(proto.render(event, HookAnswer(action="allow"))) == {}


def test_claude_code_answers():
    proto = protocol("claude-code")
    before = proto.parse(fixture("claude-code", "PreToolUse"))
    denied = out(proto.render(before, HookAnswer(action="deny", reason="no", context="hint")))
    assert denied == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
            "additionalContext": "hint",
        }
    }
    asked = out(proto.render(before, HookAnswer(action="ask", reason="sure?")))
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    rewritten = out(proto.render(before, HookAnswer(action="rewrite", params={"command": "ls"})))
    assert rewritten["hookSpecificOutput"]["updatedInput"] == {"command": "ls"}
    assert rewritten["hookSpecificOutput"]["permissionDecision"] == "allow"
    after = proto.parse(fixture("claude-code", "PostToolUse"))
    answer = HookAnswer(action="none", context="note", result_text="[redacted]")
    assert out(proto.render(after, answer)) == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": "[redacted]",
            "additionalContext": "note",
        }
    }
    assert proto.capabilities(after) == {"context", "replace_result"}


def test_claude_code_failure_event_is_an_after_event_that_failed():
    proto = protocol("claude-code")
    event = proto.parse(fixture("claude-code", "PostToolUseFailure"))
    assert (event.phase, event.failed, event.result) == ("after", True, "Exit code 3\noops")
    assert "replace_result" not in proto.capabilities(event)
    answer = HookAnswer(action="none", context="note", result_text="x")
    assert out(proto.render(event, answer)) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "note"}
    }


def test_codex_never_asks_and_takes_no_replacement_result():
    proto = protocol("codex")
    before = proto.parse(fixture("codex", "PreToolUse"))
    assert "ask" not in proto.capabilities(before)
    asked = out(proto.render(before, HookAnswer(action="ask", reason="sure?")))
    # Codex runs the command on "ask": an ask that reaches this protocol is a deny.
    assert asked["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert asked["hookSpecificOutput"]["permissionDecisionReason"] == "sure?"
    denied = out(proto.render(before, HookAnswer(action="deny")))
    assert denied["hookSpecificOutput"]["permissionDecisionReason"]  # Codex needs a reason
    after = proto.parse(fixture("codex", "PostToolUse"))
    assert proto.capabilities(after) == {"context"}
    answer = HookAnswer(action="none", context="note", result_text="[redacted]")
    assert out(proto.render(after, answer)) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "note"}
    }


def test_gemini_answers():
    proto = protocol("gemini")
    before = proto.parse(fixture("gemini", "BeforeTool"))
    assert "context" not in proto.capabilities(before)  # Gemini drops a before hook's context
    assert out(proto.render(before, HookAnswer(action="deny", reason="no"))) == {
        "decision": "deny",
        "reason": "no",
    }
    rewritten = out(proto.render(before, HookAnswer(action="rewrite", params={"command": "ls"})))
    assert rewritten == {"hookSpecificOutput": {"tool_input": {"command": "ls"}}}
    after = proto.parse(fixture("gemini", "AfterTool"))
    assert out(proto.render(after, HookAnswer(action="none", context="note"))) == {
        "hookSpecificOutput": {"additionalContext": "note"}
    }
    replaced = out(proto.render(after, HookAnswer(action="none", context="n", result_text="r")))
    assert replaced == {"decision": "deny", "reason": "r\n\nn"}


def test_gemini_mcp_tools_are_named_by_their_server():
    payload = {
        **fixture("gemini", "BeforeTool"),
        "tool_name": "mcp_git_status",
        "mcp_context": {"server_name": "git", "tool_name": "status"},
    }
    assert protocol("gemini").parse(payload).tool == "git__status"


@pytest.mark.parametrize(
    ("agent", "name", "expected"),
    [
        ("claude-code", "Bash", "exec"),
        ("claude-code", "Write", "write"),
        ("claude-code", "Edit", "edit"),
        ("claude-code", "MultiEdit", "edit"),
        ("claude-code", "Read", "read"),
        ("claude-code", "Grep", "read"),
        ("claude-code", "WebFetch", "web_fetch"),
        ("claude-code", "mcp__github__create_issue", "github__create_issue"),
        ("claude-code", "SomethingNew", "SomethingNew"),
        ("codex", "Bash", "exec"),
        ("codex", "apply_patch", "apply_patch"),
        ("codex", "mcp__db__query", "db__query"),
        ("gemini", "run_shell_command", "exec"),
        ("gemini", "write_file", "write"),
        ("gemini", "replace", "edit"),
        ("gemini", "read_file", "read"),
        ("gemini", "google_web_search", "web_search"),
    ],
)
def test_tool_names(agent, name, expected):
    payload = {**fixture(agent, BEFORE[agent]), "tool_name": name}
    event = protocol(agent).parse(payload)
    assert (event.tool, event.original_tool) == (expected, name)


@pytest.mark.parametrize(
    ("agent", "name"), [("claude-code", "TodoWrite"), ("gemini", "write_todos")]
)
def test_conversation_only_tools_are_not_governed(agent, name):
    proto = protocol(agent)
    event = proto.parse({**fixture(agent, BEFORE[agent]), "tool_name": name})
    assert (event.phase, event.original_tool) == ("other", name)
    assert out(proto.render(event, HookAnswer(action="deny", reason="x"))) == {}


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    "change",
    [
        {"hook_event_name": "Stop"},
        {"hook_event_name": 7},
        {"tool_name": None},
        {"tool_input": "<missing>"},
    ],
)
def test_a_payload_that_cannot_be_read_is_a_protocol_error(agent, change):
    payload = {**fixture(agent, BEFORE[agent]), **change}
    if change.get("tool_input") == "<missing>":
        del payload["tool_input"]
    with pytest.raises(ProtocolError):
        protocol(agent).parse(payload)


@pytest.mark.parametrize("agent", AGENTS)
def test_refusing_fails_closed_in_each_phase(agent):
    proto = protocol(agent)
    before = out(proto.refuse(fixture(agent, BEFORE[agent]), "broken"))
    text = json.dumps(before)
    assert "broken" in text and ("deny" in text)
    after = out(proto.refuse(fixture(agent, AFTER[agent]), "broken"))
    assert "broken" in json.dumps(after)
    assert after.get("decision") in ("block", "deny")  # the unchecked result is withheld
    unreadable = proto.refuse(None, "not JSON")
    assert (unreadable.exit_code, unreadable.stdout) == (2, "")
    assert "not JSON" in unreadable.stderr


@pytest.mark.parametrize("agent", AGENTS)
def test_events_are_agent_neutral_records(agent):
    event = protocol(agent).parse(fixture(agent, BEFORE[agent]))
    assert isinstance(event, HookEvent)
    assert protocol(agent).schema_version  # the version each protocol was written against
