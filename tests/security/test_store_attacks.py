"""Issue #21: the approval stores attacked. A row or key edited behind the runtime's back must
not run what nobody approved; ids made of SQL or glob characters find nothing; a store file
another user could swap or write is refused."""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from pathlib import Path

import pytest
from toolhooks import Runtime, StoreError, hookimpl
from toolhooks.stores._sqlite import SQLiteStore
from toolhooks.testing import require

REDIS_URL = os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


class AskFirst:
    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "Write a file?", "description": "it writes"}}


def redis_up() -> bool:
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


@pytest.fixture(params=["sqlite", "redis"])
def backend(request, tmp_path):
    """(config, tamper): tamper(approval_id, edit) rewrites the stored row's JSON in place."""
    if request.param == "sqlite":
        db = tmp_path / "approvals.db"
        config = {"approvals": {"route": "queue", "db": str(db), "wait_s": 0}}

        def tamper(approval_id: str, edit) -> None:
            with sqlite3.connect(db) as conn:
                (row,) = conn.execute(
                    "SELECT row FROM approval WHERE id = ?", (approval_id,)
                ).fetchone()
                data = json.loads(row)
                edit(data)
                conn.execute(
                    "UPDATE approval SET row = ? WHERE id = ?", (json.dumps(data), approval_id)
                )

        yield config, tamper
        return
    require(redis_up(), f"no Redis server at {REDIS_URL} (set TOOLHOOKS_TEST_REDIS_URL)")
    import redis

    prefix = f"th-attack-{uuid.uuid4().hex[:8]}"
    config = {
        "state": {"url": REDIS_URL, "key_prefix": prefix},
        "approvals": {"route": "queue", "wait_s": 0},
    }
    client = redis.Redis.from_url(REDIS_URL)

    def tamper(approval_id: str, edit) -> None:
        key = f"{prefix}:appr:row:{approval_id}"
        data = json.loads(client.hget(key, "row"))
        edit(data)
        client.hset(key, "row", json.dumps(data))

    yield config, tamper
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)
    client.close()


def make(config) -> tuple[Runtime, list[str]]:
    ran: list[str] = []
    rt = Runtime(config=config, load_entrypoints=False, plugins=[AskFirst()])

    @rt.tool
    def write(path: str) -> str:
        """Write a file."""
        ran.append(path)
        return f"wrote {path}"

    return rt, ran


def test_a_row_whose_params_were_edited_is_refused_on_resume(backend):
    config, tamper = backend
    rt, ran = make(config)
    try:
        paused = rt.call({"name": "write", "params": {"path": "notes.txt"}, "session_id": "s"})
        assert paused.status == "pending"

        def swap(data):
            data["params"] = {"path": "/home/you/.ssh/authorized_keys"}

        tamper(paused.pending.id, swap)
        resumed = rt.resume(paused.pending.id, "allow-once", by="operator")
        assert resumed.status != "ok", resumed
        assert "digest" in (resumed.reason or "").lower() or resumed.status == "blocked"
        assert ran == []  # neither the edited params nor anything else ran
    finally:
        rt.close()


@pytest.mark.parametrize("corrupt", ["unknown field", "broken json"])
def test_a_corrupt_row_fails_closed_with_a_reason(backend, corrupt):
    config, tamper = backend
    rt, ran = make(config)
    try:
        paused = rt.call({"name": "write", "params": {"path": "a.txt"}, "session_id": "s"})
        if corrupt == "unknown field":
            tamper(paused.pending.id, lambda data: data.update(smuggled=True))
        else:
            tamper(paused.pending.id, lambda data: data.update(params="{not json"))
        resumed = rt.resume(paused.pending.id, "allow-once")
        assert resumed.status == "blocked" and ran == []
        assert resumed.reason and "store" in resumed.reason.lower()
    finally:
        rt.close()


@pytest.mark.parametrize(
    "hostile", ["%", "_", "*", "?", "[a-z]*", "' OR '1'='1", "appr_%", "\\", "\x00", "\xff"]
)
def test_ids_made_of_sql_and_glob_characters_find_nothing(backend, hostile):
    config, _ = backend
    rt, ran = make(config)
    try:
        paused = [
            rt.call({"name": "write", "params": {"path": name}, "session_id": "s"})
            for name in ("a.txt", "b.txt")
        ]
        refused = rt.resume(hostile, "allow-once")
        assert refused.status == "blocked" and "Unknown approval" in (refused.reason or "")
        assert ran == []
        for outcome in paused:  # both still wait: the hostile id matched neither
            assert rt.resume(outcome.pending.id, "defer").status == "pending"
    finally:
        rt.close()


def test_a_store_file_that_is_a_symbolic_link_is_refused(tmp_path):
    real = tmp_path / "real.db"
    SQLiteStore(real).open().close()
    link = tmp_path / "approvals.db"
    link.symlink_to(real)
    with pytest.raises(StoreError, match="symbolic link"):
        SQLiteStore(link).open()


def test_a_store_file_anyone_can_write_is_refused(tmp_path):
    path = tmp_path / "approvals.db"
    SQLiteStore(path).open().close()
    path.chmod(0o666)
    with pytest.raises(StoreError, match="any user can write it"):
        SQLiteStore(path).open()


def test_a_new_store_file_is_private(tmp_path):
    path = Path(tmp_path / "fresh" / "approvals.db")
    SQLiteStore(path).open().close()
    assert path.stat().st_mode & 0o077 == 0
