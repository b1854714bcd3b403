"""``toolhooks approvals vote`` and ``approve`` on a team's approval, in real processes: the vote
is the proven person's (OS user; token where the OS user is shared), never a typed name."""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from toolhooks import Runtime, hookimpl

CONSOLE = shutil.which("toolhooks", path=os.path.dirname(sys.executable))
BOB_TOKEN = "bob-token-0123456789abcdef"


class Gate:
    name = "gate"
    priority = 50

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "Pay?", "description": "a payment"}}


def _config(tmp_path: Path, bob_os_user: str | None = None) -> Path:
    me = getpass.getuser()
    digest = hashlib.sha256(BOB_TOKEN.encode()).hexdigest()
    bob_user = f'os_user = "{bob_os_user}"\n' if bob_os_user else ""
    path = tmp_path / "toolhooks.toml"
    path.write_text(
        f"""
[approvals]
route = "queue"
db = "{tmp_path / "approvals.db"}"
wait_s = 0

[approvals.people.alice]
groups = ["payments"]
os_user = "{me}"

[approvals.people.bob]
groups = ["payments"]
token = "sha256:{digest}"
{bob_user}
[approvals.people.carol]
groups = ["payments"]

[[approvals.policies]]
tools = ["pay"]
approvers = ["group:payments"]
quorum = 2
""",
        encoding="utf-8",
    )
    return path


def _run(config: Path, *args: str, token: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    if token is not None:
        env["TOOLHOOKS_APPROVER_TOKEN"] = token
    assert CONSOLE is not None
    return subprocess.run(
        [CONSOLE, "approvals", *args, "--config", str(config)],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip


def _pending(config: Path, ran: list[str]) -> tuple[Runtime, str]:
    def pay(amount: int) -> str:
        ran.append("paid")
        return "paid"

    rt = Runtime(plugins=[Gate()], tools=[pay], config=config, load_entrypoints=False)
    outcome = rt.call({"name": "pay", "params": {"amount": 3}, "sender": {"id": "agent"}})
    assert outcome.status == "pending"
    return rt, outcome.pending.short_id


def test_votes_from_the_cli_are_proven_by_os_user_and_token(tmp_path: Path):
    config = _config(tmp_path)
    ran: list[str] = []
    rt, short = _pending(config, ran)
    with rt:
        typed = _run(config, "approve", short, "--by", "bob")
        assert typed.returncode == 1 and "cannot say who votes" in typed.stderr
        alice = _run(config, "vote", short, "allow")
        assert alice.returncode == 0, alice.stderr
        assert "alice's vote counted; 1 of 2 allows" in alice.stdout
        twice = _run(config, "approve", short)
        assert twice.returncode == 0 and "alice had voted already" in twice.stdout
        wrong = _run(config, "vote", short, "allow", token="not-a-token-of-anyone")
        assert wrong.returncode == 1 and "no person's" in wrong.stderr
        shown = _run(config, "show", short)
        assert "alice allow via cli" in shown.stdout and "2 allows needed" in shown.stdout
        assert "may vote:" in shown.stdout and "bob, carol" in shown.stdout
        bob = _run(config, "vote", short, "allow", "--json", token=BOB_TOKEN)
        assert bob.returncode == 0, bob.stderr
        shown = json.loads(bob.stdout)
        assert shown["decided"] and shown["approval"]["decided_by"] == "alice, bob"
        assert [v["channel"] for v in shown["votes"]] == ["cli", "cli"]
        assert rt.resume(short).status == "ok"
    assert ran == ["paid"]


def test_a_shared_os_user_must_give_a_token(tmp_path: Path):
    config = _config(tmp_path, bob_os_user=getpass.getuser())
    rt, short = _pending(config, [])
    with rt:
        shared = _run(config, "vote", short, "allow")
        assert shared.returncode == 1 and "is shared by alice, bob" in shared.stderr
        assert rt.approvals.votes(rt.approvals.get(short).id) == []
        bob = _run(config, "vote", short, "deny", "--reason", "no", token=BOB_TOKEN)
        assert bob.returncode == 0, bob.stderr
        assert "deny by bob" in bob.stdout
        assert rt.resume(short).status == "denied"
