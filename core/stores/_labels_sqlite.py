"""The label store in a SQLite file: every process on one machine that opens the file (the
coding-agent hooks, one process a call) sees the same labels.

The file is its own (not the approvals queue): created owner-only, refused when it is a link or
any user can write it (whoever writes it decides which values look trusted), WAL, one
connection per thread and per process. A session's rows are dropped on its first write after
``ttl_s`` without one, and read as empty before that. Over 300 lines on purpose: the whole
label store contract for one backend, read side by side with ``_labels_redis.py``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from ._contract import StoreError
from ._labels import (
    DEFAULT_MAX_LABELS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MAX_TRUSTED,
    DEFAULT_TTL_S,
    check_labels,
)
from ._provenance import Provenance
from ._sqlite_file import _Connection, _refuse_unsafe, write

T = TypeVar("T")
SCHEMA = """
CREATE TABLE IF NOT EXISTS label_session (
    session TEXT PRIMARY KEY, pairs INTEGER NOT NULL, trusted INTEGER NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS label_of (
    session TEXT NOT NULL, label TEXT NOT NULL, overflow INTEGER NOT NULL,
    PRIMARY KEY (session, label)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS label_token (
    session TEXT NOT NULL, token TEXT NOT NULL, label TEXT NOT NULL,
    PRIMARY KEY (session, token, label)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS label_trusted (
    session TEXT NOT NULL, token TEXT NOT NULL, PRIMARY KEY (session, token)
) WITHOUT ROWID;
"""
_BATCH = 500
"""Tokens per ``IN (...)`` query (SQLite caps the number of parameters of one statement)."""


def _batches(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), _BATCH):
        yield items[start : start + _BATCH]


class SQLiteLabelStore:
    """Labels and tokens per session in one SQLite file."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_trusted: int = DEFAULT_MAX_TRUSTED,
        max_labels: int = DEFAULT_MAX_LABELS,
        ttl_s: float = DEFAULT_TTL_S,
        busy_timeout_s: float = 5.0,
    ) -> None:
        self.path = Path(path).expanduser().absolute()
        self.max_tokens = max_tokens
        self.max_trusted = max_trusted
        self.max_labels = max_labels
        self.ttl_s = ttl_s
        self.busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._schema_ready = False

    @property
    def where(self) -> str:
        return str(self.path)

    def _conn(self) -> sqlite3.Connection:
        held: _Connection | None = getattr(self._local, "conn", None)
        if held is not None and held.pid == os.getpid():
            return held.conn
        if self.path.is_dir():
            raise StoreError(f"{self.path}: is a directory, not a label store")
        _refuse_unsafe(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # trusted tokens are the user's words: owner-only
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(
            self.path, timeout=self.busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            if not self._schema_ready:
                with write(conn):
                    for statement in filter(str.strip, SCHEMA.split(";")):
                        conn.execute(statement)
                self._schema_ready = True
        except BaseException:
            conn.close()
            raise
        self._local.conn = _Connection(conn)
        return conn

    def _do(self, what: str, action: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return action(self._conn())
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {what} failed: {exc}") from None
        except OSError as exc:
            raise StoreError(f"{self.path}: {what} failed: {exc.strerror or exc}") from None

    def _live(self, conn: sqlite3.Connection, session: str) -> tuple[int, int] | None:
        """(pairs, trusted) of a live session, or None."""
        row = conn.execute(
            "SELECT pairs, trusted, expires_at FROM label_session WHERE session = ?", (session,)
        ).fetchone()
        if row is None or row[2] <= time.time():
            return None
        return int(row[0]), int(row[1])

    def _open_session(self, conn: sqlite3.Connection, session: str) -> tuple[int, int]:
        """Inside a write: the live session's counts, an expired one emptied first."""
        live = self._live(conn, session)
        if live is None:
            for table in ("label_session", "label_of", "label_token", "label_trusted"):
                conn.execute(f"DELETE FROM {table} WHERE session = ?", (session,))
            live = (0, 0)
        conn.execute(
            "INSERT INTO label_session (session, pairs, trusted, expires_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (session) DO UPDATE SET expires_at = excluded.expires_at",
            (session, live[0], live[1], time.time() + self.ttl_s),
        )
        return live

    def _add_labels(self, conn: sqlite3.Connection, session: str, labels: Iterable[str]) -> None:
        for label in labels:
            if conn.execute(
                "SELECT 1 FROM label_of WHERE session = ? AND label = ?", (session, label)
            ).fetchone():
                continue
            count = conn.execute(
                "SELECT COUNT(*) FROM label_of WHERE session = ?", (session,)
            ).fetchone()[0]
            if count >= self.max_labels:
                raise StoreError(
                    f"session {session!r} would carry more than {self.max_labels} labels"
                )
            conn.execute("INSERT INTO label_of VALUES (?, ?, 0)", (session, label))

    def add_labels(self, session: str, labels: Iterable[str]) -> None:
        checked = check_labels(labels)

        def add(conn: sqlite3.Connection) -> None:
            with write(conn):
                self._open_session(conn, session)
                self._add_labels(conn, session, checked)

        self._do("adding labels", add)

    def labels(self, session: str) -> frozenset[str]:
        def read(conn: sqlite3.Connection) -> frozenset[str]:
            if self._live(conn, session) is None:
                return frozenset()
            rows = conn.execute("SELECT label FROM label_of WHERE session = ?", (session,))
            return frozenset(row[0] for row in rows)

        return self._do("reading labels", read)

    def record(self, session: str, labels: Collection[str], tokens: Collection[str]) -> None:
        checked = check_labels(labels)
        if not checked:
            return
        order = list(tokens)
        insert = "INSERT OR IGNORE INTO label_token VALUES (?, ?, ?)"

        def add(conn: sqlite3.Connection) -> None:
            with write(conn):
                pairs = self._open_session(conn, session)[0]
                self._add_labels(conn, session, checked)
                for label in checked:
                    if conn.execute(
                        "SELECT overflow FROM label_of WHERE session = ? AND label = ?",
                        (session, label),
                    ).fetchone()[0]:
                        continue
                    if pairs + len(order) <= self.max_tokens:
                        before = conn.total_changes
                        conn.executemany(insert, ((session, t, label) for t in order))
                        pairs += conn.total_changes - before
                        continue
                    for token in order:
                        if pairs >= self.max_tokens:
                            found = conn.execute(
                                "SELECT 1 FROM label_token WHERE session = ? AND token = ?"
                                " AND label = ?",
                                (session, token, label),
                            ).fetchone()
                            if found is None:
                                conn.execute(
                                    "UPDATE label_of SET overflow = 1 WHERE session = ?"
                                    " AND label = ?",
                                    (session, label),
                                )
                                break
                            continue
                        pairs += conn.execute(insert, (session, token, label)).rowcount
                conn.execute(
                    "UPDATE label_session SET pairs = ? WHERE session = ?", (pairs, session)
                )

        self._do("recording a labelled result", add)

    def trust(self, session: str, tokens: Collection[str]) -> None:
        order = list(tokens)
        if not order:
            return

        def add(conn: sqlite3.Connection) -> None:
            with write(conn):
                held = self._open_session(conn, session)[1]
                for token in order:
                    if held >= self.max_trusted:
                        break
                    held += conn.execute(
                        "INSERT OR IGNORE INTO label_trusted VALUES (?, ?)", (session, token)
                    ).rowcount
                conn.execute(
                    "UPDATE label_session SET trusted = ? WHERE session = ?", (held, session)
                )

        self._do("recording trusted input", add)

    def provenance(
        self, session: str, tokens: Collection[str], labels: Collection[str]
    ) -> Provenance | None:
        wanted = sorted(set(labels))
        order = list(tokens)
        if not wanted or not order:
            return None
        marks = ",".join("?" * len(wanted))

        live = "EXISTS (SELECT 1 FROM label_session WHERE session = ? AND expires_at > ?)"

        def check(conn: sqlite3.Connection) -> Provenance | None:
            # One query for the common case (at most _BATCH tokens): the hits, the overflowed
            # labels and whether the session is live (each execute costs a few microseconds,
            # a third of the look-ups' own time).
            now = time.time()
            overflowed: set[str] = set()
            for index, batch in enumerate(_batches(order)):
                sql = (
                    "SELECT t.token, t.label FROM label_token AS t WHERE t.session = ? AND"
                    f" t.token IN ({','.join('?' * len(batch))}) AND t.label IN ({marks}) AND"
                    " NOT EXISTS (SELECT 1 FROM label_trusted AS r WHERE r.session = t.session"
                    f" AND r.token = t.token) AND {live}"
                )
                params: list[object] = [session, *batch, *wanted, session, now]
                if index == 0:
                    sql += (
                        " UNION ALL SELECT NULL, label FROM label_of WHERE session = ? AND"
                        f" overflow = 1 AND label IN ({marks}) AND {live}"
                    )
                    params += [session, *wanted, session, now]
                found: dict[str, set[str]] = {}
                for token, label in conn.execute(sql, params):
                    if token is None:
                        overflowed.add(label)
                    else:
                        found.setdefault(token, set()).add(label)
                for token in batch:
                    if token in found:
                        return Provenance(token=token, labels=frozenset(found[token]))
            if not overflowed:
                return None
            trusted: set[str] = set()
            for batch in _batches(order):
                rows = conn.execute(
                    "SELECT token FROM label_trusted WHERE session = ? AND token IN"
                    f" ({','.join('?' * len(batch))})",
                    (session, *batch),
                )
                trusted.update(row[0] for row in rows)
            for token in order:
                if token not in trusted:
                    return Provenance(token=token, labels=frozenset(overflowed), overflow=True)
            return None

        return self._do("checking where a value came from", check)

    def forget(self, session: str) -> None:
        def drop(conn: sqlite3.Connection) -> None:
            with write(conn):
                for table in ("label_session", "label_of", "label_token", "label_trusted"):
                    conn.execute(f"DELETE FROM {table} WHERE session = ?", (session,))

        self._do("forgetting a session's labels", drop)

    def close(self) -> None:
        """Close the calling thread's connection."""
        held: _Connection | None = getattr(self._local, "conn", None)
        self._local.conn = None
        if held is not None:
            held.close()
