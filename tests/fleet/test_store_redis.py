"""RedisStore, the approval store of ``[state] url``: the ApprovalStore contract on a real Redis,
single use across threads, and a wait that a decision in another connection wakes at once."""

from __future__ import annotations

import threading
import time

import pytest
from toolhooks import AmbiguousId
from toolhooks._state import SharedState
from toolhooks._store import ApprovalStore, StoredApproval
from toolhooks._store_redis import RedisStore


@pytest.fixture
def store(state_table):
    return RedisStore(SharedState(state_table["url"], state_table["key_prefix"]))


def row(approval_id: str = "appr_0123456789abcdef", **changes) -> StoredApproval:
    now = time.time()
    fields = {
        "id": approval_id,
        "short_id": approval_id[5:13],
        "call_id": "call_1",
        "trace_id": "t1",
        "session_id": "s1",
        "sender": {"id": "alice", "roles": ["dev"]},
        "tool": "write",
        "params": {"path": "/ws/a.txt", "big": 2**63 + 1, "empty": [], "nested": {"x": 1.5}},
        "proposed_params": {"path": "a.txt"},
        "rewritten_by": {"path": "gate"},
        "schema": {"type": "object"},
        "plugin": "gate",
        "title": "Write?",
        "description": "it writes",
        "allowed_decisions": ("allow-once", "deny", "edit"),
        "digest": "d" * 64,
        "created_at": now,
        "expires_at": now + 3600,
    }
    fields.update(changes)
    return StoredApproval(**fields)


def test_it_is_an_approval_store(store):
    assert isinstance(store, ApprovalStore)


def test_a_row_comes_back_exactly_as_written(store):
    written = row()
    store.add(written)
    assert store.get(written.id) == written
    assert store.get(written.id).params["big"] == 2**63 + 1  # no float rounding on the way


def test_short_ids_and_prefixes_find_a_row_and_ambiguity_lists_the_matches(store):
    store.add(row("appr_aaaa1111bbbb"))
    store.add(row("appr_aaaa2222cccc", call_id="call_2"))
    assert store.get("aaaa1111").id == "appr_aaaa1111bbbb"
    assert store.get("appr_aaaa2222").id == "appr_aaaa2222cccc"
    with pytest.raises(AmbiguousId) as caught:
        store.get("aaaa")
    assert caught.value.matches == ["appr_aaaa1111bbbb", "appr_aaaa2222cccc"]
    assert store.get("ffff") is None
    assert store.get("") is None


def test_adding_the_same_id_again_only_moves_a_pending_deadline(store):
    first = row()
    store.add(first)
    store.add(row(expires_at=first.expires_at + 100, title="changed"))
    again = store.get(first.id)
    assert again.expires_at == first.expires_at + 100 and again.title == "Write?"


def test_decide_then_consume_once(store):
    store.add(row())
    decided = store.decide(row().id, "edit", params={"path": "/ws/b.txt"}, by="ops", reason="ok")
    assert (decided.state, decided.decision, decided.decided_params, decided.decided_by) == (
        "decided",
        "edit",
        {"path": "/ws/b.txt"},
        "ops",
    )
    assert decided.reason == "ok" and decided.decided_at is not None
    assert store.decide(row().id, "deny") is None  # not pending any more
    consumed = store.consume(row().id)
    assert consumed.state == "consumed" and consumed.consumed_at is not None
    assert store.consume(row().id) is None
    assert store.for_call("call_1") is None  # consumed rows are not a call's approval
    assert store.decide("appr_nope", "deny") is None and store.consume("appr_nope") is None


def test_an_expired_row_reads_expired_and_cannot_be_decided(store):
    old = row(expires_at=time.time() - 1)
    store.add(old)
    assert store.get(old.id).state == "expired"
    assert store.decide(old.id, "allow-once") is None
    assert [r.state for r in store.list(states=["expired"])] == ["expired"]


