"""The desk and ``toolhooks serve``'s Slack callback on a team's approval (issue #42 item 5): the
desk shows votes, who is still needed, escalation and expiry, takes a decision as the signed-in
person's vote, and a signed Slack click resumes the waiting agent."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from toolhooks import Runtime, hookimpl
from toolhooks.config._settings import load_config

from .conftest import SECRETS

SIGNING = "slack-signing-secret-for-the-desk"
ADMIN = "admin-secret-token-000003"
HOSTILE = '<script>alert("x")</script>&amp;'


class Gate:
    name = "gate"
    priority = 50

    def __init__(self, timeout_s: float = 120) -> None:
        self.timeout_s = timeout_s

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "Pay " + HOSTILE, "description": "a payment",
                                     "timeout_s": self.timeout_s}}  # fmt: skip


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@pytest.fixture
def team(config: dict[str, Any]) -> dict[str, Any]:
    """The desk tests' store, with a two-person payments policy and a Slack app's secret."""
    approvals = config.setdefault("approvals", {})
    approvals.update(
        {
            "wait_s": 0,  # a call defers at once; the test that waits says so
            "people": {
                name: {"groups": ["payments"], "token": f"sha256:{_digest(secret)}",
                       "slack": f"U{name.upper()}"}
                for name, secret in SECRETS.items()
            },
            "policies": [{"name": "payments", "tools": ["pay"], "quorum": 2,
                          "approvers": ["group:payments"], "escalate_after_s": 3600,
                          "escalate_to": ["alice"], "on_expiry": "keep"}],
            "notify": {"slack": {"slack": {"bot_token": "xoxb-unused", "channel": "C0PAY",
                                           "signing_secret": SIGNING}}},
        }
    )  # fmt: skip
    return config


@pytest.fixture
def desk_client(team: dict[str, Any], tmp_path: Path):
    from fastapi.testclient import TestClient
    from toolhooks.web import CallLog, Desk, create_app, open_store
    from toolhooks.web._auth import Tokens

    loaded = load_config(team)
    store, owner = open_store(loaded)
    desk = Desk(store, CallLog(tmp_path / "events.jsonl"), loaded)
    tokens = Tokens({"admin": _digest(ADMIN)}).adding(
        {name: _digest(secret) for name, secret in SECRETS.items()}
    )
    with TestClient(create_app(desk, tokens), base_url="http://127.0.0.1") as http:
        yield http
    owner.close()


def _runtime(team: dict[str, Any], ran: list[int], gate: Gate | None = None) -> Runtime:
    def pay(amount: int) -> str:
        ran.append(amount)
        return "paid"

    return Runtime(config=team, plugins=[gate or Gate()], tools=[pay], load_entrypoints=False,
                   approver=lambda pending: "defer")  # fmt: skip
    # (a policy that needs votes waits on the store whatever this approver would answer)


def _as(client: Any, secret: str) -> dict[str, str]:
    auth = {"authorization": f"Bearer {secret}"}
    csrf = client.get("/api/me", headers=auth).json()["csrf_token"]
    return {**auth, "x-csrf-token": csrf}


def _decide(client: Any, secret: str, approval: str, decision: str, **more: Any) -> Any:
    return client.post(
        f"/api/approvals/{approval}/decision",
        json={"decision": decision, **more},
        headers=_as(client, secret),
    )


def test_the_desk_takes_each_persons_vote_and_shows_who_is_still_needed(team, desk_client):
    ran: list[int] = []
    with _runtime(team, ran) as rt:
        pending = rt.call({"name": "pay", "params": {"amount": 9}, "sender": {"id": "bot"}}).pending
        admin = _decide(desk_client, ADMIN, pending.id, "allow-once")
        assert admin.status_code == 403 and "no person" in admin.json()["detail"]
        always = _decide(desk_client, SECRETS["alice"], pending.id, "allow-always")
        assert always.status_code == 422
        alice = _decide(desk_client, SECRETS["alice"], pending.id, "allow-once",
                        digest=pending.digest)  # fmt: skip
        assert alice.status_code == 200, alice.text
        shown = alice.json()["approval"]
        assert shown["state"] == "pending"
        assert [(v["person"], v["channel"]) for v in shown["team"]["votes"]] == [("alice", "desk")]
        assert shown["team"]["still_needed"] == ["bob"]
        assert shown["team"]["on_expiry"] == "keep" and shown["team"]["escalated"] is False
        wrong = _decide(desk_client, SECRETS["bob"], pending.id, "allow-once", digest="0" * 64)
        assert wrong.status_code == 409 and "other params" in wrong.json()["detail"]

        page = desk_client.get("/", headers={"authorization": f"Bearer {SECRETS['bob']}"}).text
        assert "1 of 2 allows (alice allow via desk)" in page
        assert "may still vote: bob" in page and "kept until decided" in page
        assert "escalates to alice at" in page
        assert "<script>alert" not in page and "&lt;script&gt;alert" in page

        bob = _decide(desk_client, SECRETS["bob"], pending.id, "allow-once")
        assert bob.status_code == 200 and bob.json()["approval"]["decided_by"] == "alice, bob"
        assert rt.resume(pending.id).status == "ok"
    assert ran == [9]


def _click(user: str, approval: Any, decision: str = "toolhooks_allow", secret: str = SIGNING,
           age_s: int = 0) -> tuple[dict[str, str], bytes]:  # fmt: skip
    value = json.dumps({"a": approval.id, "d": approval.digest})
    payload = {"type": "block_actions", "user": {"id": user},
               "actions": [{"action_id": decision, "value": value}]}  # fmt: skip
    body = urlencode({"payload": json.dumps(payload)}).encode()
    sent = str(int(time.time()) - age_s)
    mac = hmac.new(secret.encode(), b"v0:" + sent.encode() + b":" + body, hashlib.sha256)
    return {
        "x-slack-request-timestamp": sent,
        "x-slack-signature": "v0=" + mac.hexdigest(),
        "content-type": "application/x-www-form-urlencoded",
    }, body


def test_the_slack_callback_needs_no_desk_token_but_slacks_signature(team, desk_client):
    with _runtime(team, []) as rt:
        pending = rt.call({"name": "pay", "params": {"amount": 1}}).pending
        for forged in (_click("UBOB", pending, secret="guess"), _click("UBOB", pending, age_s=400)):
            refused = desk_client.post("/slack/interactions", headers=forged[0], content=forged[1])
            assert refused.status_code == 401
        headers, body = _click("UBOB", pending)
        taken = desk_client.post("/slack/interactions", headers=headers, content=body)
        assert taken.status_code == 200 and taken.json()["text"] == "bob's vote counted"
        again = desk_client.post("/slack/interactions", headers=headers, content=body)
        assert again.status_code == 409
        assert [(v.person, v.channel) for v in rt.approvals.votes(pending.id)] == [("bob", "slack")]


def test_a_slack_click_resumes_the_waiting_agent(team, desk_client, record_property):
    """The figure: from the click's answer to the agent's call returning (the store's poll
    interval + 1 s is the bound; recorded, not asserted)."""
    team["approvals"]["wait_s"] = None  # the agent waits for the votes (no deferring)
    ran: list[int] = []
    done: dict[str, Any] = {}
    with _runtime(team, ran, Gate(timeout_s=60)) as rt:
        store = rt.approvals

        def agent() -> None:
            done["outcome"] = rt.call({"name": "pay", "params": {"amount": 5}})
            done["at"] = time.monotonic()

        thread = threading.Thread(target=agent)
        thread.start()
        deadline = time.monotonic() + 30
        while not store.list(states=("pending",)):
            assert time.monotonic() < deadline, done
            time.sleep(0.02)
        pending = store.list(states=("pending",))[0]
        desk_client.post("/slack/interactions", content=_click("UALICE", pending)[1],
                         headers=_click("UALICE", pending)[0])  # fmt: skip
        headers, body = _click("UBOB", pending)
        clicked = time.monotonic()
        assert (
            desk_client.post("/slack/interactions", headers=headers, content=body).json()["text"]
            == "bob's vote counted"
        )
        thread.join(60)
        assert done["outcome"].status == "ok", done["outcome"]
    latency = done["at"] - clicked
    record_property("slack_click_to_resume_s", round(latency, 3))
    print(f"slack click -> agent resumed: {latency * 1000:.0f} ms")
    assert ran == [5]
