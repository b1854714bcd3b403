"""A team's approval told where people are (issue #42 item 4): a signed webhook with retries that
never stalls the agent, escalation that fires once at its time, and Slack (a local server that
speaks the Web API methods used; clicks signed exactly as Slack signs them)."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from toolhooks import Runtime, hookimpl
from toolhooks.approvals._slack_callback import interaction
from toolhooks.approvals._team import Team, VoteRefused, cast, escalate_due
from toolhooks.testing import require

from .team_receivers import SlackApi, WebhookReceiver, slack_click

SECRET = "webhook-secret-0123456789"
SIGNING = "slack-signing-secret-local"


class Gate:
    name = "gate"
    priority = 50

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "Pay?", "description": "Rule 'payments': a payment"}}


def _config(tmp_path: Path, notify: dict[str, Any], state=None, **policy: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "approvals": {
            "route": "queue",
            "db": str(tmp_path / "approvals.db"),
            "wait_s": 0,
            "people": {
                "alice": {"groups": ["payments"], "slack": "UALICE"},
                "bob": {"groups": ["payments"], "slack": "UBOB"},
                "dave": {"groups": ["oncall"], "slack": "UDAVE"},
            },
            "policies": [
                {"name": "payments", "tools": ["pay"], "approvers": ["group:payments"],
                 "quorum": 2, "notify": list(notify), **policy}
            ],
            "notify": notify,
        }
    }  # fmt: skip
    if state is not None:
        config["state"] = state
    return config


def _webhook(url: str, **more: Any) -> dict[str, Any]:
    return {"webhook": {"url": url, "secret": SECRET, "backoff_s": 0.05, **more}}


def _runtime(config: dict[str, Any], ran: list[int]) -> Runtime:
    def pay(amount: int) -> str:
        ran.append(amount)
        return "paid"

    return Runtime(plugins=[Gate()], tools=[pay], config=config, load_entrypoints=False)


def _pay(rt: Runtime, sender: str = "agent-7"):
    return rt.call({"name": "pay", "params": {"amount": 40}, "sender": {"id": sender}})


def _signed_ok(entry: dict[str, Any]) -> dict[str, Any]:
    body = entry["body"]
    expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert entry["headers"]["x-toolhooks-signature"] == expected
    return json.loads(body)


def test_the_webhook_is_signed_json_with_the_digest_and_is_retried(tmp_path: Path):
    receiver = WebhookReceiver(fail_first=2)
    try:
        ran: list[int] = []
        with _runtime(_config(tmp_path, {"ops": _webhook(receiver.url)}), ran) as rt:
            pending = _pay(rt).pending
            first = _signed_ok(receiver.wait_for(1)[0])
            assert receiver.attempts == 3  # two failures, then delivered
            assert first["event"] == "approval.requested"
            assert first["approval"]["digest"] == pending.digest
            assert first["approval"]["requester"] == "agent-7"
            assert first["still_needed"] == ["alice", "bob"]
            team = Team(rt.config)
            cast(rt.approvals, pending.id, "alice", "allow", "cli", team=team)
            vote = _signed_ok(receiver.wait_for(2)[1])
            assert vote["event"] == "approval.vote"
            assert [v["person"] for v in vote["votes"]] == ["alice"]
            assert vote["still_needed"] == ["bob"]
    finally:
        receiver.close()


def test_a_receiver_that_hangs_never_stalls_the_agent(tmp_path: Path):
    release = threading.Event()
    receiver = WebhookReceiver(hold=release)
    try:
        ran: list[int] = []
        hook = _webhook(receiver.url, timeout_s=60, retries=0)
        with _runtime(_config(tmp_path, {"ops": hook}), ran) as rt:
            outcome = _pay(rt)  # would never return if the agent waited for the receiver
            assert outcome.status == "pending"
            assert receiver.received == []  # the notification is still in flight
            team = Team(rt.config)
            cast(rt.approvals, outcome.pending.id, "alice", "allow", "cli", team=team)
            cast(rt.approvals, outcome.pending.id, "bob", "allow", "cli", team=team)
            assert rt.resume(outcome.pending.id).status == "ok"
            release.set()
            # The agent's notifier and the voters' (another queue) deliver in either order.
            events = sorted(_signed_ok(r)["event"] for r in receiver.wait_for(3))
            assert events == ["approval.requested", "approval.vote", "approval.vote"]
        assert ran == [40]
    finally:
        release.set()
        receiver.close()


def test_a_receiver_that_is_down_is_given_up_on_and_the_call_still_runs(tmp_path: Path):
    receiver = WebhookReceiver()
    url = receiver.url
    receiver.close()  # nothing listens there any more: connection refused
    ran: list[int] = []
    with _runtime(_config(tmp_path, {"ops": _webhook(url, retries=2)}), ran) as rt:
        outcome = _pay(rt)
        team = Team(rt.config)
        for person in ("alice", "bob"):
            cast(rt.approvals, outcome.pending.id, person, "allow", "cli", team=team)
        assert team.notifier(rt.approvals).drain(30)  # every attempt made and given up
        assert rt.resume(outcome.pending.id).status == "ok"
    assert ran == [40]


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_escalation_fires_once_at_its_time_and_notifies(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
):
    state = request.getfixturevalue("state_table") if backend == "redis" else None
    receiver = WebhookReceiver()
    try:
        ran: list[int] = []
        config = _config(
            tmp_path, {"ops": _webhook(receiver.url)}, state,
            escalate_after_s=1.0, escalate_to=["group:oncall"],
        )  # fmt: skip
        with _runtime(config, ran) as rt:
            pending = _pay(rt).pending
            team = Team(rt.config)
            cast(rt.approvals, pending.id, "alice", "allow", "cli", team=team)
            escalate_at = rt.approvals.get(pending.id).policy["escalate_at"]
            assert escalate_due(rt.approvals, team, now=escalate_at - 0.1) == []
            with pytest.raises(VoteRefused, match="dave may not vote"):
                cast(rt.approvals, pending.id, "dave", "allow", "cli", team=team)
            while time.time() < escalate_at:
                time.sleep(0.05)
            # Two processes' worth of escalators (each its own store connection) at once.
            fired: list[list[str]] = []
            others = [_runtime(config, ran) for _ in range(2)]
            threads = [
                threading.Thread(
                    target=lambda o=o: fired.append(escalate_due(o.approvals, Team(o.config)))
                )
                for o in others
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            assert sorted(len(f) for f in fired) == [0, 1]
            assert escalate_due(rt.approvals, team) == []  # once
            for other in others:
                other.close()
            received = [_signed_ok(r) for r in receiver.wait_for(3)]
            events = [r["event"] for r in received]
            assert events.count("approval.escalated") == 1
            escalated = next(r for r in received if r["event"] == "approval.escalated")
            assert escalated["still_needed"] == ["bob", "dave"]
            tally = cast(rt.approvals, pending.id, "dave", "allow", "cli", team=team)
            assert tally.decided and tally.row.decided_by == "alice, dave"  # alice's vote held
            assert rt.resume(pending.id).status == "ok"
        assert ran == [40]
    finally:
        receiver.close()


@pytest.fixture
def slack_api():
    require(
        importlib.util.find_spec("slack_sdk") is not None,
        "slack-sdk is not installed (the slack extra: pip install -e '.[slack]')",
    )
    api = SlackApi()
    yield api
    api.close()


def _slack_config(tmp_path: Path, api: SlackApi, state=None) -> dict[str, Any]:
    target = {"slack": {"bot_token": "xoxb-local-test", "signing_secret": SIGNING,
                        "channel": SlackApi.CHANNEL, "base_url": api.base_url}}  # fmt: skip
    return _config(tmp_path, {"payments-slack": target}, state)


def _buttons(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    actions = next(b for b in message["args"]["blocks"] if b["type"] == "actions")
    return {e["action_id"]: e for e in actions["elements"]}


def test_slack_message_click_and_update(tmp_path: Path, slack_api: SlackApi):
    ran: list[int] = []
    with _runtime(_slack_config(tmp_path, slack_api), ran) as rt:
        pending = _pay(rt).pending
        team = Team(rt.config)
        posted = slack_api.wait_for(1)[0]
        assert posted["method"] == "chat.postMessage"
        assert posted["authorization"] == "Bearer xoxb-local-test"
        text = json.dumps(posted["args"]["blocks"])
        for shown in ("`pay`", "requester agent-7", "asked by gate", "0 of 2 allows", "amount"):
            assert shown in text, shown
        buttons = _buttons(posted)
        allow = buttons["toolhooks_allow"]
        headers, body = slack_click(SIGNING, "UBOB", allow)
        reply = interaction(team, rt.approvals, headers, body, time.time())
        assert reply.status == 200 and reply.counted, reply
        votes = rt.approvals.votes(pending.id)
        assert [(v.person, v.channel, v.digest) for v in votes] == [
            ("bob", "slack", pending.digest)
        ]
        assert team.notifier(rt.approvals).drain(30)
        update = slack_api.calls("chat.update")[-1]
        assert update["args"]["ts"] == "1700000000.000001"
        assert update["args"]["channel"] == SlackApi.CHANNEL
        assert "1 of 2 allows (bob)" in json.dumps(update["args"]["blocks"])


def test_a_forged_stale_or_replayed_slack_callback_changes_nothing(
    tmp_path: Path, slack_api: SlackApi
):
    ran: list[int] = []
    with _runtime(_slack_config(tmp_path, slack_api), ran) as rt:
        pending = _pay(rt).pending
        team = Team(rt.config)
        allow = _buttons(slack_api.wait_for(1)[0])["toolhooks_allow"]
        store = rt.approvals

        forged_headers, forged_body = slack_click("not-the-signing-secret", "UBOB", allow)
        assert interaction(team, store, forged_headers, forged_body, time.time()).status == 401
        stale = slack_click(SIGNING, "UBOB", allow, timestamp=int(time.time()) - 301)
        assert interaction(team, store, *stale, time.time()).status == 401
        headers, body = slack_click(SIGNING, "UBOB", allow)
        tampered = body.replace(b"UBOB", b"UALI")  # another user, the same signature
        assert interaction(team, store, headers, tampered, time.time()).status == 401
        unsigned = {k: v for k, v in headers.items() if k != "x-slack-signature"}
        assert interaction(team, store, unsigned, body, time.time()).status == 401
        assert store.votes(pending.id) == []

        assert interaction(team, store, headers, body, time.time()).counted
        replayed = interaction(team, store, headers, body, time.time())
        assert replayed.status == 409 and not replayed.counted
        # bob's click replayed as another click of the same person changes nothing either
        assert [v.person for v in store.votes(pending.id)] == ["bob"]
        assert store.get(pending.id).state == "pending"

        stranger = slack_click(SIGNING, "UNOBODY", allow)
        reply = interaction(team, store, *stranger, time.time())
        assert reply.status == 200 and not reply.counted and "no person" in reply.text
        assert [v.person for v in store.votes(pending.id)] == ["bob"]
    assert ran == []
