"""The approval store in a SQLite file (``[approvals] route = "queue"``): shared by processes.

An agent defers or waits, an operator decides from another terminal (``toolhooks approvals``),
a restarted agent resumes. Every write is one ``BEGIN IMMEDIATE`` transaction and every
transition is a conditional UPDATE (decide: only a pending, unexpired row; consume: only a row
not yet consumed), so two processes consuming one approval get it once between them. The row
itself is JSON written once; only the columns that change are columns of their own.
Opening the file (a connection per thread, owner-only, WAL, the schema, one StoreError naming the
file for any failure) is :mod:`._sqlite_file`. Over 300 lines on purpose: this is the whole
approval store contract (rows, transitions, grants, purge) for one backend, read side by side
with ``_redis.py``.
"""

from __future__ import annotations

import builtins
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .._public import public
from ..records._frozen import freeze_params, thaw
from ._contract import (
    DEFAULT_RETENTION_S,
    AmbiguousId,
    Grant,
    StoredApproval,
    Tally,
    Vote,
    closed_reason,
    grant_matches,
    grants_from_json,
    id_key,
    past_retention,
    quorum_decision,
    revoke_matches,
    votes_from_json,
)
from ._sqlite_file import SQLiteFile, write

MUTABLE = (
    "state",
    "expires_at",
    "decision",
    "decided_params",
    "decided_by",
    "decided_at",
    "reason",
    "consumed_at",
)
PURGE_EVERY_S = 3600.0
"""``add`` purges rows past the retention at most this often (one process, one store object)."""
_LOOKUP_LIMIT = 20
"""Matches fetched for a prefix; more than one is ambiguous, this many are enough to list."""


def _dumps(value: Any) -> str:
    # ASCII: a lone surrogate in a param must not fail the UTF-8 encoding of the statement.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _scope(plugin: str, tool: str, sender: str | None, session: str | None) -> str:
    return _dumps([plugin, tool, sender, None if sender is not None else session])


