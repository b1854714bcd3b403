"""Defer, then resume with each decision; single use; expiry; the same call id while pending."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from toolhooks import AmbiguousId, ApprovalDecision, MemoryStore, Outcome

CALL = {"name": "write", "params": {"path": "a.txt", "text": "hi"}, "session_id": "s1"}


def deferred(drive, rt, call=CALL) -> Outcome:
    outcome = drive.call(rt, call)
    assert outcome.status == "pending", outcome
    return outcome


def test_defer_gives_a_pending_outcome_and_nothing_runs(drive, make):
    rt, rec, ran = make()
    outcome = deferred(drive, rt)
    pending = outcome.pending
    assert ran == []
    assert pending.plugin == "gate" and pending.call.name == "write"
    assert dict(pending.call.params) == {"path": "/ws/a.txt", "text": "hi"}
    assert pending.proposed_params == {"path": "a.txt", "text": "hi"}
    assert pending.rewritten_by == {"path": "gate"}
    assert pending.schema["properties"]["path"] == {"title": "Path", "type": "string"}
    assert pending.id.startswith("appr_") and pending.id[5:].startswith(pending.short_id)
    assert len(pending.short_id) == 8
    # A deferred approval waits for a day by default, not for the request's 120 s timeout.
    assert time.time() + 86_000 < pending.expires_at < time.time() + 86_401
    assert outcome.approval is None and outcome.call_id == pending.call.id
    assert outcome.content == f"Approval pending: Write a file? (approval {pending.short_id})"
    assert rec.of_call(outcome.call_id) == [
        "tool.proposed",
        "hook.decision",
        "approval.requested",
        "approval.deferred",
    ]
    (event,) = rec.of("approval.deferred")
    assert event.data == {
        "approval_id": pending.id,
        "short_id": pending.short_id,
        "expires_at": pending.expires_at,
    }
    stored = rt.approvals.get(pending.id)
    assert stored.state == "pending" and stored.params == {"path": "/ws/a.txt", "text": "hi"}


@pytest.mark.parametrize("decision", ["allow-once", "allow-always"])
def test_resume_allow_runs_exactly_the_frozen_params_once(drive, make, decision):
    rt, rec, ran = make()
    first = deferred(drive, rt)
    final = drive.resume(rt, first.pending.id, decision, by="ops")
    assert final.status == "ok" and final.approval == decision
    assert final.content == "wrote 2 bytes to /ws/a.txt"
    assert (final.call_id, final.trace_id) == (first.call_id, first.trace_id)
    assert ran == [{"path": "/ws/a.txt", "text": "hi"}]
    assert final.rewritten_by == {"path": "gate"}
    trail = rec.of_call(first.call_id)
    assert trail.count("tool.proposed") == 1 and trail.count("tool.injected") == 1
    assert trail[-4:] == ["approval.resolved", "tool.started", "tool.finished", "tool.injected"]
    (resolved,) = rec.of("approval.resolved")
    assert resolved.data["decision"] == decision and resolved.data["by"] == "ops"
    assert resolved.data["approval_id"] == first.pending.id
    assert rt.approvals.get(first.pending.id).state == "consumed"


def test_resume_events_in_order(drive, make):
    rt, rec, _ = make()
    first = deferred(drive, rt)
    drive.resume(rt, first.pending.short_id, "allow-once")
    assert rec.of_call(first.call_id) == [
        "tool.proposed",
        "hook.decision",
        "approval.requested",
        "approval.deferred",
        "approval.resolved",
        "tool.started",
        "tool.finished",
        "tool.injected",
    ]


def test_resume_deny(drive, make):
    rt, rec, ran = make()
    first = deferred(drive, rt)
    final = drive.resume(rt, first.pending.id, "deny", reason="not today")
    assert final.status == "denied" and final.reason == "Denied by user: not today"
    assert final.approval == "deny" and ran == []
    assert rec.of_call(first.call_id)[-1] == "tool.injected"


def test_resume_is_single_use(drive, make):
    rt, rec, ran = make()
    first = deferred(drive, rt)
    assert drive.resume(rt, first.pending.id, "allow-once").ok
    again = drive.resume(rt, first.pending.id, "allow-once")
    assert again.status == "blocked" and again.blocked_by == "toolhooks"
    assert again.reason == f"Approval {first.pending.short_id} was already resolved"
    assert again.call_id == first.call_id
    assert len(ran) == 1
    assert rec.of_call(first.call_id).count("tool.injected") == 1


def test_resume_never_raises_for_a_bad_id(drive, make):
    rt, _, ran = make()
    unknown = drive.resume(rt, "appr_nope", "allow-once")
    assert unknown.status == "blocked" and unknown.reason == "Unknown approval 'appr_nope'"
    empty = drive.resume(rt, "", "allow-once")
    assert empty.status == "blocked" and "non-empty" in empty.reason
    assert ran == []


def test_an_ambiguous_prefix_lists_the_matches(make):
    store = MemoryStore()
    rt, _, _ = make(approval_store=store)
    ids = [rt.call({**CALL, "id": f"c{i}"}).pending.id for i in range(40)]
    # 40 random ids: some first hex digit is shared by at least two of them.
    prefix = next(p for p in "0123456789abcdef" if sum(i[5:].startswith(p) for i in ids) > 1)
    with pytest.raises(AmbiguousId) as caught:
        store.get(prefix)
    assert caught.value.matches == sorted(i for i in ids if i[5:].startswith(prefix))
    outcome = rt.resume(prefix, "allow-once")
    assert outcome.status == "blocked" and outcome.reason.startswith(
        f"approval id {prefix!r} is ambiguous: it matches appr_"
    )


def test_a_decision_outside_allowed_decisions_is_a_deny(drive, make, gate_plugin):
    rt, _, ran = make(gate=gate_plugin(allowed_decisions=["allow-once", "deny"]))
    first = deferred(drive, rt)
    final = drive.resume(rt, first.pending.id, "allow-always")
    assert final.status == "denied"
    assert final.reason == "Denied by user (decision 'allow-always' is not allowed)"
    assert ran == []
    bogus = deferred(drive, rt, {**CALL, "id": "other"})
    assert drive.resume(rt, bogus.pending.id, "maybe").status == "denied"


def test_an_expired_approval_is_denied_as_timed_out(drive, make):
    rt, rec, ran = make(config={"approvals": {"defer_ttl_s": 0.2}})
    first = deferred(drive, rt)
    deadline = time.monotonic() + 10
    while rt.approvals.get(first.pending.id).state != "expired":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    final = drive.resume(rt, first.pending.id, "allow-once")
    assert final.status == "denied" and final.reason == "Approval timed out"
    assert ran == [] and rec.of_call(first.call_id)[-1] == "tool.injected"


def test_digest_is_checked_before_running(drive, make):
    store = MemoryStore()
    rt, _, ran = make(approval_store=store)
    first = deferred(drive, rt)
    row = store.get(first.pending.id)
    # Someone changes the stored params behind the approval's back.
    store._rows[row.id] = replace(row, params={"path": "/etc/passwd", "text": "hi"})
    final = drive.resume(rt, first.pending.id, "allow-once")
    assert final.status == "blocked"
    assert final.reason == "Blocked: the params changed after they were approved (digest mismatch)"
    assert ran == []


def test_the_same_call_id_while_pending_does_not_rerun_the_chain(drive, make):
    rt, rec, ran = make()
    call = {**CALL, "id": "call-1"}
    first = deferred(drive, rt, call)
    gate = rt.get_plugin("gate")
    again = drive.call(rt, call)
    assert again.status == "pending" and again.pending.id == first.pending.id
    assert len(gate.seen) == 1 and ran == []
    # Decided meanwhile, out of band (the CLI, the desk, another process): the call finishes.
    assert rt.approvals.decide(first.pending.id, "allow-once", by="bob").state == "decided"
    done = drive.call(rt, call)
    assert done.status == "ok" and done.approval == "allow-once"
    assert ran == [{"path": "/ws/a.txt", "text": "hi"}] and len(gate.seen) == 1
    trail = rec.of_call("call-1")
    assert trail.count("tool.proposed") == 1 and trail.count("tool.injected") == 1
    assert rec.of("approval.resolved")[0].data["by"] == "bob"


def test_resume_without_a_decision_uses_the_recorded_one(drive, make):
    rt, _, ran = make()
    first = deferred(drive, rt)
    still = drive.resume(rt, first.pending.id)
    assert still.status == "pending" and ran == []
    rt.approvals.decide(first.pending.id, "deny", by="bob", reason="no")
    final = drive.resume(rt, first.pending.id)
    assert final.status == "denied" and final.reason == "Denied by user: no"


def test_resume_with_another_decision_than_the_recorded_one_runs_nothing(drive, make):
    rt, _, ran = make()
    first = deferred(drive, rt)
    rt.approvals.decide(first.pending.id, "deny", by="bob")
    clash = drive.resume(rt, first.pending.id, "allow-once")
    assert clash.status == "blocked" and "already decided (deny by bob)" in clash.reason
    assert ran == []


def test_an_approver_may_answer_defer_as_a_decision_object(drive, make):
    rt, _, _ = make(approver=lambda p: ApprovalDecision("defer"))
    assert deferred(drive, rt).pending is not None


def test_defer_is_allowed_even_when_not_listed(drive, make, gate_plugin):
    rt, _, _ = make(gate=gate_plugin(allowed_decisions=["deny"]))
    assert deferred(drive, rt).status == "pending"
