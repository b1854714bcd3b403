"""Pause and resume through the Redis approval store: one process defers, another finishes."""

from __future__ import annotations

import pytest
from toolhooks import MemoryStore, Runtime, SQLiteStore, ToolCall, hookimpl
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


@pytest.mark.parametrize(
    ("call_id", "step"),
    [
        # an id the caller gives may have been paused by another process: the store is asked
        ("c-given", "reading the approval index"),
        # an id made for the call: nothing to ask until the approval step, which fails closed
        (None, "reading"),
    ],
)
def test_an_unreachable_approval_store_never_runs_the_call(call_id, step):
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

    outcome = rt.call({**CALL, "id": call_id})
    assert (outcome.status, outcome.blocked_by) == ("blocked", "toolhooks")
    assert (outcome.reason or "").startswith(
        "Approval store unavailable: StateUnavailable: shared state at redis://127.0.0.1:1/0 "
        f"unavailable while {step}"
    )
    assert "ConnectionError" in (outcome.reason or "")
    assert ran == []
    decision = rt.decide({**CALL, "id": None})
    assert decision.status == "blocked"
    assert (decision.reason or "").startswith("Approval store unavailable: StateUnavailable")


class CountingStore(SQLiteStore):
    """A real SQLite store that counts how often a call's id is looked up."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.lookups: list[str] = []

    def for_call(self, call_id: str):
        self.lookups.append(call_id)
        return super().for_call(call_id)


def test_a_shared_store_is_not_asked_about_an_id_made_for_the_call(tmp_path):
    store = CountingStore(str(tmp_path / "approvals.db"))
    rt = Runtime(load_entrypoints=False, config={}, approval_store=store)

    @rt.tool
    def read(path: str) -> str:
        return "text"

    assert rt.call({"name": "read", "params": {"path": "a"}}).status == "ok"
    assert rt.call(ToolCall(name="read", params={"path": "a"}, id="c1")).status == "ok"
    assert rt.call({"name": "read", "params": {"path": "a"}, "id": "c2"}).status == "ok"
    assert store.lookups == ["c1", "c2"]  # a given id may have been paused elsewhere


def test_a_state_url_makes_the_runtime_use_the_redis_store(state_table):
    rt = Runtime(config={"state": state_table}, load_entrypoints=False)
    assert isinstance(rt.approvals, RedisStore)
    assert rt.approvals.state is rt.state
    explicit = Runtime(
        config={"state": state_table}, load_entrypoints=False, approval_store=MemoryStore()
    )
    assert isinstance(explicit.approvals, MemoryStore)
