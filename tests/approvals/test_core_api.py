"""decide then call, passthrough, ToolError, hidden tools, content_changed, grants' scope."""

from __future__ import annotations

import asyncio

import pytest
from toolhooks import Runtime, ToolError, hookimpl

CALL = {"name": "write", "params": {"path": "a.txt", "text": "hi"}, "session_id": "s1"}


# -- decide -------------------------------------------------------------------------------------


def test_decide_allowed_then_call_reuses_the_decision(drive, toolhooks_make_runtime):
    seen = []

    class Rewrite:
        name = "rewrite"

        @hookimpl
        def before_tool_call(self, call):
            seen.append(call.id)
            return {"params": {"path": "/ws/" + call.params["path"]}}

    from toolhooks.testing import EventRecorder

    rec = EventRecorder()
    rt = toolhooks_make_runtime(plugins=[Rewrite(), rec])
    ran = []
    rt.add_tool(lambda path, text="": ran.append(path) or "done", name="write")
    decision = drive.decide(rt, {**CALL, "id": "c1"})
    assert decision.allowed and not decision.blocked and not decision.needs_approval
    assert decision.params == {"path": "/ws/a.txt", "text": "hi"} and decision.call_id == "c1"
    assert ran == []
    outcome = drive.call(rt, {**CALL, "id": "c1"})
    assert outcome.status == "ok" and ran == ["/ws/a.txt"] and seen == ["c1"]
    assert [e.event for e in rec.events].count("tool.proposed") == 1
    assert rec.names()[-1] == "tool.injected"


def test_decide_blocked(drive, toolhooks_make_runtime):
    class No:
        name = "no"

        @hookimpl
        def before_tool_call(self):
            return {"block": True, "block_reason": "never"}

    rt = toolhooks_make_runtime(plugins=[No()])
    decision = drive.decide(rt, {"name": "x", "id": "c2"})
    assert decision.blocked and decision.reason == "never" and decision.blocked_by == "no"
    outcome = drive.call(rt, {"name": "x", "id": "c2"}, execute=lambda p: "ran")
    assert outcome.status == "blocked" and outcome.reason == "never"


def test_decide_needs_approval_then_resume(drive, make):
    rt, rec, ran = make(approver=None)
    decision = drive.decide(rt, {**CALL, "id": "c3"})
    assert decision.needs_approval and decision.pending.plugin == "gate"
    assert rt.approvals.get(decision.pending.id).state == "pending"
    final = drive.resume(rt, decision.pending.id, "allow-once")
    assert final.ok and ran == [{"path": "/ws/a.txt", "text": "hi"}]
    trail = rec.of_call("c3")
    assert trail.count("tool.proposed") == 1 and trail[-1] == "tool.injected"


def test_decide_then_call_asks_the_approver_once(drive, make):
    asked = []
    rt, rec, ran = make(approver=lambda p: asked.append(p.id) or "allow-once")
    decision = drive.decide(rt, {**CALL, "id": "c4"})
    assert decision.needs_approval and asked == []
    outcome = drive.call(rt, {**CALL, "id": "c4"})
    assert outcome.ok and asked == [decision.pending.id] and len(ran) == 1
    assert rec.of_call("c4").count("tool.proposed") == 1


def test_a_bad_proposal_is_a_blocked_decision(toolhooks_make_runtime):
    rt = toolhooks_make_runtime()
    decision = rt.decide({"name": ""})
    assert decision.blocked and decision.reason.startswith("Invalid tool call:")


# -- passthrough ---------------------------------------------------------------------------------


class Interrupt(Exception):
    """A framework's control flow exception (LangGraph's GraphInterrupt, say)."""


def test_a_passthrough_exception_from_a_tool_is_recorded_and_reraised(
    drive, toolhooks_make_runtime
):
    from toolhooks.testing import EventRecorder

    rec = EventRecorder()
    rt = toolhooks_make_runtime(plugins=[rec], passthrough=[Interrupt])
    raised = Interrupt("pause here")

    def tool() -> str:
        raise raised

    rt.add_tool(tool, name="pause")
    with pytest.raises(Interrupt) as caught:
        drive.call(rt, {"name": "pause"})
    assert caught.value is raised
    (finished,) = rec.of("tool.finished")
    assert finished.data["status"] == "error"
    assert rec.names()[-1] == "tool.injected"


def test_without_passthrough_it_is_an_error_result(toolhooks_make_runtime):
    rt = toolhooks_make_runtime()
    rt.add_tool(lambda: (_ for _ in ()).throw(Interrupt("x")), name="pause")
    outcome = rt.call({"name": "pause"})
    assert outcome.status == "error" and outcome.content == "Tool 'pause' failed: Interrupt: x"
    rt.add_passthrough(Interrupt)
    with pytest.raises(Interrupt):
        rt.call({"name": "pause"})


def test_a_passthrough_exception_from_an_approver_is_reraised(drive, make):
    def approver(pending):
        raise Interrupt("ask later")

    rt, rec, ran = make(approver=approver, passthrough=(Interrupt,))
    with pytest.raises(Interrupt):
        drive.call(rt, {**CALL, "id": "c5"})
    assert ran == []
    (resolved,) = rec.of("approval.resolved")
    assert resolved.data["cancelled"] is True and resolved.data["decision"] == "deny"
    assert rec.of_call("c5")[-1] == "tool.injected"


def test_add_passthrough_rejects_non_exceptions(toolhooks_make_runtime):
    with pytest.raises(TypeError, match="passthrough expects exception types"):
        toolhooks_make_runtime().add_passthrough("GraphInterrupt")


# -- Ctrl-C at a prompt (issue 10 item 22) -------------------------------------------------------


