"""The ApprovalStore contract, the same for every store: memory, a SQLite file, a real Redis.

Each test runs once per store. "Another handle" is what another thread or process would open:
the same object for memory (it is per process), a second SQLiteStore on the same file, a second
RedisStore on the same server and prefix.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
from toolhooks import AmbiguousId
from toolhooks.stores._contract import ApprovalStore, StoredApproval
from toolhooks.stores._memory import MemoryStore
from toolhooks.stores._sqlite import SQLiteStore
from toolhooks.testing import require

REDIS_URL = os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _redis_up() -> bool:
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


Opener = Callable[[], ApprovalStore]


@pytest.fixture(params=["memory", "sqlite", "redis"])
def opener(request, tmp_path) -> Iterator[Opener]:
    """A function that opens another handle on one store (see the module docstring)."""
    if request.param == "memory":
        shared = MemoryStore()
        yield lambda: shared
    elif request.param == "sqlite":
        opened: list[SQLiteStore] = []

        def sqlite() -> SQLiteStore:
            opened.append(SQLiteStore(tmp_path / "approvals.db", poll_interval_s=0.01))
            return opened[-1]

        yield sqlite
        for store in opened:
            store.close()
    else:
        require(_redis_up(), f"no Redis server at {REDIS_URL} (set TOOLHOOKS_TEST_REDIS_URL)")
        import redis
        from toolhooks.stores._redis import RedisStore
        from toolhooks.stores._state import SharedState

        prefix = f"toolhooks-test-{uuid.uuid4().hex[:12]}"
        yield lambda: RedisStore(SharedState(REDIS_URL, prefix))
        client = redis.Redis.from_url(REDIS_URL)
        try:
            keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


@pytest.fixture
def store(opener: Opener) -> ApprovalStore:
    return opener()


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
        "description": "it writes\n\x1b[2J",
        "allowed_decisions": ("allow-once", "deny", "edit"),
        "digest": "d" * 64,
        "created_at": now,
        "expires_at": now + 3600,
        "quiet": [{"plugin": "observer", "hook": "before_tool_call", "priority": 10}],
    }
    fields.update(changes)
    return StoredApproval(**fields)


def test_it_is_an_approval_store(store):
    assert isinstance(store, ApprovalStore)


def test_a_row_comes_back_exactly_as_written_in_another_handle(store, opener):
    written = row(params={"path": "/ws/a.txt", "big": 2**63 + 1, "odd": "\ud800 é"})
    store.add(written)
    again = opener().get(written.id)
    assert again == written
    assert again.params["big"] == 2**63 + 1  # no float rounding on the way
    assert again.quiet == written.quiet  # a resume elsewhere lists the first screening's quiet


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
    assert store.get("%") is None and store.get("_") is None  # no pattern characters


def test_adding_the_same_id_again_only_moves_a_pending_deadline(store):
    first = row()
    store.add(first)
    store.add(row(expires_at=first.expires_at + 100, title="changed"))
    again = store.get(first.id)
    assert again.expires_at == first.expires_at + 100 and again.title == "Write?"
    store.decide(first.id, "deny")
    store.add(row(expires_at=first.expires_at + 500))
    assert store.get(first.id).expires_at == first.expires_at + 100  # decided: left alone


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
    assert consumed.decision == "edit"
    assert store.consume(row().id) is None
    assert store.for_call("call_1") is None  # consumed rows are not a call's approval
    assert store.decide("appr_nope", "deny") is None and store.consume("appr_nope") is None


def test_an_expired_row_reads_expired_and_cannot_be_decided(store):
    old = row(expires_at=time.time() - 1)
    store.add(old)
    assert store.get(old.id).state == "expired"
    assert store.decide(old.id, "allow-once") is None
    assert [r.state for r in store.list(states=["expired"])] == ["expired"]
    assert store.list(states=["pending"]) == []
    assert store.reusable("d" * 64, "gate") is None


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
    assert [r.id for r in store.list(states=["decided", "consumed"])] == ["appr_0004000000"]


def test_for_call_and_reusable_find_the_newest_open_row(store):
    now = time.time()
    store.add(row("appr_1111000000", created_at=now))
    store.add(row("appr_2222000000", created_at=now + 1))
    assert store.for_call("call_1").id == "appr_2222000000"
    assert store.reusable("d" * 64, "gate").id == "appr_2222000000"
    assert store.reusable("d" * 64, "other") is None
    store.consume("appr_2222000000")
    assert store.reusable("d" * 64, "gate").id == "appr_1111000000"


def test_consume_is_exactly_once_across_many_threads(store, opener):
    store.add(row())
    handles = [opener() for _ in range(8)]
    wins: list[object] = []
    barrier = threading.Barrier(8)

    def race(mine: ApprovalStore) -> None:
        barrier.wait()
        got = mine.consume(row().id)
        if got is not None:
            wins.append(got)

    threads = [threading.Thread(target=race, args=(h,)) for h in handles]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1


def test_decide_is_exactly_once_across_threads(store, opener):
    store.add(row())
    handles = [opener() for _ in range(6)]
    wins: list[str] = []
    barrier = threading.Barrier(6)

    def race(index: int, mine: ApprovalStore) -> None:
        barrier.wait()
        if mine.decide(row().id, "allow-once", by=f"op{index}") is not None:
            wins.append(f"op{index}")

    threads = [threading.Thread(target=race, args=(i, h)) for i, h in enumerate(handles)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1 and store.get(row().id).decided_by == wins[0]


def test_a_decision_in_another_handle_ends_a_wait(store, opener):
    store.add(row())
    woke: list[StoredApproval | None] = []
    waiter = threading.Thread(target=lambda: woke.append(store.wait(row().id, 60)))
    waiter.start()
    other = opener()
    other.decide(row().id, "allow-once", by="ops")
    waiter.join(timeout=30)
    assert not waiter.is_alive()
    assert woke[0] is not None and woke[0].state == "decided"


def test_wait_returns_the_pending_row_at_its_timeout_and_sees_expiry(store):
    store.add(row())
    assert store.wait(row().id, 0.05).state == "pending"
    assert store.wait("appr_nope", 0.05) is None
    store.add(row("appr_ffff000000", call_id="c2", expires_at=time.time() + 0.2))
    assert store.wait("appr_ffff000000", 60).state == "expired"


def test_grants_by_sender_and_by_session(store, opener):
    store.grant(plugin="gate", tool="write", sender="alice", session="s1", by="ops")
    store.grant(plugin="gate", tool="write", sender="alice", session="s2", by="ops")  # same scope
    store.grant(plugin="gate", tool="exec", sender=None, session="s9", by=None)
    other = opener()
    assert len(other.grants()) == 2
    assert other.is_granted(plugin="gate", tool="write", sender="alice", session="other")
    assert not other.is_granted(plugin="gate", tool="write", sender="bob", session="s1")
    assert other.is_granted(plugin="gate", tool="exec", sender=None, session="s9")
    assert not other.is_granted(plugin="gate", tool="exec", sender=None, session="s1")
    assert other.revoke(tool="write") == 1
    assert not store.is_granted(plugin="gate", tool="write", sender="alice", session="s1")
    store.grant(plugin="gate", tool="write", sender="alice", session=None, by="ops")
    assert store.is_granted(plugin="gate", tool="write", sender="alice", session=None)
    (exec_grant,) = [g for g in store.grants() if g.tool == "exec"]
    assert store.revoke(grant_id=exec_grant.id) == 1 and store.revoke(grant_id="grant_x") == 0


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
