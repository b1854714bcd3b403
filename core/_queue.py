"""The ``queue`` approval store: a SQLite file (WAL) an agent waits on and an operator resolves.

One row per approval. Every write is one ``BEGIN IMMEDIATE`` transaction, so several processes
(agents and operators) can share the file: a decision is recorded by a conditional UPDATE that
only matches a row still pending and before its deadline, which makes "two operators answer at
once" resolve it exactly once. sqlite3 connections are not thread-safe, so each thread (and each
process, after a fork) opens its own.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ._frozen import thaw
from ._results import DECISIONS, ApprovalDecision, PendingApproval

STATUSES = ("pending", *DECISIONS, "expired")
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'allow-once', 'allow-always', 'deny', 'expired')),
    plugin TEXT NOT NULL,
    tool TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    severity TEXT NOT NULL,
    allowed_decisions TEXT NOT NULL,
    params TEXT NOT NULL,
    digest TEXT NOT NULL,
    sender TEXT,
    session TEXT,
    call_id TEXT,
    decided_by TEXT,
    decided_at REAL,
    reason TEXT,
    consumed_at REAL
);
CREATE INDEX IF NOT EXISTS approvals_by_digest ON approvals (digest, plugin, status);
CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals (status, expires_at);
"""


@dataclass(frozen=True)
class QueuedApproval:
    """One row of the store; ``allowed_decisions`` and ``params`` are decoded from JSON."""

    id: str
    created_at: float
    expires_at: float
    status: str
    plugin: str
    tool: str
    title: str
    description: str
    severity: str
    allowed_decisions: tuple[str, ...]
    params: dict[str, Any]
    digest: str
    sender: str | None
    session: str | None
    call_id: str | None
    decided_by: str | None
    decided_at: float | None
    reason: str | None
    consumed_at: float | None

    @property
    def decided(self) -> bool:
        return self.status in DECISIONS

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["allowed_decisions"] = list(self.allowed_decisions)
        return data

    def decision(self) -> ApprovalDecision | None:
        """The decision as the runtime takes it, or None while pending / once expired."""
        if not self.decided:
            return None
        return ApprovalDecision(self.status, self.reason, self.decided_by)


_COLUMNS = tuple(column.name for column in fields(QueuedApproval))


def _row(raw: sqlite3.Row) -> QueuedApproval:
    """Decode a row; a pending row past its deadline reads as expired even before expire()."""
    values = dict(zip(_COLUMNS, tuple(raw), strict=True))
    if values["status"] == "pending" and values["expires_at"] <= time.time():
        values["status"] = "expired"
    values["allowed_decisions"] = tuple(json.loads(values["allowed_decisions"]))
    values["params"] = json.loads(values["params"])
    return QueuedApproval(**values)


class _Connection:
    """A thread's connection, closed when the thread's locals go away (thread exit or GC)."""

    __slots__ = ("conn", "pid")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.pid = os.getpid()

    def close(self) -> None:
        if self.pid == os.getpid():  # never touch a connection inherited over fork()
            with suppress(sqlite3.Error):
                self.conn.close()

    def __del__(self) -> None:
        # Python 3.13 warns about connections collected unclosed; a worker thread that used the
        # queue and ended must not leave one behind.
        self.close()


