"""The ``queue`` and ``tty`` approval routes and ``toolhooks approvals``.

Store unit tests, then real multi-process tests: an agent subprocess waits on the SQLite queue
while the test, as the operator, runs the console command in another process.
"""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from toolhooks import ApprovalRequest, PendingApproval, Runtime, ToolCall, hookimpl
from toolhooks._config import load_config
from toolhooks._queue import ApprovalQueue
from toolhooks._routes import QueueApprover, TtyApprover, approver_for_route

# -- helpers ------------------------------------------------------------------------------------


def pending(
    timeout: float = 30.0,
    *,
    id: str = "appr_1",
    plugin: str = "gate",
    params: dict | None = None,
    digest: str = "d" * 64,
    allowed: tuple[str, ...] = ("allow-once", "allow-always", "deny"),
) -> PendingApproval:
    request = ApprovalRequest(
        title="Touch a file",
        description="wants to touch",
        severity="critical",
        timeout_s=max(timeout, 1),
        allowed_decisions=allowed,
    )
    call = ToolCall(
        "touch",
        params if params is not None else {"path": "x"},
        session_id="s1",
        sender={"id": "alice"},
    )
    return PendingApproval(
        id=id,
        call=call,
        plugin=plugin,
        request=request,
        digest=digest,
        expires_at=time.time() + timeout,
    )


def until(predicate, deadline_s: float = 5.0, step: float = 0.02):
    """Poll ``predicate`` until it returns something truthy; fail after a generous deadline."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"condition not met within {deadline_s} s")


# The real console script (next to this interpreter, else on PATH); `python -m toolhooks` when
# the script is not installed (a source checkout on PYTHONPATH).
_CONSOLE = shutil.which("toolhooks", path=os.path.dirname(sys.executable)) or shutil.which(
    "toolhooks"
)
_MODULE = [sys.executable, "-m", "toolhooks"]


def toolhooks_argv(*args: str, module: bool = False) -> list[str]:
    return [*(_MODULE if module or not _CONSOLE else [_CONSOLE]), *args]


def toolhooks_cmd(*args: str, module: bool = False, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``toolhooks ARGS`` (the console script, or ``python -m toolhooks``) as an operator."""
    argv = toolhooks_argv(*args, module=module)
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=_env(), timeout=20)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLHOOKS_CONFIG"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


AGENT = r"""
import json, sys
from pathlib import Path
from toolhooks import ApprovalRequest, Runtime, hookimpl

db, marker, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])

class Gate:
    name = "gate"

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": ApprovalRequest(
            title="Touch a file", description="The agent wants to create " + call.params["path"],
            severity="critical", timeout_s=timeout)}

def touch(path: str) -> str:
    Path(path).write_text("ran")
    return "touched " + path

config = {"approvals": {"route": "queue", "db": db, "poll_interval_s": 0.05}}
with Runtime(plugins=[Gate()], tools=[touch], config=config, load_entrypoints=False) as rt:
    outcome = rt.call({"name": "touch", "params": {"path": marker}, "session_id": "sess-1"})
print(json.dumps(outcome.to_dict()), flush=True)
"""


class Agent:
    def __init__(self, tmp: Path, timeout: float = 30.0) -> None:
        self.db, self.marker = tmp / "approvals.db", tmp / "marker.txt"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", AGENT, str(self.db), str(self.marker), str(timeout)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp,
            env=_env(),
        )

    def outcome(self) -> dict:
        out, err = self.proc.communicate(timeout=15)
        assert self.proc.returncode == 0 and out.strip(), out + err
        return json.loads(out.strip().splitlines()[-1])

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=10)


@pytest.fixture
def agents(tmp_path):
    started: list[Agent] = []

    def start(timeout: float = 30.0) -> Agent:
        agent = Agent(tmp_path, timeout)
        started.append(agent)
        return agent

    yield start
    for agent in started:
        agent.kill()


def rows(db: Path, status: str | None = None):
    with ApprovalQueue(db) as queue:
        return queue.list(status)


def get(db: Path, id: str):
    with ApprovalQueue(db) as queue:
        return queue.get(id)


def resolve(db: Path, id: str, decision: str, **kwargs) -> bool:
    with ApprovalQueue(db) as queue:
        return queue.resolve(id, decision, **kwargs)


def pending_rows(db: Path, count: int = 1):
    """Wait (generously) until ``count`` approvals are pending in ``db``; return them."""
    return until(lambda: db.is_file() and len(found := rows(db, "pending")) >= count and found)