def test_list_newest_first_with_states_and_limit(store):
    now = time.time()
    for index in range(5):
        store.add(row(f"appr_{index:04d}000000", call_id=f"c{index}", created_at=now + index))
    store.decide("appr_0004000000", "deny")
    assert [r.id for r in store.list(states=["pending"], limit=3)] == [
        "appr_0003000000",
        "appr_0002000000",
        "appr_0001000000",
    ]
    assert [r.state for r in store.list()][:2] == ["decided", "pending"]


def test_for_call_and_reusable_find_the_newest_open_row(store):
    now = time.time()
    store.add(row("appr_1111000000", created_at=now))
    store.add(row("appr_2222000000", created_at=now + 1))
    assert store.for_call("call_1").id == "appr_2222000000"
    assert store.reusable("d" * 64, "gate").id == "appr_2222000000"
    assert store.reusable("d" * 64, "other") is None


def test_consume_is_exactly_once_across_many_threads(store, state_table):
    store.add(row())
    stores = [
        RedisStore(SharedState(state_table["url"], state_table["key_prefix"])) for _ in range(8)
    ]
    wins: list[object] = []
    barrier = threading.Barrier(8)

    def race(mine: RedisStore) -> None:
        barrier.wait()
        got = mine.consume(row().id)
        if got is not None:
            wins.append(got)

    threads = [threading.Thread(target=race, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1


def test_a_decision_wakes_a_waiter_at_once(store):
    store.add(row())
    woke: list[StoredApproval | None] = []
    waiter = threading.Thread(target=lambda: woke.append(store.wait(row().id, 60)))
    waiter.start()
    deadline = time.monotonic() + 10
    while store.state.client.pubsub_numsub(store._key("chan", row().id))[0][1] == 0:
        assert time.monotonic() < deadline, "the waiter never subscribed"
        time.sleep(0.01)
    store.decide(row().id, "allow-once", by="ops")
    waiter.join(timeout=10)  # far below the 60 s the waiter would otherwise sleep
    assert not waiter.is_alive()
    assert woke[0] is not None and woke[0].state == "decided"


def test_wait_returns_the_pending_row_at_its_timeout(store):
    store.add(row())
    assert store.wait(row().id, 0.05).state == "pending"
    assert store.wait("appr_nope", 0.05) is None


def test_grants_by_sender_and_by_session(store):
    store.grant(plugin="gate", tool="write", sender="alice", session="s1", by="ops")
    store.grant(plugin="gate", tool="write", sender="alice", session="s2", by="ops")  # same scope
    store.grant(plugin="gate", tool="exec", sender=None, session="s9", by=None)
    assert len(store.grants()) == 2
    assert store.is_granted(plugin="gate", tool="write", sender="alice", session="other")
    assert not store.is_granted(plugin="gate", tool="write", sender="bob", session="s1")
    assert store.is_granted(plugin="gate", tool="exec", sender=None, session="s9")
    assert not store.is_granted(plugin="gate", tool="exec", sender=None, session="s1")
    assert store.revoke(tool="write") == 1
    assert not store.is_granted(plugin="gate", tool="write", sender="alice", session="s1")
    store.grant(plugin="gate", tool="write", sender="alice", session=None, by="ops")
    assert store.is_granted(plugin="gate", tool="write", sender="alice", session=None)


def test_purge_drops_rows_past_retention_and_keeps_pending_ones(store):
    store.retention_s = 10
    now = time.time()
    store.add(row("appr_0001000000", call_id="c1", created_at=now, expires_at=now + 7200))
    store.add(row("appr_0002000000", call_id="c2", created_at=now, expires_at=now + 3600))
    store.consume("appr_0002000000")
    # A consumed row counts from its last moment (here its deadline) plus the retention.
    assert store.purge(now + 3605) == 0
    assert store.purge(now + 3620) == 1
    assert [r.id for r in store.list()] == ["appr_0001000000"]
