"""Issue #32 item 15, the forged PostToolUse: any process of the user can send the event that
says "the agent ran the call it asked about" (nothing in it is secret from them). What such a
forgery buys is bounded, and this keeps it so: the allow-once it records is spent by the run it
reports and lets no later call through (docs/decisions/agents-races.md)."""

from __future__ import annotations

import json
from typing import Any

from bridge_support import Guard, payload, raw


def event(bridge: Any, agent: str, name: str, command: str, **more: Any) -> Any:
    data = payload(agent, name, tool_input={"command": command}, session_id="s1", **more)
    reply = bridge.handle(agent, raw(data))
    assert reply.exit_code == 0, reply
    return json.loads(reply.stdout)


def test_a_forged_after_event_cannot_approve_a_later_call(make_bridge: Any) -> None:
    bridge, recorder = make_bridge(Guard(allowed=("allow-once", "deny")))
    asked = event(bridge, "claude-code", "PreToolUse", "touch needs-approval", tool_use_id="c1")
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    [row] = bridge.rt.approvals.list(states=["pending"])
    # The user said no in Claude Code's prompt, so no PostToolUse comes; another process of
    # the same user sends one anyway.
    forged = {"stdout": "", "stderr": "", "interrupted": False}
    event(bridge, "claude-code", "PostToolUse", "touch needs-approval", tool_use_id="c1",
          tool_response=forged)  # fmt: skip
    assert [r.id for r in bridge.rt.approvals.list(states=["consumed"])] == [row.id]
    assert bridge.rt.approvals.list(states=["decided"]) == []
    # The same call again, from an agent that has no prompt (the store's route decides): the
    # forged allow-once is not there to let it through.
    again = event(bridge, "codex", "PreToolUse", "touch needs-approval", tool_use_id="c2")
    assert again["hookSpecificOutput"]["permissionDecision"] == "deny"
    resolved = recorder.of("approval.resolved")
    assert [(e.data["decision"], e.data["by"]) for e in resolved] == [
        ("allow-once", "claude-code user")
    ]