@pytest.fixture
def queue(tmp_path):
    store = ApprovalQueue(tmp_path / "a.db")
    yield store
    store.close()


# -- the store ----------------------------------------------------------------------------------


def test_submit_stores_every_field_in_wal_mode(tmp_path, request):
    queue = ApprovalQueue(tmp_path / "sub" / "a.db")
    request.addfinalizer(queue.close)
    queue.submit(pending())
    queue.submit(pending())  # idempotent by id
    (row,) = queue.list()
    assert (row.id, row.status, row.plugin, row.tool, row.severity) == (
        "appr_1",
        "pending",
        "gate",
        "touch",
        "critical",
    )
    assert row.params == {"path": "x"} and row.sender == "alice" and row.session == "s1"
    assert row.allowed_decisions == ("allow-once", "allow-always", "deny")
    assert row.title == "Touch a file" and row.digest == "d" * 64 and row.decided_by is None
    with closing(sqlite3.connect(tmp_path / "sub" / "a.db")) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert queue.get("nope") is None


def test_resolve_exactly_once_and_records_who(tmp_path, queue):
    queue.submit(pending())
    assert queue.resolve("appr_1", "deny", by="bob", reason="not today") is True
    assert queue.resolve("appr_1", "allow-once", by="carol") is False
    row = queue.get("appr_1")
    assert (row.status, row.decided_by, row.reason) == ("deny", "bob", "not today")
    assert row.decided_at is not None
    assert queue.resolve("unknown", "deny") is False


def test_resolve_rejects_decisions_the_request_does_not_allow(tmp_path, queue):
    queue.submit(pending(allowed=("allow-once",)))
    with pytest.raises(ValueError, match="not allowed"):
        queue.resolve("appr_1", "allow-always")
    with pytest.raises(ValueError, match="unknown decision"):
        queue.resolve("appr_1", "yes please")
    assert queue.get("appr_1").status == "pending"
    assert queue.resolve("appr_1", "deny") is True  # a deny is always possible


