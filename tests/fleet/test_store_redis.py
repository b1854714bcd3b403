"""RedisStore, the approval store of ``[state] url``: what only Redis does. The ApprovalStore
contract (shared with memory and SQLite) is tests/approvals/test_store_contract.py."""

from __future__ import annotations

import threading
import time

import pytest
from toolhooks.stores._contract import StoredApproval
from toolhooks.stores._redis import RedisStore
from toolhooks.stores._state import SharedState


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
