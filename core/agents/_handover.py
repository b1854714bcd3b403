"""What the before event of a call leaves for its after event: the hand-over.

An agent runs its hook twice per tool call, before and after, and the two may be answered by
different processes (the daemon, then the in-process fallback after the daemon died; or two
in-process hooks). The before side records the call (its toolhooks id and trace, the params as
proposed and as decided, the approval it waits on, context for the after answer) under the keys
the after event can find it by: the agent's call id, or (Gemini CLI, which gives none) a digest
of session, tool and input. The after side takes it once.

``SQLiteHandOver`` keeps records in a small file of its own next to the approvals database
(owner-only), so any process of this user on this machine finds them. Records older than a day
are dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

MAX_AGE_S = 86_400.0


@dataclass(frozen=True, slots=True, kw_only=True)
class CallRecord:
    """One call between its before and after events."""

    call_id: str
    trace_id: str
    tool: str
    proposed: dict[str, Any]
    final: dict[str, Any]
    status: str
    """``allowed`` (decided, runs as ``final``), ``approval`` (an approval in the store
    allowed it), ``asked`` (the agent's own prompt asks its user; ``approval_id`` waits)."""
    approval_id: str | None = None
    context: str | None = None
    """For the after answer: what the before answer could not carry to the model."""
    rewritten_by: dict[str, str] = field(default_factory=dict)


def input_key(tool: str, params: Mapping[str, Any]) -> str:
    """The key of a call by its input, for an agent that gives no call id."""
    text = json.dumps([tool, params], sort_keys=True, ensure_ascii=True, default=repr)
    return "input:" + hashlib.sha256(text.encode()).hexdigest()


class HandOver(Protocol):
    def put(self, agent: str, session: str | None, keys: Iterable[str], record: CallRecord) -> None:
        """Record ``record`` under each of ``keys`` (oldest taken first when a key repeats)."""
        ...

    def take(self, agent: str, session: str | None, keys: Iterable[str]) -> CallRecord | None:
        """The oldest record under the first of ``keys`` that has one, removed everywhere."""
        ...

    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS handover (
    slot TEXT NOT NULL,
    record TEXT NOT NULL,
    body TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS handover_slot ON handover (slot);
CREATE INDEX IF NOT EXISTS handover_record ON handover (record);
CREATE INDEX IF NOT EXISTS handover_created ON handover (created)
"""


class _Held:
    """A thread's connection, closed when the thread's locals go away (no unclosed warning)."""

    __slots__ = ("conn", "pid")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.pid = os.getpid()

    def close(self) -> None:
        if self.pid == os.getpid():  # never a connection inherited over fork()
            self.conn.close()

    def __del__(self) -> None:
        self.close()


class SQLiteHandOver:
    """Records in the SQLite file ``path`` (created owner-only, with its directory)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().absolute()
        self._local = threading.local()
        self._purged = 0.0

    def _conn(self) -> sqlite3.Connection:
        held: _Held | None = getattr(self._local, "held", None)
        if held is not None and held.pid == os.getpid():
            return held.conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # params may be secret: owner-only, as the approvals file
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 5000")
        if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        for statement in filter(str.strip, _SCHEMA.split(";")):
            conn.execute(statement)
        self._local.held = _Held(conn)
        return conn

    @staticmethod
    def _slot(agent: str, session: str | None, key: str) -> str:
        return json.dumps([agent, session or "", key])

    def put(self, agent: str, session: str | None, keys: Iterable[str], record: CallRecord) -> None:
        conn = self._conn()
        now = time.time()
        body = json.dumps(asdict(record), ensure_ascii=True, default=repr)
        name = f"{record.call_id}:{now!r}"
        conn.execute("BEGIN IMMEDIATE")
        try:
            if now - self._purged > 600:
                conn.execute("DELETE FROM handover WHERE created < ?", (now - MAX_AGE_S,))
                self._purged = now
            conn.executemany(
                "INSERT INTO handover (slot, record, body, created) VALUES (?, ?, ?, ?)",
                [(self._slot(agent, session, k), name, body, now) for k in dict.fromkeys(keys)],
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def take(self, agent: str, session: str | None, keys: Iterable[str]) -> CallRecord | None:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            for key in keys:
                found = conn.execute(
                    "SELECT record, body FROM handover WHERE slot = ? ORDER BY rowid LIMIT 1",
                    (self._slot(agent, session, key),),
                ).fetchone()
                if found is not None:
                    conn.execute("DELETE FROM handover WHERE record = ?", (found[0],))
                    conn.execute("COMMIT")
                    return CallRecord(**json.loads(found[1]))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return None

    def close(self) -> None:
        held: _Held | None = getattr(self._local, "held", None)
        self._local.held = None
        if held is not None:
            held.close()