def test_two_operators_at_once_threads(tmp_path, queue):
    for n in range(5):
        queue.submit(pending(id=f"appr_{n}"))
    barrier = threading.Barrier(8)
    wins: list[tuple[str, str]] = []

    def operator(k: int) -> None:
        barrier.wait()
        for n in range(5):
            decision = ("allow-once", "deny")[k % 2]
            if queue.resolve(f"appr_{n}", decision, by=f"op{k}"):
                wins.append((f"appr_{n}", f"op{k}"))
        queue.close()

    threads = [threading.Thread(target=operator, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(w[0] for w in wins) == [f"appr_{n}" for n in range(5)]
    for approval, winner in wins:
        assert queue.get(approval).decided_by == winner


def test_two_operators_at_once_processes(tmp_path):
    db = tmp_path / "a.db"
    with ApprovalQueue(db) as queue:
        queue.submit(pending())
    racer = (
        "import sys, time\n"
        "from toolhooks._queue import ApprovalQueue\n"
        "q = ApprovalQueue(sys.argv[1]); q.get('appr_1')\n"
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\n"
        "print(q.resolve('appr_1', sys.argv[3], by=sys.argv[4]))\n"
    )
    start = str(time.time() + 1.5)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", racer, str(db), start, decision, f"op{k}"],
            stdout=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for k, decision in enumerate(["allow-once", "deny", "allow-always", "deny"])
    ]
    results = [proc.communicate(timeout=15)[0].strip() for proc in procs]
    assert sorted(results) == ["False", "False", "False", "True"]
    assert get(db, "appr_1").decided_by == f"op{results.index('True')}"


def test_expires_at_its_deadline(tmp_path, queue):
    queue.submit(pending(timeout=0.3))
    queue.submit(pending(id="appr_2"))
    assert [r.id for r in queue.list("pending")] == ["appr_1", "appr_2"]
    until(lambda: queue.get("appr_1").status == "expired")
    assert queue.resolve("appr_1", "allow-once") is False  # too late, even before expire() ran
    assert [r.id for r in queue.list("expired")] == ["appr_1"]
    assert queue.expire() == 1 and queue.expire() == 0
    with closing(sqlite3.connect(tmp_path / "a.db")) as conn:
        raw = conn.execute("SELECT status FROM approvals WHERE id = 'appr_1'").fetchone()
    assert raw[0] == "expired"
    assert queue.get("appr_2").status == "pending"
    with pytest.raises(ValueError, match="unknown status"):
        queue.list("maybe")


def test_wait_returns_the_decision_or_none_at_the_deadline(tmp_path, queue):
    queue.submit(pending())
    threading.Timer(
        0.2, resolve, (tmp_path / "a.db", "appr_1", "allow-always"), {"by": "op"}
    ).start()
    decision = queue.wait("appr_1", timeout=5, poll_interval=0.02)
    assert (decision.decision, decision.by) == ("allow-always", "op")
    queue.submit(pending(timeout=0.3, id="appr_2"))
    assert queue.wait("appr_2", timeout=5, poll_interval=0.02) is None  # the row's deadline wins
    assert queue.get("appr_2").status == "expired"
    with pytest.raises(KeyError):
        queue.wait("nope", 1)


def test_reuse_by_digest_and_plugin_and_consume_once(tmp_path, queue):
    first = queue.submit_or_reuse(pending())
    assert queue.submit_or_reuse(pending(id="appr_2")).id == first.id  # same digest + plugin
    assert queue.submit_or_reuse(pending(id="appr_3", plugin="other")).id == "appr_3"
    assert queue.submit_or_reuse(pending(id="appr_4", digest="e" * 64)).id == "appr_4"
    assert queue.consume(first.id) is False  # nothing decided yet
    queue.resolve(first.id, "allow-once")
    assert queue.submit_or_reuse(pending(id="appr_5")).id == first.id  # decided, not picked up
    assert queue.consume(first.id) is True and queue.consume(first.id) is False
    assert queue.submit_or_reuse(pending(id="appr_6")).id == "appr_6"  # used up: ask again


def test_connections_are_per_thread(tmp_path, queue):
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            queue.submit(pending(id=f"appr_{n}"))
            queue.resolve(f"appr_{n}", "deny")
            queue.close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(queue.list("deny")) == 16


# -- the routes in one process ----------------------------------------------------------------


class Gate:
    name = "gate"

    def __init__(self, timeout: float = 30.0, allowed=("allow-once", "allow-always", "deny")):
        self.request = ApprovalRequest(
            title="Write a file",
            description="writes\x1b[2J things",
            timeout_s=timeout,
            allowed_decisions=allowed,
        )

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": self.request}


def write(path: str) -> str:
    return "wrote " + path


def test_queue_route_relative_db_is_relative_to_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    approver = approver_for_route("queue", load_config({"approvals": {"route": "queue"}}))
    assert isinstance(approver, QueueApprover)
    assert approver.queue.path == tmp_path / ".toolhooks" / "approvals.db"
    assert not approver.queue.path.exists()  # created on the first approval, not before


def test_queue_route_in_process_allow_always_and_shared_rows(tmp_path):
    db = tmp_path / "a.db"
    config = {"approvals": {"route": "queue", "db": str(db), "poll_interval_s": 0.02}}
    rt = Runtime(plugins=[Gate()], tools=[write], config=config, load_entrypoints=False)
    call = {"name": "write", "params": {"path": "p"}, "session_id": "s"}
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(rt.call(call))) for _ in range(2)]
    for thread in threads:
        thread.start()
    # Two identical calls share one row; the allow-once serves one, the other asks again.
    (row,) = pending_rows(db)
    time.sleep(0.1)
    assert len(rows(db)) == 1
    assert resolve(db, row.id, "allow-once")
    second = until(lambda: [r for r in rows(db, "pending") if r.id != row.id])
    assert resolve(db, second[0].id, "allow-always", by="op")
    for thread in threads:
        thread.join(10)
    assert sorted(o.approval for o in results) == ["allow-always", "allow-once"]
    assert all(o.status == "ok" for o in results)
    assert rt.call(call).status == "ok"  # remembered: no new row
    assert len(rows(db)) == 2
    rt.close()


def _tty_runtime(answer: str, allowed=("allow-once", "allow-always", "deny")):
    out = io.StringIO()
    approver = TtyApprover(input=io.StringIO(answer), output=out)
    rt = Runtime(
        plugins=[Gate(allowed=allowed)], tools=[write], approver=approver, load_entrypoints=False
    )
    return rt.call({"name": "write", "params": {"path": "/etc/x"}}), out.getvalue()


def test_tty_prints_the_request_and_reads_a_decision():
    outcome, shown = _tty_runtime("a\n")
    assert outcome.status == "ok" and outcome.approval == "allow-always"
    for text in (
        "Write a file",
        "severity: warning",
        "tool: write",
        '"path": "/etc/x"',
        "[o]nce / [a]lways / [d]eny",
    ):
        assert text in shown
    assert "\x1b" not in shown and "\\x1b[2J" in shown  # escapes are shown, not obeyed


