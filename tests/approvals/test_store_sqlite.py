"""SQLiteStore, the approval store of the queue route: what only a file does (WAL, file mode,
bad files named in one line, single use across processes). The contract shared with the other
stores is test_store_contract.py."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import time
from contextlib import closing

import pytest
from toolhooks import SQLiteStore, StoreError

from .test_store_contract import row


def test_the_file_is_wal_and_owner_only(tmp_path):
    path = tmp_path / "sub" / "approvals.db"
    with SQLiteStore(path) as store:
        store.add(row())
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def _truncated(tmp_path):
    path = tmp_path / "truncated.db"
    with SQLiteStore(path) as store:
        for index in range(200):
            store.add(row(f"appr_{index:04d}{'0' * 12}", call_id=f"c{index}"))
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"truncated.db{suffix}").unlink(missing_ok=True)
    return path


def _not_a_database(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 200)
    return path


def _directory(tmp_path):
    path = tmp_path / "a-directory"
    path.mkdir()
    return path


def _another_schema(tmp_path):
    path = tmp_path / "other.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE approval (id TEXT PRIMARY KEY, who TEXT)")
        conn.commit()
    return path


@pytest.mark.parametrize("make", [_truncated, _not_a_database, _directory, _another_schema])
def test_a_bad_file_is_one_error_naming_it(tmp_path, make):
    path = make(tmp_path)
    store = SQLiteStore(path)
    with pytest.raises(StoreError) as caught:
        store.open()
        store.list()  # a truncated file may open and fail on the first read of a lost page
        store.get("appr_0000")
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    assert caught.value.__cause__ is None


def test_every_operation_on_a_bad_file_raises_store_error(tmp_path):
    store = SQLiteStore(_not_a_database(tmp_path))
    operations = [
        lambda: store.add(row()),
        lambda: store.get("appr_1"),
        lambda: store.for_call("c1"),
        lambda: store.reusable("d", "p"),
        lambda: store.list(),
        lambda: store.decide("appr_1", "deny"),
        lambda: store.consume("appr_1"),
        lambda: store.wait("appr_1", 0.01),
        lambda: store.grant(plugin="p", tool="t", sender="s", session=None, by=None),
        lambda: store.is_granted(plugin="p", tool="t", sender="s", session=None),
        lambda: store.grants(),
        lambda: store.revoke(plugin="p"),
        lambda: store.purge(),
    ]
    for operation in operations:
        with pytest.raises(StoreError, match="not a toolhooks approvals database"):
            operation()


CONSUMER = r"""
import sys
from toolhooks import SQLiteStore
path, approval_id = sys.argv[1], sys.argv[2]
with SQLiteStore(path) as store:
    store.open()
    print("ready", flush=True)
    sys.stdin.readline()  # both processes consume at the same moment: when the test says go
    print("won" if store.consume(approval_id) is not None else "lost", flush=True)
"""


def test_consume_is_exactly_once_across_processes(tmp_path):
    path = tmp_path / "approvals.db"
    wins = 0
    for attempt in range(3):
        approval = row(f"appr_{attempt:04d}{'0' * 12}", call_id=f"c{attempt}")
        with SQLiteStore(path) as store:
            store.add(approval)
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", CONSUMER, str(path), approval.id],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            )
            for _ in range(2)
        ]
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready"
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        results = []
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            results.append(out.strip())
        assert sorted(results) == ["lost", "won"]
        wins += 1
        with SQLiteStore(path) as store:
            assert store.get(approval.id).state == "consumed"
    assert wins == 3


def test_a_second_process_sees_a_decision_and_the_grants(tmp_path):
    path = tmp_path / "approvals.db"
    with SQLiteStore(path) as store:
        store.add(row())
    script = (
        "import sys\nfrom toolhooks import SQLiteStore\n"
        "s = SQLiteStore(sys.argv[1])\n"
        "s.decide('appr_0123456789abcdef', 'allow-always', by='ops')\n"
        "s.grant(plugin='gate', tool='write', sender='alice', session=None, by='ops')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    with SQLiteStore(path) as store:
        decided = store.get("01234567")
        assert (decided.state, decided.decision, decided.decided_by) == (
            "decided",
            "allow-always",
            "ops",
        )
        assert store.is_granted(plugin="gate", tool="write", sender="alice", session="x")


def test_recording_an_approval_purges_rows_past_the_retention(tmp_path):
    path = tmp_path / "approvals.db"
    with SQLiteStore(path, retention_s=0) as store:
        store.add(row("appr_aaaa000000", call_id="old", expires_at=time.time() - 1))
    with SQLiteStore(path, retention_s=0) as store:  # a new process's first add purges
        store.add(row("appr_bbbb000000", call_id="new"))
        assert [r.id for r in store.list()] == ["appr_bbbb000000"]
