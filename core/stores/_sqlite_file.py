"""One SQLite file shared by processes, opened safely: a connection per thread (and per process
after a fork), the file created owner-only and refused when another user could swap or write it,
WAL set once, the schema made once, and every SQLite failure said as one StoreError naming the file.
The approval store (``_sqlite.py``) is the operations on top.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from ._contract import StoreError

T = TypeVar("T")
F = TypeVar("F", bound="SQLiteFile")
SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS approval (
    id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    call_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    plugin TEXT NOT NULL,
    created_at REAL NOT NULL,
    row TEXT NOT NULL,
    state TEXT NOT NULL,
    expires_at REAL NOT NULL,
    decision TEXT,
    decided_params TEXT,
    decided_by TEXT,
    decided_at REAL,
    reason TEXT,
    consumed_at REAL
);
CREATE INDEX IF NOT EXISTS approval_key ON approval (key);
CREATE INDEX IF NOT EXISTS approval_call ON approval (call_id, created_at);
CREATE INDEX IF NOT EXISTS approval_digest ON approval (digest, plugin, created_at);
CREATE INDEX IF NOT EXISTS approval_time ON approval (created_at, id);
CREATE TABLE IF NOT EXISTS grant_ (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL UNIQUE,
    grant_ TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS approval_vote (
    approval_id TEXT NOT NULL,
    person TEXT NOT NULL,
    vote TEXT NOT NULL,
    PRIMARY KEY (approval_id, person)
);
CREATE TABLE IF NOT EXISTS approval_claim (
    key TEXT PRIMARY KEY,
    until REAL NOT NULL,
    value TEXT NOT NULL
);
"""


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
        # store and ended must not leave one behind.
        self.close()


def _refuse_unsafe(path: Path) -> None:
    """A store file another user could swap or write is refused, as the event log refuses to
    write through a link: whoever controls the file controls what a resumed call runs (a row's
    params and digest change together) and which approvals look decided."""
    if path.is_symlink():
        raise StoreError(
            f"{path}: is a symbolic link; the approval store opens only a real file "
            "(point [approvals] db at the file itself)"
        )
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if mode & stat.S_IWOTH:
        raise StoreError(f"{path}: any user can write it; make it private (chmod 600)")


class SQLiteFile:
    """The database at ``path``, as each thread of this process sees it."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_s: float = 5.0,
    ) -> None:
        self.path = Path(path).expanduser().absolute()
        self.busy_timeout_ms = int(busy_timeout_s * 1000)
        self._local = threading.local()
        self._schema_ready = False

    @property
    def where(self) -> str:
        return str(self.path)

    def _do(self, what: str, action: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``action`` on this thread's connection; a broken file is one StoreError."""
        try:
            return action(self._conn())
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {what} failed: {why(exc, self.path)}") from None
        except OSError as exc:
            raise StoreError(f"{self.path}: {what} failed: {exc.strerror or exc}") from None

    def open(self: F) -> F:
        """Open (and create) the database now: a bad file fails here, naming itself."""
        self._do("opening the approvals database", lambda conn: None)
        return self

    def _conn(self) -> sqlite3.Connection:
        held: _Connection | None = getattr(self._local, "conn", None)
        if held is not None and held.pid == os.getpid():
            return held.conn
        if self.path.is_dir():
            raise StoreError(f"{self.path}: is a directory, not an approvals database")
        _refuse_unsafe(self.path)
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
        try:
            conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
            # WAL is a property of the file: set it once. Switching needs an exclusive lock and
            # SQLite does not wait for it (no busy handler), so a connection opened while
            # another writes would fail at once: only switch when needed, and retry briefly.
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                self._until_unlocked(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = NORMAL")
            if not self._schema_ready:
                with write(conn):
                    for statement in filter(str.strip, SCHEMA.split(";")):
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                # A file of the old approvals queue, or of anything else with an "approval"
                # table, must not be read as ours.
                columns = {r[1] for r in conn.execute("PRAGMA table_info(approval)")}
                if "row" not in columns:
                    raise sqlite3.DatabaseError("not a toolhooks approval store")
                self._schema_ready = True
        except BaseException:
            conn.close()
            raise
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

    def close(self) -> None:
        """Close the calling thread's connection (others close when their thread ends)."""
        held: _Connection | None = getattr(self._local, "conn", None)
        self._local.conn = None
        if held is not None:
            held.close()

    def __enter__(self: F) -> F:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@contextmanager
def write(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction holding the database's write lock from the start."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def why(exc: sqlite3.Error, path: Path) -> str:
    """The SQLite message, said for an operator who pointed at the wrong file."""
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text or "not a toolhooks" in text
    ):
        return f"not a toolhooks approvals database ({text})"
    if "unable to open" in text and path.is_dir():
        return "it is a directory"
    return text