class SQLiteStore(SQLiteFile):
    """The approval store at ``path`` (created, owner-only, with its directory, on first use)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        retention_s: float = DEFAULT_RETENTION_S,
        *,
        poll_interval_s: float = 0.2,
        busy_timeout_s: float = 5.0,
    ) -> None:
        super().__init__(path, busy_timeout_s=busy_timeout_s)
        self.poll_interval_s = poll_interval_s
        self.retention_s = retention_s
        self._purged_at = 0.0

    # -- rows ------------------------------------------------------------------------------------

    @staticmethod
    def _decode(found: tuple[Any, ...]) -> StoredApproval:
        data = json.loads(found[0])
        for name, value in zip(MUTABLE, found[1:], strict=True):
            data[name] = json.loads(value) if name == "decided_params" and value else value
        data["allowed_decisions"] = tuple(data.get("allowed_decisions", ()))
        return StoredApproval(**data)

    _SELECT = "SELECT row, " + ", ".join(MUTABLE) + " FROM approval"

    def _load(self, conn: sqlite3.Connection, approval_id: str) -> StoredApproval | None:
        found = conn.execute(f"{self._SELECT} WHERE id = ?", (approval_id,)).fetchone()
        return None if found is None else self._decode(found)

    def add(self, approval: StoredApproval) -> None:
        """Record a pending approval; the same id again only moves a pending row's deadline."""
        data = approval.to_dict()
        values = [data.pop(name) for name in MUTABLE]
        values[MUTABLE.index("decided_params")] = (
            None if approval.decided_params is None else _dumps(approval.decided_params)
        )

        def insert(conn: sqlite3.Connection) -> None:
            with write(conn):
                conn.execute(
                    "INSERT INTO approval (id, key, call_id, digest, plugin, created_at, row, "
                    + ", ".join(MUTABLE)
                    + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at"
                    " WHERE state = 'pending'",
                    (
                        approval.id,
                        id_key(approval.id),
                        approval.call_id,
                        approval.digest,
                        approval.plugin,
                        approval.created_at,
                        _dumps(data),
                        *values,
                    ),
                )

        self._do("recording an approval", insert)
        if time.monotonic() - self._purged_at > PURGE_EVERY_S or not self._purged_at:
            self._purged_at = time.monotonic()
            self.purge()

    def get(self, key: str) -> StoredApproval | None:
        def find(conn: sqlite3.Connection) -> builtins.list[StoredApproval]:
            row = self._load(conn, key)
            if row is not None:
                return [row]
            wanted = id_key(key)
            if not wanted:
                return []
            found = conn.execute(
                f"{self._SELECT} WHERE substr(key, 1, ?) = ? ORDER BY id LIMIT ?",
                (len(wanted), wanted, _LOOKUP_LIMIT),
            ).fetchall()
            return [self._decode(f) for f in found]

        rows = self._do("reading an approval", find)
        if len(rows) > 1:
            raise AmbiguousId(key, (r.id for r in rows))
        return rows[0].effective() if rows else None

    def for_call(self, call_id: str) -> StoredApproval | None:
        found = self._do(
            "reading an approval",
            lambda conn: conn.execute(
                f"{self._SELECT} WHERE call_id = ? AND consumed_at IS NULL"
                " ORDER BY created_at DESC LIMIT 1",
                (call_id,),
            ).fetchone(),
        )
        return None if found is None else self._decode(found).effective()

    def reusable(self, digest: str, plugin: str) -> StoredApproval | None:
        """An unexpired, unconsumed row for the same digest and plugin (a restarted agent)."""
        found = self._do(
            "reading an approval",
            lambda conn: conn.execute(
                f"{self._SELECT} WHERE digest = ? AND plugin = ? AND consumed_at IS NULL"
                " AND state IN ('pending', 'decided') AND expires_at > ?"
                " ORDER BY created_at DESC LIMIT 1",
                (digest, plugin, time.time()),
            ).fetchone(),
        )
        return None if found is None else self._decode(found)

    def list(
        self, *, states: Iterable[str] | None = None, limit: int = 200
    ) -> builtins.list[StoredApproval]:
        wanted = None if states is None else set(states)
        now = time.time()
        where, args = _state_filter(wanted, now)
        found = self._do(
            "listing approvals",
            lambda conn: conn.execute(
                f"{self._SELECT} {where} ORDER BY created_at DESC, id DESC LIMIT ?",
                (*args, max(0, limit)),
            ).fetchall(),
        )
        return [self._decode(f).effective(now) for f in found]

    def decide(
        self,
        approval_id: str,
        decision: str,
        *,
        params: Mapping[str, Any] | None = None,
        by: str | None = None,
        reason: str | None = None,
    ) -> StoredApproval | None:
        decided_params = None if params is None else _dumps(thaw(freeze_params(params)))

        def update(conn: sqlite3.Connection) -> StoredApproval | None:
            now = time.time()
            with write(conn):
                won = conn.execute(
                    "UPDATE approval SET state = 'decided', decision = ?, decided_params = ?,"
                    " decided_by = ?, decided_at = ?, reason = ?"
                    " WHERE id = ? AND state = 'pending' AND expires_at > ?",
                    (decision, decided_params, by, now, reason, approval_id, now),
                ).rowcount
                return self._load(conn, approval_id) if won == 1 else None

        return self._do("deciding an approval", update)

    def consume(self, approval_id: str) -> StoredApproval | None:
        def update(conn: sqlite3.Connection) -> StoredApproval | None:
            with write(conn):
                won = conn.execute(
                    "UPDATE approval SET state = 'consumed', consumed_at = ?"
                    " WHERE id = ? AND consumed_at IS NULL",
                    (time.time(), approval_id),
                ).rowcount
                return self._load(conn, approval_id) if won == 1 else None

        return self._do("consuming an approval", update)

    def wait(self, approval_id: str, timeout_s: float) -> StoredApproval | None:
        """Poll until the row leaves "pending" (or expires) or ``timeout_s`` passes."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        while True:
            row = self._do("reading an approval", lambda conn: self._load(conn, approval_id))
            if row is None:
                return None
            row = row.effective()
            remaining = deadline - time.monotonic()
            if row.state != "pending" or remaining <= 0:
                return row
            # Wake at the row's deadline too, so that expiry is seen without a decision.
            until_expiry = max(0.01, row.expires_at - time.time())
            time.sleep(min(self.poll_interval_s, remaining, until_expiry))

    # -- votes and claims ------------------------------------------------------------------------

    @staticmethod
    def _ballots(conn: sqlite3.Connection, approval_id: str) -> tuple[Vote, ...]:
        found = conn.execute(
            "SELECT vote FROM approval_vote WHERE approval_id = ?", (approval_id,)
        ).fetchall()
        return tuple(votes_from_json(value for (value,) in found))

    def vote(self, vote: Vote, *, quorum: int) -> Tally | None:
        """One ``BEGIN IMMEDIATE`` transaction: read, record, decide; no other writer between."""

        def cast(conn: sqlite3.Connection) -> Tally | None:
            with write(conn):
                row = self._load(conn, vote.approval_id)
                if row is None:
                    return None
                row = row.effective()
                refused = closed_reason(row, vote)
                counted = refused is None and (
                    conn.execute(
                        "INSERT OR IGNORE INTO approval_vote (approval_id, person, vote)"
                        " VALUES (?, ?, ?)",
                        (row.id, vote.person, _dumps(vote.to_dict())),
                    ).rowcount
                    == 1
                )
                ballots = self._ballots(conn, row.id)
                outcome = quorum_decision(ballots, quorum) if counted else None
                if outcome is None:
                    return Tally(row=row, votes=ballots, counted=counted, refused=refused)
                decision, by, reason = outcome
                params = vote.params if decision == "edit" else None
                conn.execute(
                    "UPDATE approval SET state = 'decided', decision = ?, decided_params = ?,"
                    " decided_by = ?, decided_at = ?, reason = ? WHERE id = ?",
                    (
                        decision,
                        None if params is None else _dumps(thaw(freeze_params(params))),
                        by,
                        time.time(),
                        reason,
                        row.id,
                    ),
                )
                decided = self._load(conn, row.id)
                assert decided is not None
                return Tally(row=decided, votes=ballots, counted=True, decided=True)

        return self._do("casting a vote", cast)

    def votes(self, approval_id: str) -> builtins.list[Vote]:
        return list(self._do("reading votes", lambda conn: self._ballots(conn, approval_id)))

    def claim(self, key: str, ttl_s: float, value: str = "1") -> bool:
        def take(conn: sqlite3.Connection) -> bool:
            now = time.time()
            with write(conn):
                conn.execute("DELETE FROM approval_claim WHERE key = ? AND until <= ?", (key, now))
                return (
                    conn.execute(
                        "INSERT OR IGNORE INTO approval_claim (key, until, value) VALUES (?, ?, ?)",
                        (key, now + ttl_s, value),
                    ).rowcount
                    == 1
                )

        return bool(self._do("claiming", take))

    def claimed(self, key: str) -> str | None:
        found = self._do(
            "reading a claim",
            lambda conn: conn.execute(
                "SELECT value FROM approval_claim WHERE key = ? AND until > ?", (key, time.time())
            ).fetchone(),
        )
        return None if found is None else str(found[0])

    # -- grants ----------------------------------------------------------------------------------

    def grant(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None, by: str | None
    ) -> None:
        grant = Grant.new(plugin=plugin, tool=tool, sender=sender, session=session, by=by)

        def insert(conn: sqlite3.Connection) -> None:
            with write(conn):  # one grant per scope: granting it twice at once keeps one
                conn.execute(
                    "INSERT OR IGNORE INTO grant_ (id, scope, grant_) VALUES (?, ?, ?)",
                    (
                        grant.id,
                        _scope(plugin, tool, sender, grant.session),
                        _dumps(grant.to_dict()),
                    ),
                )

        self._do("recording a grant", insert)

    def is_granted(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None
    ) -> bool:
        if sender is None and session is None:
            return any(grant_matches(g, plugin, tool, sender, session) for g in self.grants())
        scope = _scope(plugin, tool, sender, session)
        found = self._do(
            "reading grants",
            lambda conn: conn.execute("SELECT 1 FROM grant_ WHERE scope = ?", (scope,)).fetchone(),
        )
        return found is not None

    def grants(self) -> builtins.list[Grant]:
        raw = self._do(
            "reading grants", lambda conn: conn.execute("SELECT grant_ FROM grant_").fetchall()
        )
        return grants_from_json(value for (value,) in raw)

    def revoke(
        self,
        *,
        grant_id: str | None = None,
        plugin: str | None = None,
        tool: str | None = None,
        sender: str | None = None,
    ) -> int:
        doomed = [g.id for g in self.grants() if revoke_matches(g, grant_id, plugin, tool, sender)]

        def delete(conn: sqlite3.Connection) -> int:
            with write(conn):
                return sum(
                    conn.execute("DELETE FROM grant_ WHERE id = ?", (gid,)).rowcount
                    for gid in doomed
                )

        return self._do("revoking grants", delete) if doomed else 0

    def purge(self, now: float | None = None) -> int:
        moment = time.time() if now is None else now

        def delete(conn: sqlite3.Connection) -> int:
            with write(conn):
                found = conn.execute(
                    f"{self._SELECT} WHERE state != 'pending' OR expires_at <= ?", (moment,)
                ).fetchall()
                rows = [self._decode(f) for f in found]
                doomed = [r.id for r in rows if past_retention(r, moment, self.retention_s)]
                for approval_id in doomed:
                    conn.execute("DELETE FROM approval WHERE id = ?", (approval_id,))
                    conn.execute("DELETE FROM approval_vote WHERE approval_id = ?", (approval_id,))
                conn.execute("DELETE FROM approval_claim WHERE until <= ?", (moment,))
                return len(doomed)

        return self._do("purging approvals", delete)


def _state_filter(wanted: set[str] | None, now: float) -> tuple[str, tuple[Any, ...]]:
    """The WHERE clause for ``states`` as rows read at ``now`` (expiry is not written)."""
    if wanted is None:
        return "", ()
    clauses: builtins.list[str] = []
    args: builtins.list[Any] = []
    if "pending" in wanted:
        clauses.append("(state = 'pending' AND expires_at > ?)")
        args.append(now)
    if "expired" in wanted:
        clauses.append("(state = 'pending' AND expires_at <= ?)")
        args.append(now)
    for state in sorted(wanted & {"decided", "consumed"}):
        clauses.append("state = ?")
        args.append(state)
    return "WHERE " + (" OR ".join(clauses) or "0"), tuple(args)


public("toolhooks", SQLiteStore)
