"""Approvals: decisions, remembered grants, timeouts, no route, and the digest."""

from __future__ import annotations

import asyncio
import time

import pytest
from toolhooks import ApprovalDecision, hookimpl
from toolhooks.records._frozen import params_digest


class Asks:
    name = "asks"

    def __init__(self, **request):
        self.request = {"title": "Run it?", "description": "please", **request}

    @hookimpl
    def before_tool_call(self):
        return {"require_approval": self.request}


def call(rt, params=None, sender="alice", tool="deploy"):
    ran = []
    outcome = rt.call(
        {"name": tool, "params": params or {"env": "prod"}, "sender": sender, "session_id": "s"},
        execute=lambda p: ran.append(p) or "deployed",
    )
    return outcome, ran


@pytest.mark.parametrize(
    "decision", ["allow-once", "allow-always", ApprovalDecision("allow-once", by="ops")]
)
def test_allow_executes_with_the_frozen_params(toolhooks_make_runtime, decision):
    rt = toolhooks_make_runtime(plugins=[Asks()], approver=lambda p: decision)
    outcome, ran = call(rt)
    assert outcome.status == "ok" and ran == [{"env": "prod"}]


def test_pending_approval_fields(toolhooks_make_runtime):
    seen = []
    rt = toolhooks_make_runtime(
        plugins=[Asks(timeout_s=30)], approver=lambda p: seen.append(p) or "deny"
    )
    before = time.time()
    call(rt)
    (pending,) = seen
    assert pending.id.startswith("appr_") and pending.plugin == "asks"
    assert pending.call.name == "deploy" and dict(pending.call.params) == {"env": "prod"}
    assert pending.request.title == "Run it?" and pending.request.timeout_s == 30
    assert before + 29 < pending.expires_at < time.time() + 31
    assert pending.digest == params_digest("deploy", {"env": "prod"}, "alice", "s")


def test_what_runs_is_what_was_approved(toolhooks_make_runtime):
    seen = []
    rt = toolhooks_make_runtime(plugins=[Asks()], approver=lambda p: seen.append(p) or "allow-once")
    outcome, ran = call(rt, {"env": "prod", "tags": ["a", "b"]})
    assert outcome.status == "ok"
    (pending,) = seen
    assert ran == [dict(pending.call.params)]
    assert params_digest("deploy", ran[0], "alice", "s") == pending.digest
    # The approver cannot edit what it was shown.
    with pytest.raises(TypeError):
        pending.call.params["tags"].append("c")


def test_allow_always_is_remembered_per_plugin_tool_sender(toolhooks_make_runtime):
    asked = []
    rt = toolhooks_make_runtime(
        plugins=[Asks()], approver=lambda p: asked.append(p.call.sender.id) or "allow-always"
    )
    assert call(rt)[0].status == "ok"
    assert call(rt, {"env": "staging"})[0].approval == "allow-always"
    assert asked == ["alice"]
    call(rt, sender="bob")
    call(rt, tool="other")
    assert asked == ["alice", "bob", "alice"]
    assert rt.revoke_approvals(tool="deploy", sender="alice") == 1
    call(rt)
    call(rt, sender="bob")
    assert asked == ["alice", "bob", "alice", "alice"]


def test_deny(toolhooks_make_runtime):
    rt = toolhooks_make_runtime(plugins=[Asks()], approver=lambda p: "deny")
    outcome, ran = call(rt)
    assert (outcome.status, outcome.reason, outcome.content, ran) == (
        "denied",
        "Denied by user",
        "Denied by user",
        [],
    )
    assert outcome.approval == "deny"


@pytest.mark.parametrize("answer", ["allow-always", "yes", None, 3])
def test_decision_outside_allowed_is_a_deny(toolhooks_make_runtime, answer):
    rt = toolhooks_make_runtime(
        plugins=[Asks(allowed_decisions=["allow-once", "deny"])], approver=lambda p: answer
    )
    outcome, ran = call(rt)
    assert outcome.status == "denied" and outcome.reason.startswith("Denied by user") and ran == []


def test_timeout_sync_and_async_approver(toolhooks_make_runtime):
    rt = toolhooks_make_runtime(
        plugins=[Asks(timeout_s=0.01)], approver=lambda p: time.sleep(3) or "allow-once"
    )
    started = time.monotonic()
    outcome, ran = call(rt)
    assert outcome.status == "denied" and outcome.reason == "Approval timed out" and ran == []
    assert time.monotonic() - started < 2.5  # clamped to the 1 s minimum, not 3 s

    async def never(pending):
        await asyncio.sleep(30)

    rt = toolhooks_make_runtime(plugins=[Asks(timeout_s=1)], approver=never)
    outcome, _ = call(rt)
    assert outcome.reason == "Approval timed out"


def test_no_route_denies_at_once(toolhooks_make_runtime):
    rt = toolhooks_make_runtime(plugins=[Asks()])
    started = time.monotonic()
    outcome, ran = call(rt)
    assert (
        outcome.status == "denied" and outcome.reason == "Approval unavailable (no approval route)"
    )
    assert time.monotonic() - started < 0.5 and ran == []


def test_approver_that_raises_denies(toolhooks_make_runtime):
    def broken(pending):
        raise ConnectionError("pager down")

    rt = toolhooks_make_runtime(plugins=[Asks()], approver=broken)
    outcome, ran = call(rt)
    assert outcome.status == "denied" and "pager down" in outcome.reason and ran == []


def test_async_approver_in_acall(toolhooks_make_runtime):
    async def approver(pending):
        await asyncio.sleep(0)
        return "allow-once"

    rt = toolhooks_make_runtime(plugins=[Asks()], approver=approver)
    outcome = asyncio.run(rt.acall({"name": "deploy"}, execute=lambda p: "ok"))
    assert outcome.status == "ok"


def test_timeout_is_clamped():
    from toolhooks import ApprovalRequest

    assert ApprovalRequest(title="t", description="d", timeout_s=0).timeout_s == 1
    assert ApprovalRequest(title="t", description="d", timeout_s=10_000).timeout_s == 600
    with pytest.raises(ValueError):
        ApprovalRequest(title="t" * 81, description="d")
    with pytest.raises(ValueError):
        ApprovalRequest(title="t", description="d" * 513)


def test_params_must_validate_before_approval_is_asked(toolhooks_make_runtime):
    asked = []
    rt = toolhooks_make_runtime(
        plugins=[Asks()], approver=lambda p: asked.append(p) or "allow-once"
    )

    @rt.tool
    def deploy(env: str) -> str:
        return env

    outcome = rt.call({"name": "deploy", "params": {"env": 5}})
    assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks" and asked == []


def test_openclaw_style_request_fields_are_accepted(toolhooks_make_runtime):
    seen = []

    class OpenClawStyle:
        name = "oc"

        @hookimpl
        def before_tool_call(self):
            return {
                "requireApproval": {
                    "title": "t",
                    "description": "d",
                    "timeoutMs": 5000,
                    "timeoutBehavior": "deny",
                    "severity": "info",
                }
            }

    rt = toolhooks_make_runtime(
        plugins=[OpenClawStyle()], approver=lambda p: seen.append(p.request) or "allow-once"
    )
    assert call(rt)[0].status == "ok"
    assert seen[0].timeout_s == 5 and seen[0].severity == "info"
