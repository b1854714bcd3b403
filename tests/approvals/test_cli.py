"""``toolhooks approvals``: every subcommand on a real SQLite file (and on Redis with ``[state]
url``), short handles, ambiguous prefixes, edit-and-approve, grants, and bad files and flags
(issue #10 items 4, 18, 20; issue #11 item 2)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from toolhooks import SQLiteStore
from toolhooks.testing import require

from .test_store_contract import REDIS_URL, _redis_up, row

CONSOLE = shutil.which("toolhooks", path=os.path.dirname(sys.executable))
SUBCOMMANDS = {
    "list": ("list",),
    "show": ("show", "aaaa"),
    "approve": ("approve", "aaaa"),
    "deny": ("deny", "aaaa"),
    "grants": ("grants",),
    "revoke": ("revoke", "--all"),
}


def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    assert CONSOLE, "the toolhooks console script is not installed (pip install -e .)"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    environment.update({"COLUMNS": "200", **(env or {})})
    return subprocess.run(
        [CONSOLE, "approvals", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=60,
    )


@pytest.fixture
def db(tmp_path) -> Path:
    """A store with two approvals whose ids share a long prefix, and one grant."""
    path = tmp_path / ".toolhooks" / "approvals.db"
    now = time.time()
    with SQLiteStore(path) as store:
        store.add(row("appr_aaaa1111bbbb", call_id="c1", created_at=now))
        store.add(
            row(
                "appr_aaaa2222cccc",
                call_id="c2",
                created_at=now + 1,
                tool="exec",
                title="Run \x1b]0;pwned\x07 it",
                allowed_decisions=("allow-once", "deny"),
                sender={"id": "mallory\x1b[2J", "roles": []},
            )
        )
        store.grant(plugin="gate", tool="write", sender="alice", session=None, by="ops")
    return path


def test_list_shows_short_handles_that_tell_apart_ids_with_a_shared_prefix(tmp_path, db):
    listed = run(tmp_path, "list")  # the default [approvals] db, in this directory
    assert listed.returncode == 0, listed.stderr
    assert "aaaa1111 " in listed.stdout and "aaaa2222 " in listed.stdout
    assert "appr_aaaa1111bbbb" not in listed.stdout  # handles, not the whole id
    assert "\x1b" not in listed.stdout and "\x07" not in listed.stdout
    assert "mallory\\x1b[2J" in listed.stdout
    as_json = json.loads(run(tmp_path, "list", "--json").stdout)
    assert [r["id"] for r in as_json] == ["appr_aaaa2222cccc", "appr_aaaa1111bbbb"]
    assert as_json[1]["params"]["big"] == 2**63 + 1


def test_a_prefix_matching_several_is_an_error_listing_them(tmp_path, db):
    for verb in ("show", "approve", "deny"):
        ambiguous = run(tmp_path, verb, "aaaa")
        assert ambiguous.returncode == 1
        (line,) = ambiguous.stderr.splitlines()
        assert "'aaaa' matches 2 approvals" in line
        assert "aaaa1111bbbb (write, pending)" in line and "aaaa2222cccc (exec, pending)" in line
    assert run(tmp_path, "show", "aaaa1").returncode == 0  # unique: enough
    missing = run(tmp_path, "show", "ffff")
    assert missing.returncode == 1 and "no approval 'ffff'" in missing.stderr


def test_show_escapes_caller_text_and_shows_the_params(tmp_path, db):
    shown = run(tmp_path, "show", "aaaa2222")
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "Run \\x1b]0;pwned\\x07 it" in shown.stdout
    assert '"path": "/ws/a.txt"' in shown.stdout and "it writes / \\x1b[2J" in shown.stdout
    assert json.loads(run(tmp_path, "show", "aaaa2222", "--json").stdout)["tool"] == "exec"


def test_approve_deny_and_what_a_second_decision_is_told(tmp_path, db):
    approved = run(tmp_path, "approve", "aaaa1111", "--by", "ops")
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.startswith("aaaa1111: allow-once (write: Write?)")
    again = run(tmp_path, "deny", "aaaa1111")
    assert again.returncode == 1
    assert again.stderr.strip() == (
        "toolhooks: error: approval aaaa1111 was already decided: allow-once by ops"
    )
    denied = run(tmp_path, "deny", "aaaa2222", "--reason", "no", "--json")
    assert denied.returncode == 0 and json.loads(denied.stdout)["decision"] == "deny"
    with SQLiteStore(db) as store:
        assert store.get("aaaa2222").reason == "no"
    assert "No pending approvals" in run(tmp_path, "list").stdout
    assert len(json.loads(run(tmp_path, "list", "--all", "--json").stdout)) == 2


def test_approve_always_only_where_the_request_allows_it(tmp_path, db):
    refused = run(tmp_path, "approve", "aaaa2222", "--always")
    assert refused.returncode == 1
    assert "allows allow-once, deny, not allow-always" in refused.stderr
    assert run(tmp_path, "approve", "aaaa1111", "--always").returncode == 1  # not allowed either


def test_approve_with_params_is_an_edit_where_the_request_allows_it(tmp_path, db):
    edited = run(tmp_path, "approve", "aaaa1111", "--params", '{"path": "/ws/b.txt"}')
    assert edited.returncode == 0, edited.stderr
    with SQLiteStore(db) as store:
        decided = store.get("aaaa1111")
    assert (decided.decision, decided.decided_params) == ("edit", {"path": "/ws/b.txt"})
    (tmp_path / "p.json").write_text('{"path": "/ws/c.txt"}')
    no_edit = run(tmp_path, "approve", "aaaa2222", "--params-file", "p.json")
    assert no_edit.returncode == 1 and "does not allow editing" in no_edit.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--params", "{not json"), "--params is not JSON"),
        (("--params", "[1, 2]"), "--params must be a JSON object"),
        (("--params-file", "missing.json"), "cannot read missing.json"),
        (("--params-file", "."), "cannot read ."),
    ],
)
def test_bad_edit_params_are_one_line(tmp_path, db, flags, message):
    result = run(tmp_path, "approve", "aaaa1111", *flags)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert message in line
    with SQLiteStore(db) as store:
        assert store.get("aaaa1111").state == "pending"


def test_grants_and_revoke(tmp_path, db):
    listed = run(tmp_path, "grants")
    assert listed.returncode == 0 and "alice" in listed.stdout
    (grant,) = json.loads(run(tmp_path, "grants", "--json").stdout)
    assert run(tmp_path, "revoke").returncode == 2  # nothing named: a usage error
    nothing = run(tmp_path, "revoke", "--tool", "exec")
    assert nothing.returncode == 1 and "no grant matches" in nothing.stderr
    revoked = run(tmp_path, "revoke", grant["id"][:10])
    assert revoked.returncode == 0 and "Revoked 1 grant." in revoked.stdout
    assert "No allow-always grants" in run(tmp_path, "grants").stdout


def test_a_missing_database_is_said_not_created(tmp_path):
    listed = run(tmp_path, "list")
    assert listed.returncode == 0 and "no database at" in listed.stdout
    approve = run(tmp_path, "approve", "abcd")
    assert approve.returncode == 1 and "no approvals database at" in approve.stderr
    assert not (tmp_path / ".toolhooks").exists()


def _bad_files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "dir.db").mkdir()
    (tmp_path / "notes.db").write_text("my notes\n" * 500)
    good = tmp_path / "cut.db"
    with SQLiteStore(good) as store:
        for index in range(300):
            store.add(row(f"appr_{index:04d}{'0' * 12}", call_id=f"c{index}"))
    with closing(sqlite3.connect(good)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = good.read_bytes()
    good.write_bytes(data[: len(data) // 3])
    return {"dir.db": "is a directory", "notes.db": "not a toolhooks approvals database",
            "cut.db": "cut.db"}  # fmt: skip


@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_every_subcommand_on_bad_files_is_one_line_naming_the_file(tmp_path, command):
    for name, said in _bad_files(tmp_path).items():
        for where in (("--db", name), ("--config", "toolhooks.toml")):
            (tmp_path / "toolhooks.toml").write_text(f'[approvals]\ndb = "{name}"\n')
            result = run(tmp_path, *SUBCOMMANDS[command], *where)
            assert result.returncode == 1, (name, where, result.stdout, result.stderr)
            assert "Traceback" not in result.stderr
            (line,) = result.stderr.splitlines()
            assert name in line and said in line, line


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (("list", "--alll"), "unrecognized arguments: --alll"),
        (("approve", "x", "--alwyas"), "unrecognized arguments: --alwyas"),
        (("list", "--state", "bogus"), "invalid choice: 'bogus'"),
        (("approve", "x", "--params", "{}", "--params-file", "f"), "not allowed with argument"),
        (("aprove", "x"), "did you mean 'approve'?"),
    ],
)
def test_bad_flags_are_usage_errors(tmp_path, args, hint):
    result = run(tmp_path, *args)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert hint in result.stderr


def test_the_commands_work_on_the_redis_store_of_state_url(tmp_path):
    require(_redis_up(), f"no Redis server at {REDIS_URL} (set TOOLHOOKS_TEST_REDIS_URL)")
    import redis
    from toolhooks.stores._redis import RedisStore
    from toolhooks.stores._state import SharedState

    prefix = f"toolhooks-test-{uuid.uuid4().hex[:12]}"
    (tmp_path / "toolhooks.toml").write_text(
        f'[state]\nurl = "{REDIS_URL}"\nkey_prefix = "{prefix}"\n'
    )
    store = RedisStore(SharedState(REDIS_URL, prefix))
    try:
        store.add(row("appr_bbbb1111cccc"))
        assert "bbbb1111" in run(tmp_path, "list").stdout
        approved = run(tmp_path, "approve", "bbbb", "--params", '{"path": "/ws/z"}')
        assert approved.returncode == 0, approved.stderr
        assert store.get("bbbb1111").decided_params == {"path": "/ws/z"}
        assert not (tmp_path / ".toolhooks").exists()  # no SQLite file on the side
    finally:
        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


def test_doctor_names_the_store_the_queue_route_uses(tmp_path):
    (tmp_path / "toolhooks.toml").write_text('[approvals]\nroute = "queue"\ndb = "a.db"\n')
    doctor = subprocess.run(
        [CONSOLE, "doctor", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    (check,) = [c for c in json.loads(doctor.stdout)["checks"] if c["check"] == "approvals"]
    assert check["status"] == "ok" and "a.db opens (0 pending, created empty)" in check["detail"]
    (tmp_path / "a.db").write_text("not a database\n" * 50)
    doctor = subprocess.run(
        [CONSOLE, "doctor", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    (check,) = [c for c in json.loads(doctor.stdout)["checks"] if c["check"] == "approvals"]
    assert check["status"] == "error" and "not a toolhooks approvals database" in check["detail"]
    require(_redis_up(), f"no Redis server at {REDIS_URL} (set TOOLHOOKS_TEST_REDIS_URL)")
    (tmp_path / "toolhooks.toml").write_text(
        f'[approvals]\nroute = "queue"\n\n[state]\nurl = "{REDIS_URL}"\n'
    )
    doctor = subprocess.run(
        [CONSOLE, "doctor", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    (check,) = [c for c in json.loads(doctor.stdout)["checks"] if c["check"] == "approvals"]
    assert "approvals in the shared state at" in check["detail"]
