"""Approvals for teams (issue #42): quorum of distinct people, one deny decides, the requester
never approves, votes bound to the digest, expiry as deny or keep; on every approval store."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from toolhooks import Runtime, hookimpl
from toolhooks.approvals._team import VoteRefused, cast
from toolhooks.testing import EventRecorder


class Gate:
    name = "gate"
    priority = 50

    def __init__(self, **request: Any) -> None:
        self.request = {
            "title": "Pay?",
            "description": "a payment",
            "allowed_decisions": ["allow-once", "allow-always", "deny", "edit"],
            **request,
        }

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": self.request}


PEOPLE = {
    "alice": {"groups": ["payments"]},
    "bob": {"groups": ["payments"]},
    "carol": {"groups": ["payments"]},
    "dave": {"groups": ["oncall"]},
}


def team_config(tmp_path: Path, state: dict[str, Any] | None = None, **policy: Any) -> dict:
    approvals: dict[str, Any] = {
        "route": "queue",
        "db": str(tmp_path / "approvals.db"),
        "wait_s": 0,
        "poll_interval_s": 0.05,
        "people": PEOPLE,
        "policies": [
            {"name": "payments", "tools": ["pay"], "approvers": ["group:payments"],
             "quorum": 2, **policy}
        ],
    }  # fmt: skip
    config: dict[str, Any] = {"approvals": approvals}
    if state is not None:
        config["state"] = state
    return config


@pytest.fixture(params=["sqlite", "redis"])
def config_for(request: pytest.FixtureRequest, tmp_path: Path):
    """A config maker over a SQLite file or a real Redis (its own key prefix)."""
    if request.param == "sqlite":
        return lambda **policy: team_config(tmp_path, **policy)
    state = request.getfixturevalue("state_table")
    return lambda **policy: team_config(tmp_path, state, **policy)


def make_runtime(config: dict[str, Any], ran: list[dict[str, Any]], recorder=None) -> Runtime:
    def pay(amount: int, to: str) -> str:
        ran.append({"amount": amount, "to": to})
        return f"paid {amount} to {to}"

    plugins: list[Any] = [Gate()]
    if recorder is not None:
        plugins.append(recorder)
    return Runtime(plugins=plugins, tools=[pay], config=config, load_entrypoints=False)


def pay_call(sender: str = "agent-7", amount: int = 100) -> dict[str, Any]:
    return {"name": "pay", "params": {"amount": amount, "to": "acme"}, "sender": {"id": sender}}


def test_two_distinct_people_are_needed_and_the_same_person_twice_is_one_vote(config_for):
    ran: list[dict[str, Any]] = []
    recorder = EventRecorder()
    with make_runtime(config_for(), ran, recorder) as rt:
        outcome = rt.call(pay_call())
        assert outcome.status == "pending"
        approval = outcome.pending.id
        first = cast(rt.approvals, approval, "alice", "allow", "cli")
        assert first.counted and not first.decided
        again = cast(rt.approvals, approval, "alice", "allow", "desk")
        assert not again.counted and not again.decided
        assert [v.person for v in again.votes] == ["alice"]
        assert rt.resume(approval).status == "pending"  # one person is not a quorum
        assert ran == []
        last = cast(rt.approvals, approval, "bob", "allow", "cli")
        assert last.decided and last.row.decision == "allow-once"
        assert last.row.decided_by == "alice, bob"
        done = rt.resume(approval)
        assert done.status == "ok", done
        assert rt.resume(approval).status == "blocked"  # once
    assert ran == [{"amount": 100, "to": "acme"}]
    votes = recorder.of("approval.vote")
    assert [(e.data["person"], e.data["vote"], e.data["channel"]) for e in votes] == [
        ("alice", "allow", "cli"),
        ("bob", "allow", "cli"),
    ]
    names = [e.event for e in recorder.events]
    assert names.index("approval.vote") < names.index("approval.resolved")


def test_one_deny_decides(config_for):
    ran: list[dict[str, Any]] = []
    with make_runtime(config_for(), ran) as rt:
        approval = rt.call(pay_call()).pending.id
        cast(rt.approvals, approval, "alice", "allow", "cli")
        tally = cast(rt.approvals, approval, "bob", "deny", "desk", reason="not this vendor")
        assert tally.decided and tally.row.decision == "deny" and tally.row.decided_by == "bob"
        with pytest.raises(VoteRefused, match="already decided"):
            cast(rt.approvals, approval, "carol", "allow", "cli")
        outcome = rt.resume(approval)
    assert outcome.status == "denied" and "not this vendor" in (outcome.reason or "")
    assert ran == []


def test_the_requester_cannot_approve_their_own_call(config_for):
    ran: list[dict[str, Any]] = []
    with make_runtime(config_for(), ran) as rt:
        approval = rt.call(pay_call(sender="alice")).pending.id
        with pytest.raises(VoteRefused, match="alice asked for this call"):
            cast(rt.approvals, approval, "alice", "allow", "desk")
        assert rt.approvals.votes(approval) == []
        cast(rt.approvals, approval, "bob", "allow", "cli")
        assert rt.resume(approval).status == "pending"  # alice's refused vote did not count
        # A deny by the requester stands: withdrawing one's own request is always allowed.
        assert cast(rt.approvals, approval, "alice", "deny", "cli").decided
    with make_runtime(config_for(requester_may_approve=True), ran) as rt:
        approval = rt.call(pay_call(sender="alice", amount=5)).pending.id
        assert cast(rt.approvals, approval, "alice", "allow", "cli").counted


def test_an_outsider_or_a_decision_given_to_resume_cannot_decide(config_for):
    ran: list[dict[str, Any]] = []
    with make_runtime(config_for(), ran) as rt:
        approval = rt.call(pay_call()).pending.id
        with pytest.raises(VoteRefused, match="dave may not vote"):
            cast(rt.approvals, approval, "dave", "allow", "cli")
        with pytest.raises(VoteRefused, match="may not vote"):
            cast(rt.approvals, approval, "mallory", "allow", "cli")
        refused = rt.resume(approval, "allow-once", by="admin")
        assert refused.status == "blocked" and "decided by votes" in (refused.reason or "")
        assert rt.approvals.get(approval).state == "pending"
    assert ran == []


def test_a_vote_on_an_edited_request_does_not_count_for_the_original(config_for):
    ran: list[dict[str, Any]] = []
    with make_runtime(config_for(), ran) as rt:
        original = rt.call(pay_call(amount=100)).pending
        cast(rt.approvals, original.id, "alice", "allow", "cli")
        edit = cast(
            rt.approvals, original.id, "bob", "edit", "desk", params={"amount": 90, "to": "acme"}
        )
        assert edit.decided and edit.row.decision == "edit"
        again = rt.resume(original.id)
        assert again.status == "pending"  # the edited call is a new request
        edited = again.pending
        assert edited.id != original.id and edited.digest != original.digest
        assert rt.approvals.votes(edited.id) == []  # alice's allow stayed with the original
        with pytest.raises(VoteRefused, match="other params"):
            cast(rt.approvals, edited.id, "alice", "allow", "cli", digest=original.digest)
        assert rt.approvals.votes(edited.id) == []
        cast(rt.approvals, edited.id, "alice", "allow", "cli")
        assert rt.resume(edited.id).status == "pending"  # the editor's edit is no vote for it
        cast(rt.approvals, edited.id, "carol", "allow", "cli")
        assert rt.resume(edited.id).status == "ok"
    assert ran == [{"amount": 90, "to": "acme"}]


def test_expiry_denies_by_default(tmp_path: Path):
    ran: list[dict[str, Any]] = []
    config = team_config(tmp_path)
    config["approvals"]["defer_ttl_s"] = 0.3
    with make_runtime(config, ran) as rt:
        approval = rt.call(pay_call()).pending.id
        cast(rt.approvals, approval, "alice", "allow", "cli")
        deadline = time.monotonic() + 30
        while rt.approvals.get(approval).state != "expired":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with pytest.raises(VoteRefused, match="expired"):
            cast(rt.approvals, approval, "bob", "allow", "cli")
        outcome = rt.resume(approval)
    assert outcome.status == "denied" and outcome.reason == "Approval timed out"
    assert ran == []


def test_expiry_keep_waits_until_the_votes_come(tmp_path: Path):
    ran: list[dict[str, Any]] = []
    config = team_config(tmp_path, on_expiry="keep")
    config["approvals"]["defer_ttl_s"] = 0.3
    with make_runtime(config, ran) as rt:
        approval = rt.call(pay_call()).pending.id
        time.sleep(0.6)  # past defer_ttl_s: a kept approval is still pending
        row = rt.approvals.get(approval)
        assert row.state == "pending" and row.expires_at > time.time() + 365 * 86_400
        cast(rt.approvals, approval, "alice", "allow", "cli")
        cast(rt.approvals, approval, "bob", "allow", "cli")
        assert rt.resume(approval).status == "ok"
    assert len(ran) == 1


@pytest.mark.parametrize("on_expiry", ["deny", "keep"])
def test_an_agent_waiting_for_votes_denies_or_defers_at_its_timeout(tmp_path, on_expiry):
    ran: list[dict[str, Any]] = []
    config = team_config(tmp_path, on_expiry=on_expiry)
    config["approvals"]["wait_s"] = None  # wait for the votes, up to the request's timeout

    def pay(amount: int, to: str) -> str:
        ran.append({"amount": amount})
        return "paid"

    with Runtime(plugins=[Gate(timeout_s=1)], tools=[pay], config=config,
                 load_entrypoints=False) as rt:  # fmt: skip
        outcome = rt.call(pay_call())
        if on_expiry == "deny":
            assert outcome.status == "denied" and outcome.reason == "Approval timed out"
        else:
            assert outcome.status == "pending"
            approval = outcome.pending.id
            assert rt.approvals.get(approval).state == "pending"
            cast(rt.approvals, approval, "alice", "allow", "cli")
            cast(rt.approvals, approval, "carol", "allow", "cli")
            assert rt.resume(approval).status == "ok"
    assert len(ran) == (1 if on_expiry == "keep" else 0)


def test_no_policy_for_the_tool_means_one_person_decides(tmp_path: Path):
    ran: list[dict[str, Any]] = []
    config = team_config(tmp_path)
    config["approvals"]["policies"][0]["tools"] = ["something-else"]
    with make_runtime(config, ran) as rt:
        approval = rt.call(pay_call()).pending.id
        assert rt.approvals.get(approval).policy is None
        with pytest.raises(VoteRefused, match="one person decides"):
            cast(rt.approvals, approval, "alice", "allow", "cli")
        assert rt.resume(approval, "allow-once", by="alice").status == "ok"
    assert len(ran) == 1


def test_the_agents_own_prompt_still_answers_a_one_person_policy(tmp_path: Path):
    ran: list[dict[str, Any]] = []
    config = team_config(tmp_path, quorum=1)

    def pay(amount: int, to: str) -> str:
        ran.append({"amount": amount})
        return "paid"

    asked: list[str] = []

    def prompt(pending):  # Claude Code's ask, a terminal: the agent's own way to ask
        asked.append(pending.call.name)
        return "allow-once"

    with Runtime(plugins=[Gate()], tools=[pay], config=config, approver=prompt,
                 load_entrypoints=False) as rt:  # fmt: skip
        assert rt.call(pay_call()).status == "ok"
    assert asked == ["pay"] and len(ran) == 1


def test_a_prompt_cannot_answer_a_policy_that_needs_votes(tmp_path: Path):
    ran: list[dict[str, Any]] = []
    config = team_config(tmp_path)

    def pay(amount: int, to: str) -> str:
        ran.append({"amount": amount})
        return "paid"

    with Runtime(plugins=[Gate()], tools=[pay], config=config,
                 approver=lambda pending: "allow-once", load_entrypoints=False) as rt:  # fmt: skip
        outcome = rt.call(pay_call())
        assert outcome.status == "pending"  # waits for two people's votes instead
        decided = rt.decide({**pay_call(amount=3), "id": "call-ask-1"})
        assert decided.status == "pending"
        assert rt.ask(decided.pending.id) == "defer"  # Runtime.ask: one answer is no quorum
    assert ran == []
