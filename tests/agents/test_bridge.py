"""The bridge: an agent's before and after events through a real runtime, answered in the agent's
protocol, with one audited call per tool use."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from bridge_support import Guard, Redactor, payload, raw
from toolhooks.agents._claude import PROTOCOL as CLAUDE

BEFORE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
AFTER = {"claude-code": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}
RESULT = {
    "claude-code": {"stdout": "hi\n", "stderr": "", "interrupted": False},
    "codex": "hi\n",
    "gemini": {"llmContent": "hi", "returnDisplay": "hi"},
}


def before(bridge: Any, agent: str, command: str, call: str = "c1", session: str = "s1") -> Any:
    data = payload(agent, BEFORE[agent], tool_input={"command": command}, session_id=session)
    if agent != "gemini":
        data["tool_use_id"] = call
    reply = bridge.handle(agent, raw(data))
    assert reply.exit_code == 0, reply
    return json.loads(reply.stdout)


def after(
    bridge: Any,
    agent: str,
    command: str,
    call: str = "c1",
    session: str = "s1",
    result: Any = None,
) -> Any:
    data = payload(agent, AFTER[agent], tool_input={"command": command}, session_id=session)
    data["tool_response"] = RESULT[agent] if result is None else result
    if agent != "gemini":
        data["tool_use_id"] = call
    reply = bridge.handle(agent, raw(data))
    assert reply.exit_code == 0, reply
    return json.loads(reply.stdout)


def proposed(recorder: Any) -> list[dict[str, Any]]:
    return [dict(e.data, call_id=e.call_id) for e in recorder.of("tool.proposed")]


@pytest.mark.parametrize("agent", list(BEFORE))
def test_an_allowed_call_is_one_audited_call_from_before_to_after(agent, make_bridge):
    bridge, recorder = make_bridge()
    assert before(bridge, agent, "echo hi") == {}
    assert recorder.names()[:2] == ["agent.hook", "tool.proposed"]
    assert "tool.finished" not in recorder.names()  # nothing ran yet
    assert after(bridge, agent, "echo hi") == {}
    [call] = proposed(recorder)
    assert (call["agent_id"], call["params"]) == (agent, {"command": "echo hi"})
    [finished] = recorder.of("tool.finished")
    assert finished.call_id == call["call_id"] and finished.data["status"] == "ok"
    if agent != "gemini":
        assert call["call_id"] == "c1"  # the agent's own call id
    hook = recorder.of("agent.hook")[0].data
    assert hook["original_tool"] in ("Bash", "run_shell_command")
    assert hook["cwd"] == "/work/project"


@pytest.mark.parametrize("agent", list(BEFORE))
def test_a_blocked_call_is_denied_with_the_reason_and_audited_at_once(agent, make_bridge):
    bridge, recorder = make_bridge(Guard())
    answer = before(bridge, agent, "rm -rf /")
    assert "guard: rm -rf is not allowed" in json.dumps(answer)
    assert "deny" in json.dumps(answer)
    [blocked] = recorder.of("tool.blocked")
    assert blocked.data["reason"] == "guard: rm -rf is not allowed"
    assert recorder.of("tool.injected")  # the after chain ran: the audit sees the block


def test_a_reused_call_id_never_gets_another_calls_decision(make_bridge):
    """The model's API chooses tool_use_id: a second call under the id of one still open (same
    session, other input) is decided on its own, not answered with the first one's decision."""
    bridge, recorder = make_bridge(Guard())
    assert "echo new" in json.dumps(before(bridge, "claude-code", "echo original", call="c1"))
    answer = before(bridge, "claude-code", "rm -rf /", call="c1")
    assert "guard: rm -rf is not allowed" in json.dumps(answer)
    assert "echo new" not in json.dumps(answer)
    assert [e.data["params"] for e in recorder.of("tool.proposed")] == [
        {"command": "echo original"},
        {"command": "rm -rf /"},
    ]


@pytest.mark.parametrize("agent", list(BEFORE))
def test_a_rewritten_call_runs_as_rewritten(agent, make_bridge):
    bridge, recorder = make_bridge(Guard())
    answer = before(bridge, agent, "echo original")
    assert "echo new" in json.dumps(answer)
    assert after(bridge, agent, "echo new") == {}
    [started] = recorder.of("tool.started")
    assert started.data["params"] == {"command": "echo new"}
    assert len(proposed(recorder)) == 1