class ApprovalQueue:
    """The SQLite approvals store at ``path`` (created, with its directory, on first use)."""

    def __init__(self, path: str | os.PathLike[str], busy_timeout_s: float = 5.0) -> None:
        self.path = Path(path).expanduser().absolute()
        self.busy_timeout_ms = int(busy_timeout_s * 1000)
        self._local = threading.local()
        self._schema_ready = False

    def _conn(self) -> sqlite3.Connection:
        held: _Connection | None = getattr(self._local, "conn", None)
        if held is not None and held.pid == os.getpid():
            return held.conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # params may be secret: owner-only (SQLite copies the mode
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))  # to -wal and -shm)
        # check_same_thread=False only so that _Connection can close it from the collector's
        # thread; each connection is still used by the one thread that opened it.
        conn = sqlite3.connect(
            self.path,
            timeout=self.busy_timeout_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
        # WAL is a property of the file: set it once. Switching needs an exclusive lock and
        # SQLite does not wait for it (no busy handler), so a second connection opened while
        # another writes would fail at once: only switch when needed, and retry briefly.
        if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            self._until_unlocked(lambda: conn.execute("PRAGMA journal_mode = WAL"))
        conn.execute("PRAGMA synchronous = NORMAL")
        if not self._schema_ready:
            with self._write(conn):
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._schema_ready = True
        self._local.conn = _Connection(conn)
        return conn

    def _until_unlocked(self, statement: Callable[[], object]) -> None:
        deadline = time.monotonic() + self.busy_timeout_ms / 1000
        while True:
            try:
                statement()
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    @staticmethod
    @contextmanager
    def _write(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        """One write transaction holding the database's write lock from the start."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close the calling thread's connection (others close when their thread ends)."""
        held: _Connection | None = getattr(self._local, "conn", None)
        self._local.conn = None
        if held is not None:
            held.close()

    def __enter__(self) -> ApprovalQueue:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def submit(self, pending: PendingApproval, id: str | None = None) -> None:
        """Record ``pending`` as a pending row; a second submit of the same id changes nothing."""
        conn = self._conn()
        with self._write(conn):
            self._insert(conn, pending, id or pending.id)

    def submit_or_reuse(self, pending: PendingApproval, id: str | None = None) -> QueuedApproval:
        """The row an agent should wait on for ``pending``: a reusable one, else a new one.

        Reusable: same digest (tool, params, sender, session) and plugin, not past its deadline,
        and either still pending or decided but never picked up (the agent that asked died).
        """
        conn = self._conn()
        now = time.time()
        with self._write(conn):
            found = conn.execute(
                "SELECT * FROM approvals WHERE digest = ? AND plugin = ? AND expires_at > ?"
                " AND consumed_at IS NULL AND status != 'expired' ORDER BY created_at DESC LIMIT 1",
                (pending.digest, pending.plugin, now),
            ).fetchone()
            if found is not None:
                return _row(found)
            row_id = id or pending.id
            self._insert(conn, pending, row_id)
            return _row(conn.execute("SELECT * FROM approvals WHERE id = ?", (row_id,)).fetchone())

    @staticmethod
    def _insert(conn: sqlite3.Connection, pending: PendingApproval, row_id: str) -> None:
        call, request = pending.call, pending.request
        # ASCII JSON: a lone surrogate in a param must not fail the UTF-8 encode of the insert.
        params = json.dumps(thaw(call.params), sort_keys=True, default=repr)
        conn.execute(
            "INSERT OR IGNORE INTO approvals (id, created_at, expires_at, status, plugin, tool,"
            " title, description, severity, allowed_decisions, params, digest, sender, session,"
            " call_id) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row_id, time.time(), pending.expires_at, pending.plugin, call.name, request.title,
             request.description, request.severity, json.dumps(list(request.allowed_decisions)),
             params, pending.digest, call.sender.id if call.sender else None, call.session_id,
             call.id),
        )  # fmt: skip

    def resolve(
        self, id: str, decision: str, by: str | None = None, reason: str | None = None
    ) -> bool:
        """Decide a pending approval; True for the one caller that did, False for everyone else.

        False when ``id`` is unknown, already decided or past its deadline. A decision the request
        does not allow raises ValueError; ``deny`` is always accepted (the runtime turns any
        decision outside ``allowed_decisions`` into a deny anyway, so refusing it would only leave
        the operator waiting for the timeout).
        """
        if decision not in DECISIONS:
            raise ValueError(f"unknown decision {decision!r} (expected {', '.join(DECISIONS)})")
        row = self.get(id)
        if row is None:
            return False
        if decision != "deny" and decision not in row.allowed_decisions:
            allowed = ", ".join(row.allowed_decisions)
            raise ValueError(f"decision {decision!r} is not allowed for {id} (allowed: {allowed})")
        conn = self._conn()
        now = time.time()
        with self._write(conn):
            cursor = conn.execute(
                "UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ?"
                " WHERE id = ? AND status = 'pending' AND expires_at > ?",
                (decision, by, now, reason, id, now),
            )
        return cursor.rowcount == 1

    def consume(self, id: str) -> bool:
        """Mark a decided row as picked up by an agent; True only for the first taker."""
        conn = self._conn()
        with self._write(conn):
            cursor = conn.execute(
                "UPDATE approvals SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL"
                " AND status IN ('allow-once', 'allow-always', 'deny')",
                (time.time(), id),
            )
        return cursor.rowcount == 1

    def expire(self, now: float | None = None) -> int:
        """Mark pending rows past their deadline as expired; returns how many."""
        conn = self._conn()
        with self._write(conn):
            cursor = conn.execute(
                "UPDATE approvals SET status = 'expired'"
                " WHERE status = 'pending' AND expires_at <= ?",
                (time.time() if now is None else now,),
            )
        return cursor.rowcount

    def get(self, id: str) -> QueuedApproval | None:
        found = self._conn().execute("SELECT * FROM approvals WHERE id = ?", (id,)).fetchone()
        return None if found is None else _row(found)

    def list(self, status: str | None = None) -> list[QueuedApproval]:
        """Rows oldest first, all of them or those with ``status`` (as :func:`get` reads it)."""
        if status is not None and status not in STATUSES:
            raise ValueError(f"unknown status {status!r} (expected {', '.join(STATUSES)})")
        where, args = "", tuple[object, ...]()
        if status == "pending":
            where, args = "WHERE status = 'pending' AND expires_at > ?", (time.time(),)
        elif status == "expired":
            where = "WHERE status = 'expired' OR (status = 'pending' AND expires_at <= ?)"
            args = (time.time(),)
        elif status is not None:
            where, args = "WHERE status = ?", (status,)
        query = f"SELECT * FROM approvals {where} ORDER BY created_at, id"
        decoded = [_row(raw) for raw in self._conn().execute(query, args).fetchall()]
        return decoded if status is None else [row for row in decoded if row.status == status]

    def wait(self, id: str, timeout: float, poll_interval: float = 0.2) -> ApprovalDecision | None:
        """Poll until ``id`` is decided; None once ``timeout`` or the row's deadline passes.

        Reaching the row's deadline marks it expired. Raises KeyError for an unknown id.
        """
        started = time.time()
        row = self.get(id)
        if row is None:
            raise KeyError(id)
        deadline = min(started + timeout, row.expires_at)
        while True:
            if row.decided or row.status == "expired":
                return row.decision()
            remaining = deadline - time.time()
            if remaining <= 0:
                break
            time.sleep(min(poll_interval, remaining))
            row = self.get(id) or row
        if time.time() >= row.expires_at:
            self.expire()
        final = self.get(id)
        return None if final is None else final.decision()
