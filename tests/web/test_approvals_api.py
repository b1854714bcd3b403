"""The JSON API against a real store and a real agent: list, decide each way, edit, single use,
expiry, big and hostile payloads. The agent (not the desk) finishes every call."""

from __future__ import annotations

import threading
import time

HOSTILE = '<script>alert("x")</script>\u202e\x1b[31m&amp;\'"'


def pause(rt, path="notes.txt", text="hello", call_id=None):
    call = {"name": "write", "params": {"path": path, "text": text}}
    if call_id:
        call["id"] = call_id
    outcome = rt.call(call)
    assert outcome.status == "pending", outcome
    return outcome


def settled(client, approval_id):
    """The outcome once the event log has the call's end (it is written every few ms)."""
    deadline = time.time() + 10
    while True:
        found = client.get(f"/api/approvals/{approval_id}/outcome").json()
        if found["result"] not in ("decided", "running") or time.time() > deadline:
            return found
        time.sleep(0.02)


def test_list_shows_waiting_newest_first_with_rewrites_and_digest(agent, api):
    rt = agent()
    first = pause(rt, "a.txt")
    second = pause(rt, "b.txt")
    rows = api().get("/api/approvals").json()
    assert [row["id"] for row in rows] == [second.pending.id, first.pending.id]
    row = rows[0]
    assert row["state"] == "pending"
    assert row["tool"] == "write" and row["plugin"] == "gate"
    assert row["params"] == {"path": "/ws/b.txt", "text": "hello"}
    assert row["rewritten"] == [
        {"field": "path", "plugin": "gate", "proposed": "b.txt", "was_absent": False,
         "value": "/ws/b.txt"}
    ]  # fmt: skip
    assert row["digest"] == second.pending.digest
    assert 0 < row["expires_in_s"] <= 86_400
    assert row["tool_schema"]["properties"]["path"]["type"] == "string"


def test_allow_once_records_who_and_the_agent_runs_exactly_the_frozen_params(agent, api):
    rt = agent()
    paused = pause(rt)
    answer = api("bob").decide(paused.pending.id, "allow-once")
    assert answer.status_code == 200, answer.text
    assert answer.json()["approval"]["decided_by"] == "bob"
    assert api().get(f"/api/approvals/{paused.pending.id}/outcome").json()["result"] == "decided"
    done = rt.resume(paused.pending.id)
    assert done.status == "ok" and done.content == "wrote 5 chars to /ws/notes.txt"
    assert done.call_id == paused.call_id
    result = settled(api(), paused.pending.id)
    assert result["result"] == "approved" and result["status"] == "ok"
    history = api().get("/api/approvals", params={"state": "history"}).json()
    assert [(r["id"], r["decision"], r["decided_by"]) for r in history] == [
        (paused.pending.id, "allow-once", "bob")
    ]


def test_allow_always_makes_a_grant_that_revoke_removes(agent, api):
    rt = agent()
    paused = pause(rt)
    assert api().decide(paused.pending.id, "allow-always").status_code == 200
    assert rt.resume(paused.pending.id).status == "ok"
    grants = api().get("/api/grants").json()
    assert [(g["plugin"], g["tool"], g["by"]) for g in grants] == [("gate", "write", "alice")]
    assert rt.call({"name": "write", "params": {"path": "x", "text": "y"}}).status == "ok"
    revoked = api().post(f"/api/grants/{grants[0]['id']}/revoke")
    assert revoked.json() == {"revoked": 1}
    assert api().get("/api/grants").json() == []
    assert rt.call({"name": "write", "params": {"path": "x", "text": "y"}}).status == "pending"
    assert api().post(f"/api/grants/{grants[0]['id']}/revoke").status_code == 404


def test_deny_with_a_reason_reaches_the_model(agent, api):
    rt = agent()
    paused = pause(rt)
    assert api().decide(paused.pending.id, "deny", reason="not today").status_code == 200
    done = rt.resume(paused.pending.id)
    assert done.status == "denied" and "not today" in done.content
    assert settled(api(), paused.pending.id)["result"] == "denied"


def test_edit_runs_the_chain_again_and_reports_each_result(agent, api):
    rt = agent()
    # Approved as edited: the edited params need no second approval (the editor saw them).
    paused = pause(rt)
    edited = {"path": "/ws/other.txt", "text": "edited"}
    answer = api().decide(paused.pending.id, "edit", params=edited)
    assert answer.status_code == 200, answer.text
    assert answer.json()["approval"]["decided_params"] == edited
    done = rt.resume(paused.pending.id)
    assert done.status == "ok" and done.content == "wrote 6 chars to /ws/other.txt"
    assert settled(api(), paused.pending.id)["result"] == "approved-as-edited"
    # Blocked: the chain refuses the edited params.
    paused = pause(rt)
    api().decide(paused.pending.id, "edit", params={"path": "/forbidden/x", "text": "t"})
    assert rt.resume(paused.pending.id).status == "blocked"
    result = settled(api(), paused.pending.id)
    assert result["result"] == "blocked" and "off limits" in result["reason"]
    # A new approval: the chain rewrote the edit again, so a human must see what would run.
    paused = pause(rt)
    api().decide(paused.pending.id, "edit", params={"path": "elsewhere.txt", "text": "t"})
    again = rt.resume(paused.pending.id)
    assert again.status == "pending" and again.pending.id != paused.pending.id
    result = settled(api(), paused.pending.id)
    assert result == {"result": "new-approval", "status": "pending", "reason": None,
                      "new_approval_id": again.pending.id}  # fmt: skip
    waiting = api().get("/api/approvals").json()
    assert waiting[0]["params"]["path"] == "/ws/elsewhere.txt"