def test_tty_reprompts_until_an_allowed_answer():
    outcome, shown = _tty_runtime("maybe\nalways\nonce\n", allowed=("allow-once", "deny"))
    assert outcome.approval == "allow-once"
    assert shown.count("Please answer") == 2 and "[a]lways" not in shown
    denied, _ = _tty_runtime("d\n")
    assert (denied.status, denied.reason) == ("denied", "Denied by user")


def test_tty_end_of_file_and_no_terminal_deny_with_a_reason(monkeypatch):
    outcome, _ = _tty_runtime("")
    assert outcome.status == "denied" and "end of file" in outcome.reason
    monkeypatch.setattr("toolhooks._routes._open_tty", lambda: None)
    rt = Runtime(
        plugins=[Gate()],
        tools=[write],
        config={"approvals": {"route": "tty"}},
        load_entrypoints=False,
    )
    outcome = rt.call({"name": "write", "params": {"path": "x"}})
    assert outcome.status == "denied" and "no terminal" in outcome.reason


TTY_AGENT = r"""
import json, os, sys
os.setsid()
os.close(os.open(sys.argv[1], os.O_RDWR))  # the pty becomes our controlling terminal
from toolhooks import ApprovalRequest, Runtime, hookimpl

class Gate:
    name = "gate"
    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": ApprovalRequest(title="Ring the bell", description="ding",
                                                    timeout_s=float(sys.argv[2]))}

def ring() -> str:
    return "rang"

with Runtime(plugins=[Gate()], tools=[ring], config={"approvals": {"route": "tty"}},
             load_entrypoints=False) as rt:
    print(json.dumps(rt.call({"name": "ring"}).to_dict()), flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")
@pytest.mark.parametrize(
    ("answer", "timeout", "status", "reason"),
    [
        (b"o\n", "30", "ok", None),
        (None, "1", "denied", "Approval timed out"),
    ],
)
def test_tty_route_on_a_real_terminal(answer, timeout, status, reason):
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", TTY_AGENT, os.ttyname(slave), timeout],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    try:
        seen = b""
        end = time.monotonic() + 10
        while b"Allow this call?" not in seen and time.monotonic() < end:
            if select.select([master], [], [], 0.1)[0]:
                seen += os.read(master, 4096)
        assert b"Ring the bell" in seen and b"Allow this call?" in seen
        if answer is not None:
            os.write(master, answer)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
        os.close(master)
        os.close(slave)
    outcome = json.loads(out.decode().strip().splitlines()[-1])
    assert (outcome["status"], outcome["reason"]) == (status, reason), err


# -- two processes: an agent waits, an operator decides ---------------------------------------


def test_operator_approves_from_another_process(tmp_path, agents):
    agent = agents()
    pending_rows(agent.db)
    listed = toolhooks_cmd("approvals", "list", "--json", "--db", str(agent.db), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert (row["status"], row["tool"], row["plugin"]) == ("pending", "touch", "gate")
    assert row["params"] == {"path": str(agent.marker)} and row["session"] == "sess-1"
    assert not agent.marker.exists()
    table = toolhooks_cmd("approvals", "list", "--db", str(agent.db), cwd=tmp_path)
    assert row["id"] in table.stdout and "Touch a file" in table.stdout
    approved = toolhooks_cmd(
        "approvals",
        "approve",
        row["id"],
        "--by",
        "ops",
        "--db",
        str(agent.db),
        module=True,
        cwd=tmp_path,
    )
    assert approved.returncode == 0, approved.stderr
    outcome = agent.outcome()
    assert (outcome["status"], outcome["approval"]) == ("ok", "allow-once")
    assert agent.marker.read_text() == "ran"
    again = toolhooks_cmd("approvals", "deny", row["id"], "--db", str(agent.db), cwd=tmp_path)
    assert again.returncode == 1 and "already decided: allow-once by ops" in again.stderr
    shown = toolhooks_cmd(
        "approvals", "show", row["id"], "--json", "--db", str(agent.db), cwd=tmp_path
    )
    assert json.loads(shown.stdout)["consumed_at"] is not None


def test_operator_denies_with_a_reason(tmp_path, agents):
    agent = agents()
    (row,) = pending_rows(agent.db)
    denied = toolhooks_cmd(
        "approvals",
        "deny",
        row.id,
        "--reason",
        "not on a Friday",
        "--db",
        str(agent.db),
        cwd=tmp_path,
    )
    assert denied.returncode == 0, denied.stderr
    outcome = agent.outcome()
    assert (outcome["status"], outcome["reason"]) == ("denied", "Denied by user: not on a Friday")
    assert not agent.marker.exists()


def test_unanswered_approval_times_out_and_expires(tmp_path, agents):
    agent = agents(timeout=1)
    (row,) = until(lambda: agent.db.is_file() and rows(agent.db))  # pending only for a second
    outcome = agent.outcome()
    assert (outcome["status"], outcome["reason"]) == ("denied", "Approval timed out")
    assert not agent.marker.exists()
    assert get(agent.db, row.id).status == "expired"
    late = toolhooks_cmd("approvals", "approve", row.id, "--db", str(agent.db), cwd=tmp_path)
    assert late.returncode == 1 and "expired" in late.stderr


def test_pending_approval_survives_an_agent_kill(tmp_path, agents):
    first = agents()
    (row,) = pending_rows(first.db)
    first.proc.kill()  # SIGKILL: no cleanup of any kind
    first.proc.wait(10)
    assert get(first.db, row.id).status == "pending"
    approved = toolhooks_cmd("approvals", "approve", row.id, "--db", str(first.db), cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr
    # The restarted agent proposes the same call and picks up the decision made meanwhile.
    outcome = agents().outcome()
    assert (outcome["status"], outcome["approval"]) == ("ok", "allow-once")
    assert first.marker.read_text() == "ran"
    (used,) = rows(first.db)
    assert used.id == row.id and used.consumed_at is not None


def test_restarted_agent_waits_on_the_same_pending_row(tmp_path, agents):
    first = agents()
    (row,) = pending_rows(first.db)
    first.kill()
    second = agents()
    until(lambda: second.proc.poll() is None and get(second.db, row.id))
    time.sleep(0.8)  # give the new agent time to start waiting (it must not add a second row)
    assert [r.id for r in rows(second.db)] == [row.id]
    approved = toolhooks_cmd("approvals", "approve", row.id, "--db", str(second.db), cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr
    assert second.outcome()["status"] == "ok"


def test_two_operator_processes_at_once(tmp_path, agents):
    agent = agents()
    (row,) = pending_rows(agent.db)
    procs = [
        subprocess.Popen(
            toolhooks_argv("approvals", verb, row.id, "--db", str(agent.db)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for verb in ("approve", "deny")
    ]
    errors = [proc.communicate(timeout=20)[1] for proc in procs]
    codes = [proc.returncode for proc in procs]
    assert sorted(codes) == [0, 1], errors
    assert "already decided" in errors[codes.index(1)]
    outcome = agent.outcome()
    assert outcome["status"] == ("ok" if codes[0] == 0 else "denied")


def test_cli_errors_and_empty_database(tmp_path):
    missing = tmp_path / "none.db"
    listed = toolhooks_cmd("approvals", "list", "--json", "--db", str(missing), cwd=tmp_path)
    assert (listed.returncode, json.loads(listed.stdout)) == (0, [])
    shown = toolhooks_cmd("approvals", "show", "appr_x", "--db", str(missing), cwd=tmp_path)
    assert shown.returncode == 1 and "no approval 'appr_x'" in shown.stderr
    assert not missing.exists()  # reading never creates the database
    db = tmp_path / "a.db"
    with ApprovalQueue(db) as queue:
        queue.submit(pending(allowed=("allow-once", "deny")))
    always = toolhooks_cmd(
        "approvals", "approve", "appr_1", "--always", "--db", str(db), cwd=tmp_path
    )
    assert always.returncode == 1 and "not allowed" in always.stderr
    (tmp_path / "toolhooks.toml").write_text('[approvals]\ndb = "a.db"\n')
    human = toolhooks_cmd("approvals", "show", "appr_1", cwd=tmp_path)  # db from the config
    assert human.returncode == 0 and "critical" in human.stdout and '"path": "x"' in human.stdout


def test_connections_opened_at_once_on_a_new_database_all_work(tmp_path):
    """Switching a new file to WAL needs an exclusive lock that SQLite does not wait for: agent
    threads opening their first connections at the same moment once failed at once with
    'database is locked' (and the approval was denied)."""
    for attempt in range(15):
        db = tmp_path / f"a{attempt}.db"
        start = threading.Barrier(6)
        errors: list[BaseException] = []

        def open_and_read(
            db: Path = db, start: threading.Barrier = start, errors: list = errors
        ) -> None:
            start.wait(10)
            try:
                with ApprovalQueue(db) as queue:
                    queue.list()
            except BaseException as error:
                errors.append(error)

        workers = [threading.Thread(target=open_and_read) for _ in range(6)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(20)
        assert errors == []
