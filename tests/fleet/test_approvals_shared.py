"""Pause and resume through the Redis approval store: one process defers, another finishes."""

from __future__ import annotations

from toolhooks import MemoryStore, Runtime, hookimpl
from toolhooks.stores._redis import RedisStore
from toolhooks.stores._state import SharedState


class Gate:
    name = "gate"

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "Write?", "description": "it writes"}}


def make(state_table, approver, ran: list) -> Runtime:
    store = RedisStore(SharedState(state_table["url"], state_table["key_prefix"]))
    rt = Runtime(
        plugins=[Gate()], approver=approver, approval_store=store, load_entrypoints=False, config={}
    )

    @rt.tool
    def write(path: str) -> str:
        ran.append(path)
        return f"wrote {path}"

    return rt


CALL = {"name": "write", "params": {"path": "a.txt"}, "session_id": "s1", "sender": {"id": "alice"}}


def test_deferred_in_one_runtime_decided_elsewhere_resumed_once_in_another(state_table):
    ran: list[str] = []
    a = make(state_table, lambda p: "defer", ran)
    b = make(state_table, lambda p: "deny", ran)
    first = a.call(CALL)
    assert first.status == "pending"
    desk = RedisStore(SharedState(state_table["url"], state_table["key_prefix"]))
    assert desk.decide(first.pending.short_id, "allow-once", by="ops") is None  # full id needed
    assert desk.decide(first.pending.id, "allow-once", by="ops").state == "decided"
    final = b.resume(first.pending.short_id)
    assert (final.status, final.content, final.call_id) == ("ok", "wrote a.txt", first.call_id)
    again = a.resume(first.pending.id)
    assert again.status != "ok"
    assert "already" in (again.reason or "")
    assert ran == ["a.txt"]


def test_a_grant_made_in_one_runtime_answers_in_another(state_table):
    ran: list[str] = []
    a = make(state_table, lambda p: "allow-always", ran)
    asked: list[str] = []

    def never(pending):
        asked.append(pending.id)
        return "deny"

    b = make(state_table, never, ran)
    assert a.call(CALL).status == "ok"
    assert b.call(CALL).status == "ok"
    assert asked == []
    assert b.call({**CALL, "sender": {"id": "bob"}}).status == "denied"
    assert ran == ["a.txt", "a.txt"]


def test_an_unreachable_approval_store_never_runs_the_call():
    store = RedisStore(SharedState("redis://127.0.0.1:1/0", timeout_s=0.5))
    ran: list[str] = []
    rt = Runtime(
        plugins=[Gate()],
        approver=lambda p: "defer",
        approval_store=store,
        load_entrypoints=False,
        config={},
    )

    @rt.tool
    def write(path: str) -> str:
        ran.append(path)
        return "wrote"

    outcome = rt.call(CALL)
    assert (outcome.status, outcome.blocked_by) == ("blocked", "toolhooks")
    assert (outcome.reason or "").startswith(
        "Approval store unavailable: StateUnavailable: shared state at redis://127.0.0.1:1/0 "
        "unavailable while reading the approval index: ConnectionError"
    )
    assert ran == []


def test_a_state_url_makes_the_runtime_use_the_redis_store(state_table):
    rt = Runtime(config={"state": state_table}, load_entrypoints=False)
    assert isinstance(rt.approvals, RedisStore)
    assert rt.approvals.state is rt.state
    explicit = Runtime(
        config={"state": state_table}, load_entrypoints=False, approval_store=MemoryStore()
    )
    assert isinstance(explicit.approvals, MemoryStore)
