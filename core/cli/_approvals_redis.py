"""``toolhooks approvals`` on the Redis approval store (``[state] url`` / ``$TOOLHOOKS_STATE_URL``).

The commands were written for the queue route's SQLite database; this desk gives them the same
three operations (``get``, ``list``, ``resolve``) on the shared store, so an operator approves a
call that any worker of the fleet deferred, and the worker that resumes it finds the decision.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._config import discover, load_config
from .._queue import QueuedApproval
from .._results import DECISIONS
from .._state import SharedState, state_from
from .._store import StoredApproval
from .._store_redis import RedisStore


def shared_state(args: argparse.Namespace) -> SharedState | None:
    """The shared state the config (``--config`` or discovered) or the environment names."""
    if getattr(args, "db", None):
        return None  # --db names a queue database: the operator asked for that one
    given: str | None = getattr(args, "config", None)
    found = Path(given) if given else discover()[0]
    return state_from(load_config(found).state)


class RedisDesk:
    """The ApprovalQueue operations the commands use, on the Redis approval store."""

    def __init__(self, state: SharedState) -> None:
        self.store = RedisStore(state)
        self.where = f"the shared state at {state.label}"

    def __enter__(self) -> RedisDesk:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def get(self, key: str) -> QueuedApproval | None:
        row = self.store.get(key)
        return None if row is None else _queued(row)

    def list(self, status: str | None = None) -> list[QueuedApproval]:
        rows = [_queued(row) for row in reversed(self.store.list(limit=10_000))]
        return rows if status is None else [row for row in rows if row.status == status]

    def resolve(
        self, id: str, decision: str, by: str | None = None, reason: str | None = None
    ) -> bool:
        if decision not in DECISIONS:
            raise ValueError(f"unknown decision {decision!r} (expected {', '.join(DECISIONS)})")
        row = self.store.get(id)
        if row is None:
            return False
        if decision != "deny" and decision not in row.allowed_decisions:
            allowed = ", ".join(row.allowed_decisions)
            raise ValueError(f"decision {decision!r} is not allowed for {id} (allowed: {allowed})")
        return self.store.decide(row.id, decision, by=by, reason=reason) is not None


def _queued(row: StoredApproval) -> QueuedApproval:
    status: Any = row.state
    if row.state in ("decided", "consumed"):
        status = row.decision or row.state
    return QueuedApproval(
        id=row.id,
        created_at=row.created_at,
        expires_at=row.expires_at,
        status=status,
        plugin=row.plugin,
        tool=row.tool,
        title=row.title,
        description=row.description,
        severity=row.severity,
        allowed_decisions=tuple(row.allowed_decisions),
        params=dict(row.params),
        digest=row.digest,
        sender=row.sender_id,
        session=row.session_id,
        call_id=row.call_id,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        reason=row.reason,
        consumed_at=row.consumed_at,
    )