def test_edit_refused_when_the_request_does_not_allow_it_or_gives_no_params(agent, api):
    rt = agent(allowed_decisions=["allow-once", "deny"])
    paused = pause(rt)
    refused = api().decide(paused.pending.id, "edit", params={"path": "/ws/a", "text": "b"})
    assert refused.status_code == 422 and "not allowed" in refused.json()["detail"]
    assert api().decide(paused.pending.id, "allow-always").status_code == 422
    rt2 = agent()
    other = pause(rt2, "c.txt")
    assert api().decide(other.pending.id, "edit").status_code == 422
    assert api().decide(other.pending.id, "allow-once", params={"a": 1}).status_code == 422
    assert api().get(f"/api/approvals/{other.pending.id}").json()["state"] == "pending"


def test_single_use_under_two_concurrent_deciders(agent, api):
    rt = agent()
    paused = pause(rt)
    alice, bob = api("alice"), api("bob")
    start = threading.Barrier(2)
    answers: dict[str, int] = {}

    def decide(who, decision):
        start.wait()
        answers[who.name] = who.decide(paused.pending.id, decision).status_code

    threads = [threading.Thread(target=decide, args=(alice, "allow-once")),
               threading.Thread(target=decide, args=(bob, "deny"))]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers.values()) == [200, 409]
    winner = "alice" if answers["alice"] == 200 else "bob"
    row = api().get(f"/api/approvals/{paused.pending.id}").json()
    assert row["decided_by"] == winner
    again = api().decide(paused.pending.id, "allow-once")
    assert again.status_code == 409 and "already decided" in again.json()["detail"]
    assert rt.resume(paused.pending.id).status == ("ok" if winner == "alice" else "denied")
    assert rt.resume(paused.pending.id).status == "blocked"  # the agent's side is single use too


def test_expired_approval_cannot_be_decided(agent, api, config):
    config.setdefault("approvals", {})["defer_ttl_s"] = 0.2
    rt = agent()
    paused = pause(rt)
    deadline = time.time() + 10
    while api().get(f"/api/approvals/{paused.pending.id}").json()["state"] != "expired":
        assert time.time() < deadline, "the approval never read as expired"
        time.sleep(0.05)
    refused = api().decide(paused.pending.id, "allow-once")
    assert refused.status_code == 409 and "expired" in refused.json()["detail"]
    assert api().get("/api/approvals").json() == []


def test_unknown_and_malformed_ids(api):
    assert api().get("/api/approvals/appr_nothere").status_code == 404
    assert api().decide("appr_nothere", "allow-once").status_code == 404
    assert api().get("/api/approvals/..%2Fetc").status_code in (404, 422)
    assert api().decide("x", "maybe").status_code == 422


def test_a_megabyte_of_params_is_listed_and_edited_intact(agent, api):
    rt = agent()
    big = "x" * (1 << 20)
    paused = pause(rt, text=big)
    row = api().get(f"/api/approvals/{paused.pending.id}").json()
    assert row["params"]["text"] == big
    edited = {"path": "/ws/big.txt", "text": big[:-1] + "y"}
    assert api().decide(paused.pending.id, "edit", params=edited).status_code == 200
    done = rt.resume(paused.pending.id)
    assert done.status == "ok" and done.params["text"] == edited["text"]
    too_big = {"path": "/ws/big.txt", "text": "z" * (3 << 20)}
    assert api().decide(pause(rt).pending.id, "edit", params=too_big).status_code == 413


def test_hostile_strings_come_back_as_data(agent, api):
    rt = agent(title=HOSTILE, description=HOSTILE)
    paused = pause(rt, path=HOSTILE, text=HOSTILE)
    row = api().get(f"/api/approvals/{paused.pending.id}").json()
    assert row["title"] == HOSTILE and row["description"] == HOSTILE
    assert row["params"]["text"] == HOSTILE
    answer = api().decide(paused.pending.id, "deny", reason=HOSTILE)
    assert answer.status_code == 200 and answer.json()["approval"]["reason"] == HOSTILE
    assert answer.headers["content-type"] == "application/json"
