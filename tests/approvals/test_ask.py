"""Runtime.ask / aask: ask the approver about a call ``decide`` paused, and run nothing.

For a framework that can pause only before a tool call starts (the OpenAI Agents SDK's
``needs_approval``): "defer" means pause; any other answer is recorded as the approval's
decision, and the call with the same id finishes with it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from toolhooks import ApprovalDecision, PendingApproval, Runtime, ToolCall, hookimpl
from toolhooks.testing import EventRecorder


class AskFirst:
    @hookimpl
    def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {"require_approval": {"title": "Run it?", "description": "run the tool"}}


def make(approver: Any) -> tuple[Runtime, EventRecorder, list[str]]:
    ran: list[str] = []
    events = EventRecorder()
    rt = Runtime(plugins=[AskFirst(), events], approver=approver, load_entrypoints=False)

    def deploy(target: str) -> str:
        ran.append(target)
        return f"deployed to {target}"

    rt.add_tool(deploy)
    return rt, events, ran


CALL = ToolCall(name="deploy", params={"target": "staging"}, id="call_1")


def test_an_answer_is_recorded_and_the_call_finishes_with_it() -> None:
    asked: list[PendingApproval] = []

    def approver(pending: PendingApproval) -> str:
        asked.append(pending)
        return "allow-once"

    rt, events, ran = make(approver)
    decision = rt.decide(CALL)
    assert decision.pending is not None
    assert rt.ask(decision.pending.id) == "allow-once"
    assert ran == [] and len(asked) == 1
    row = rt.approvals.get(decision.pending.id)
    assert row is not None and (row.state, row.decision) == ("decided", "allow-once")
    outcome = rt.call(CALL)
    assert (outcome.status, outcome.content, ran) == ("ok", "deployed to staging", ["staging"])
    assert len(asked) == 1
    assert events.names().count("tool.proposed") == 1
    assert events.names().count("tool.injected") == 1


def test_defer_leaves_the_approval_pending() -> None:
    rt, events, ran = make(lambda pending: "defer")
    decision = rt.decide(CALL)
    assert decision.pending is not None
    assert rt.ask(decision.pending.id) == "defer"
    row = rt.approvals.get(decision.pending.id)
    assert row is not None and row.state == "pending"
    assert events.names()[-1] == "approval.deferred"
    assert rt.resume(decision.pending.id, "allow-once").content == "deployed to staging"
    assert ran == ["staging"]


def test_a_deny_keeps_the_approvers_reason_once() -> None:
    rt, _, ran = make(lambda pending: ApprovalDecision("deny", reason="freeze week"))
    decision = rt.decide(CALL)
    assert decision.pending is not None
    assert rt.ask(decision.pending.id) == "deny"
    outcome = rt.call(CALL)
    assert (outcome.status, outcome.content, ran) == ("denied", "Denied by user: freeze week", [])


def test_an_unknown_or_finished_approval_runs_nothing_and_asks_nobody() -> None:
    asked: list[PendingApproval] = []
    rt, _, ran = make(lambda pending: asked.append(pending) or "allow-once")
    assert rt.ask("no-such-approval") == "deny"
    decision = rt.decide(CALL)
    assert decision.pending is not None
    rt.resume(decision.pending.id, "deny")
    assert rt.ask(decision.pending.id) == "deny"
    assert asked == [] and ran == []


def test_aask_on_the_callers_loop() -> None:
    async def approver(pending: PendingApproval) -> str:
        return "allow-once"

    rt, _, ran = make(approver)

    async def flow() -> str:
        decision = await rt.adecide(CALL)
        assert decision.pending is not None
        answer = await rt.aask(decision.pending.id)
        outcome = await rt.acall(CALL)
        return f"{answer}: {outcome.content}"

    assert asyncio.run(flow()) == "allow-once: deployed to staging"
    assert ran == ["staging"]


def test_an_answer_the_core_made_keeps_its_words() -> None:
    """No approver: the recorded deny reads as the core wrote it, not as a human's reason."""
    rt, _, ran = make(None)
    decision = rt.decide(CALL)
    assert decision.pending is not None
    assert rt.ask(decision.pending.id) == "deny"
    outcome = rt.call(CALL)
    assert (outcome.status, outcome.content, ran) == (
        "denied",
        "Approval unavailable (no approval route)",
        [],
    )