def test_a_rewrite_the_agent_cannot_take_is_a_deny_naming_the_change(make_bridge, monkeypatch):
    monkeypatch.setattr(CLAUDE, "before_caps", frozenset({"context"}))
    bridge, recorder = make_bridge(Guard())
    answer = before(bridge, "claude-code", "echo original")
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "changed input (command)" in output["permissionDecisionReason"]
    assert "echo new" in output["permissionDecisionReason"]
    [finished] = recorder.of("tool.finished")
    assert finished.data["status"] == "error"  # audited as not run
    [missed] = recorder.of("agent.not_applied")
    assert "changed input" in missed.data["what"]


def test_an_approval_nobody_answers_is_denied_with_its_id_and_the_command(make_bridge):
    bridge, recorder = make_bridge(Guard())
    answer = before(bridge, "codex", "touch needs-approval")
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    [row] = bridge.rt.approvals.list(states=["pending"])
    assert f"approval {row.short_id}" in reason
    assert f"toolhooks approvals approve {row.short_id}" in reason
    # Someone approves; the model proposes the same call again (a new call id): it runs, once.
    bridge.rt.approvals.decide(row.id, "allow-always", by="ops")
    assert before(bridge, "codex", "touch needs-approval", call="c2") == {}
    assert after(bridge, "codex", "touch needs-approval", call="c2") == {}
    [finished] = recorder.of("tool.finished")
    assert finished.call_id == "c2"
    resolved = recorder.of("approval.resolved")
    assert [e.data["decision"] for e in resolved] == ["allow-always"]
    # allow-always: the next one needs nobody
    assert before(bridge, "codex", "touch needs-approval", call="c3") == {}


def test_a_retry_while_the_approval_waits_is_no_second_request(make_bridge):
    bridge, _ = make_bridge(Guard())
    first = json.dumps(before(bridge, "gemini", "touch needs-approval"))
    second = json.dumps(before(bridge, "gemini", "touch needs-approval"))
    [row] = bridge.rt.approvals.list(states=["pending"])
    assert row.short_id in first and row.short_id in second


@pytest.mark.parametrize("agent", list(BEFORE))
def test_an_approval_decided_on_the_queue_while_the_hook_waits(agent, make_bridge):
    bridge, recorder = make_bridge(Guard(), approvals={"route": "queue", "wait_s": 30})
    store = bridge.rt.approvals
    decided: list[str] = []

    def operator() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not decided:
            for row in store.list(states=["pending"]):
                store.decide(row.id, "allow-always", by="ops")
                decided.append(row.id)
            time.sleep(0.05)

    thread = threading.Thread(target=operator)
    thread.start()
    answer = before(bridge, agent, "touch needs-approval")
    thread.join()
    assert answer == {}  # allowed: the agent runs it
    assert after(bridge, agent, "touch needs-approval") == {}
    [resolved] = recorder.of("approval.resolved")
    assert (resolved.data["decision"], resolved.data["by"]) == ("allow-always", "ops")
    assert [e.data["status"] for e in recorder.of("tool.finished")] == ["ok"]


def test_an_approval_denied_by_the_operator_is_a_deny_and_is_audited(make_bridge):
    bridge, recorder = make_bridge(Guard())
    before(bridge, "claude-code", "touch needs-approval")
    [row] = bridge.rt.approvals.list(states=["pending"])
    bridge.rt.approvals.decide(row.id, "deny", by="ops", reason="not today")
    answer = before(bridge, "claude-code", "touch needs-approval", call="c2")
    assert "not today" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert recorder.of("approval.resolved")[-1].data["decision"] == "deny"


def test_allow_once_goes_to_claude_codes_own_prompt(make_bridge):
    bridge, recorder = make_bridge(Guard(allowed=("allow-once", "deny")))
    answer = before(bridge, "claude-code", "touch needs-approval")
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "ask"
    assert "Touch a file" in output["permissionDecisionReason"]
    # The tool ran, so the user allowed it in Claude Code's prompt.
    assert after(bridge, "claude-code", "touch needs-approval") == {}
    [resolved] = recorder.of("approval.resolved")
    assert (resolved.data["decision"], resolved.data["by"]) == ("allow-once", "claude-code user")