def test_ctrl_c_while_an_approver_waits_records_the_end_of_the_call(make):
    def approver(pending):
        raise KeyboardInterrupt

    rt, rec, ran = make(approver=approver)
    with pytest.raises(KeyboardInterrupt):
        rt.call({**CALL, "id": "c6"})
    assert rec.of_call("c6")[-2:] == ["approval.resolved", "tool.injected"]
    (resolved,) = rec.of("approval.resolved")
    assert resolved.data["cancelled"] is True
    assert resolved.data["reason"] == "Approval interrupted: KeyboardInterrupt"
    assert rec.of("tool.injected")[0].data["status"] == "denied" and ran == []


def test_a_cancelled_task_waiting_for_an_approver_records_the_end_of_the_call(make):
    started = asyncio.Event()

    async def approver(pending):
        started.set()
        await asyncio.sleep(60)

    rt, rec, _ = make(approver=approver)

    async def main():
        task = asyncio.create_task(rt.acall({**CALL, "id": "c7"}))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert rec.of_call("c7")[-2:] == ["approval.resolved", "tool.injected"]


# -- ToolError -------------------------------------------------------------------------------------


def test_tool_error_content_is_shown_exactly(drive, toolhooks_make_runtime):
    rt = toolhooks_make_runtime()

    def fetch(url: str) -> str:
        raise ToolError("404: no such page")

    rt.add_tool(fetch)
    outcome = drive.call(rt, {"name": "fetch", "params": {"url": "x"}})
    assert outcome.status == "error" and outcome.content == "404: no such page"
    assert outcome.reason is None


# -- visibility ----------------------------------------------------------------------------------


class HideSecret:
    name = "hider"

    @hookimpl
    def tool_visible(self, tool, sender):
        if tool.name == "secret" and (sender is None or sender.id != "root"):
            return False
        return None


def test_a_hidden_tool_cannot_be_called(drive, toolhooks_make_runtime):
    rt = toolhooks_make_runtime(plugins=[HideSecret()])
    ran = []
    rt.add_tool(lambda: ran.append(1) or "s3cret", name="secret")
    outcome = drive.call(rt, {"name": "secret", "sender": "alice"})
    assert outcome.status == "blocked" and outcome.blocked_by == "hider"
    assert (
        outcome.reason == "Tool 'secret' is not available to this caller (hidden by plugin hider)"
    )
    assert ran == []
    assert drive.call(rt, {"name": "secret", "sender": "root"}).ok
    # Unregistered tools run through execute= are judged by name too.
    unregistered = drive.call(rt, {"name": "secret"}, execute=lambda p: "ran")
    assert unregistered.status == "blocked"


def test_is_visible(toolhooks_make_runtime):
    rt = toolhooks_make_runtime(plugins=[HideSecret()])
    rt.add_tool(lambda: "", name="secret")
    assert rt.is_visible("secret") is False
    assert rt.is_visible("secret", sender="root") is True
    assert rt.is_visible("other") is True
    assert rt.is_visible("cron", origin="external") is False


# -- content_changed ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [(None, False), ({"note": "fyi"}, False), ({"content": "[redacted]"}, True)],
)
def test_content_changed(toolhooks_make_runtime, change, expected):
    class After:
        name = "after"

        @hookimpl
        def after_tool_call(self):
            return change

    rt = toolhooks_make_runtime(plugins=[After()])
    rt.add_tool(lambda: {"secret": "x"}, name="read")
    outcome = rt.call({"name": "read"})
    assert outcome.content_changed is expected
    assert outcome.to_dict()["content_changed"] is expected


# -- grants (issue 10 item 2) -------------------------------------------------------------------


def _grant_runtime(make_runtime, gate, asked):
    rt = make_runtime(plugins=[gate], approver=lambda p: asked.append(p.id) or "allow-always")
    rt.add_tool(lambda path: "ok", name="write")
    return rt


def test_a_grant_never_answers_a_request_that_forbids_allow_always(toolhooks_make_runtime):
    class Gate:
        name = "gate"

        def __init__(self):
            self.allowed = ["allow-once", "allow-always", "deny"]

        @hookimpl
        def before_tool_call(self):
            request = {"title": "t", "description": "d", "allowed_decisions": self.allowed}
            return {"require_approval": request}

    gate, asked = Gate(), []
    rt = _grant_runtime(toolhooks_make_runtime, gate, asked)
    call = {"name": "write", "params": {"path": "x"}, "sender": "alice"}
    assert rt.call(call).approval == "allow-always" and len(asked) == 1
    assert rt.call(call).approval == "allow-always" and len(asked) == 1  # remembered
    gate.allowed = ["allow-once", "deny"]
    outcome = rt.call(call)
    assert len(asked) == 2  # asked again: the grant does not apply
    assert outcome.status == "denied"  # and allow-always is not an allowed answer here


def test_a_sender_less_grant_is_scoped_to_its_session(toolhooks_make_runtime, gate_plugin):
    asked: list[str] = []
    rt = _grant_runtime(toolhooks_make_runtime, gate_plugin(), asked)
    first = {"name": "write", "params": {"path": "x"}, "session_id": "s1"}
    assert rt.call(first).ok and len(asked) == 1
    assert rt.call(first).ok and len(asked) == 1
    assert rt.call({**first, "session_id": "s2"}).ok and len(asked) == 2
    (grant, other) = rt.approvals.grants()
    assert (grant.sender, grant.session, other.session) == (None, "s1", "s2")
    assert rt.revoke_approvals(tool="write") == 2 and rt.approvals.grants() == []


def test_runtime_signature_accepts_the_new_arguments():
    import inspect

    params = inspect.signature(Runtime).parameters
    assert "passthrough" in params and "approval_store" in params