def test_codex_is_never_asked_allow_once_goes_to_the_route(make_bridge):
    bridge, _ = make_bridge(Guard(allowed=("allow-once", "deny")))
    answer = before(bridge, "codex", "touch needs-approval")
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "toolhooks approvals approve" in answer["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("agent", list(BEFORE))
def test_the_loop_warning_reaches_the_model_after_the_repeated_call(agent, make_bridge):
    bridge, _ = make_bridge(plugins={"loop_detection": {"warning_threshold": 2}})
    before(bridge, agent, "echo same", call="c1")
    assert after(bridge, agent, "echo same", call="c1") == {}
    before(bridge, agent, "echo same", call="c2")
    answer = json.dumps(after(bridge, agent, "echo same", call="c2"))
    assert "has been called 2 times with identical arguments" in answer


def test_two_sessions_at_once_share_no_state(make_bridge):
    bridge, recorder = make_bridge(plugins={"loop_detection": {"warning_threshold": 2}})
    # Interleaved, and even with the same call ids: each session is its own.
    before(bridge, "claude-code", "echo same", call="c1", session="A")
    before(bridge, "claude-code", "echo same", call="c1", session="B")
    assert after(bridge, "claude-code", "echo same", call="c1", session="A") == {}
    assert after(bridge, "claude-code", "echo same", call="c1", session="B") == {}
    before(bridge, "claude-code", "echo same", call="c2", session="A")
    warned = json.dumps(after(bridge, "claude-code", "echo same", call="c2", session="A"))
    assert "identical arguments" in warned
    before(bridge, "claude-code", "echo other", call="c2", session="B")
    assert after(bridge, "claude-code", "echo other", call="c2", session="B") == {}
    calls = proposed(recorder)
    assert [c["params"]["command"] for c in calls] == ["echo same"] * 3 + ["echo other"]
    # Two open calls never share an id in the runtime (it remembers decided calls by id).
    assert calls[0]["call_id"] == "c1" and calls[1]["call_id"].startswith("c1~")
    assert len(recorder.of("tool.finished")) == 4


def test_a_changed_result_replaces_the_agents_where_it_can_and_is_recorded_where_not(
    make_bridge,
):
    bridge, recorder = make_bridge(Redactor())
    before(bridge, "claude-code", "cat env")
    answer = after(bridge, "claude-code", "cat env", result={"stdout": "secret=1", "stderr": ""})
    assert answer["hookSpecificOutput"]["updatedToolOutput"] == "[redacted]"
    before(bridge, "codex", "cat env", call="c9")
    answer = after(bridge, "codex", "cat env", call="c9", result="secret=1")
    assert answer == {}
    [missed] = recorder.of("agent.not_applied")
    assert missed.call_id == "c9" and "redaction" in missed.data["what"]


def test_an_after_event_without_its_before_is_checked_late_and_says_so(make_bridge):
    bridge, recorder = make_bridge()
    answer = after(bridge, "claude-code", "echo hi", call="never-seen")
    assert (
        "did not see this call before it ran" in answer["hookSpecificOutput"]["additionalContext"]
    )
    assert len(proposed(recorder)) == 1 and recorder.of("tool.finished")


def test_the_hand_over_lets_another_process_finish_the_call(make_bridge, tmp_path):
    """The before event answered by one runtime (the daemon), the after by another (the
    in-process fallback): still one call in the log, concluded with the decided params."""
    first, recorder_one = make_bridge(Guard())
    second, recorder_two = make_bridge(Guard())
    before(first, "gemini", "echo original")
    assert after(second, "gemini", "echo new") == {}
    assert recorder_two.names()[0] == "tool.started"  # no second proposal, no second chain
    assert recorder_two.of("tool.started")[0].data["params"] == {"command": "echo new"}
    assert len(proposed(recorder_one)) == 1 and not proposed(recorder_two)


def test_loop_warnings_cross_processes_with_shared_state(make_bridge, state_table):
    """Without the daemon, [state] url shares the windows, and the warning the before process
    found reaches the model through the hand-over (the after process never saw it)."""
    tables = {"state": state_table, "plugins": {"loop_detection": {"warning_threshold": 2}}}
    bridges = [make_bridge(**tables)[0] for _ in range(4)]
    before(bridges[0], "gemini", "echo same")
    after(bridges[1], "gemini", "echo same")
    before(bridges[2], "gemini", "echo same")
    answer = json.dumps(after(bridges[3], "gemini", "echo same"))
    assert "has been called 2 times with identical arguments" in answer


def test_a_failed_tool_is_audited_as_an_error(make_bridge):
    bridge, recorder = make_bridge()
    before(bridge, "claude-code", "echo oops >&2; exit 3", call="toolu_1")
    failure = payload("claude-code", "PostToolUseFailure", session_id="s1")
    reply = bridge.handle("claude-code", raw(failure))
    assert (reply.exit_code, json.loads(reply.stdout)) == (0, {})
    [finished] = recorder.of("tool.finished")
    assert (finished.data["status"], finished.data["error"]) == ("error", "Exit code 3\noops")
