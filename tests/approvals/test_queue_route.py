"""The queue route over the SQLite store, with real processes: an agent waits or defers, an
operator runs the console command, a restarted agent resumes (issue #11 item 2, issue #10 items
19 and 22)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from toolhooks import ApprovalRequest, Runtime, SQLiteStore, hookimpl
from toolhooks.testing import EventRecorder

AGENT = r"""
import json, signal, sys
from pathlib import Path
from toolhooks import ApprovalRequest, Runtime, hookimpl

# An agent started from a shell gets Ctrl-C as KeyboardInterrupt. A test runner started in the
# background (nohup, a CI job) passes SIGINT on as ignored, and Python keeps it ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
opts = json.loads(sys.argv[1])
if opts.get("sigterm_exits"):  # a host that turns SIGTERM into a clean exit
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
events = open(opts["events"], "a", encoding="utf-8")

class Gate:
    name = "gate"
    priority = 50

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": ApprovalRequest(
            title="Touch a file", description="The agent wants to create " + call.params["path"],
            severity="critical", timeout_s=opts.get("timeout", 30),
            allowed_decisions=("allow-once", "allow-always", "deny", "edit"))}

class Observer:
    name = "observer"
    priority = 10

    @hookimpl
    def before_tool_call(self):
        return None

    @hookimpl
    def on_event(self, event):
        events.write(json.dumps({"event": event.event, "call_id": event.call_id,
                                 "plugin": event.plugin, "pid": __import__("os").getpid(),
                                 "data": event.data}, default=str) + "\n")
        events.flush()

def touch(path: str) -> str:
    with open(path, "a") as f:
        f.write("ran\n")
    return "touched " + path

config = {"approvals": {"route": "queue", "db": opts["db"], "poll_interval_s": 0.05,
                        **opts.get("approvals", {})}}
answer = opts.get("approver")
if answer:  # the reference run: an approver answering at once, no store
    config = {}
with Runtime(plugins=[Gate(), Observer()], tools=[touch], config=config,
             load_entrypoints=False,
             approver=(lambda pending: answer) if answer else None) as rt:
    print("ready", flush=True)
    if "resume" in opts:
        if opts.get("go"):
            sys.stdin.readline()
        outcome = rt.resume(opts["resume"], opts.get("decision"))
    else:
        call = {"name": "touch", "params": {"path": opts["marker"]}, "session_id": "sess-1"}
        if "call_id" in opts:
            call["id"] = opts["call_id"]
        outcome = rt.call(call)
print(json.dumps(outcome.to_dict()), flush=True)
"""

CONSOLE = shutil.which("toolhooks", path=os.path.dirname(sys.executable))


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def until(predicate, deadline_s: float = 30.0, step: float = 0.02):
    """Poll ``predicate`` until it returns something truthy; fail after a generous deadline."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"condition not met within {deadline_s} s")


def toolhooks(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``toolhooks ARGS`` as an operator in another terminal would run it."""
    assert CONSOLE, "the toolhooks console script is not installed (pip install -e .)"
    return subprocess.run(
        [CONSOLE, *args], capture_output=True, text=True, cwd=cwd, env=_env(), timeout=60
    )


class Agent:
    """One agent process (the shared crash-test ``Child``) waiting on the queue route."""

    def __init__(self, spawn, tmp: Path, stdin: bool = False, **opts) -> None:
        self.tmp = tmp
        self.db, self.marker, self.events = tmp / "approvals.db", tmp / "marker.txt", tmp / "ev"
        self.opts = {"db": str(self.db), "marker": str(self.marker), "events": str(self.events)}
        self.opts.update(opts)
        self.child = spawn(
            sys.executable, "-c", AGENT, json.dumps(self.opts), cwd=tmp, env=_env(), stdin=stdin
        )
        self.proc = self.child.proc
        assert self.child.line() == "ready"

    def stderr_line(self) -> str:
        """The one line the queue route prints while it waits (or when it defers)."""
        line = self.child.line("stderr")
        assert line.startswith("toolhooks: approval "), line
        return line.strip()

    def outcome(self) -> dict:
        out, self.err = self.child.finish()
        assert self.proc.returncode == 0 and out.strip(), out + self.err
        return json.loads(out.strip().splitlines()[-1])

    def write(self, text: str) -> None:
        self.child.write(text)


@pytest.fixture
def agents(tmp_path, spawn):
    return lambda **opts: Agent(spawn, tmp_path, **opts)


def rows(db: Path, *states: str):
    with SQLiteStore(db) as store:
        return store.list(states=states or None)


def events_of(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def command_in(line: str) -> list[str]:
    """The ``toolhooks approvals approve ...`` command a stderr line tells the operator to run."""
    return shlex.split(line[line.index("toolhooks approvals approve") :])[1:]


# -- waiting: an operator decides from another process ---------------------------------------------


def test_the_printed_command_approves_the_waiting_call(tmp_path, agents):
    agent = agents()
    line = agent.stderr_line()
    (row,) = rows(agent.db, "pending")
    assert f"approval {row.short_id} is waiting" in line and "Touch a file" in line
    assert not agent.marker.exists()
    approved = toolhooks(*command_in(line), "--by", "ops", cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr
    outcome = agent.outcome()
    assert (outcome["status"], outcome["approval"]) == ("ok", "allow-once")
    assert agent.marker.read_text() == "ran\n"
    assert agent.err == ""  # one line, no more
    (used,) = rows(agent.db)
    assert (used.state, used.decision, used.decided_by) == ("consumed", "allow-once", "ops")
    again = toolhooks("approvals", "deny", row.short_id, "--db", str(agent.db), cwd=tmp_path)
    assert again.returncode == 1 and "already decided: allow-once by ops" in again.stderr


def test_an_operator_denies_with_a_reason(tmp_path, agents):
    agent = agents()
    agent.stderr_line()
    (row,) = rows(agent.db, "pending")
    denied = toolhooks(
        "approvals", "deny", row.short_id, "--reason", "not on a Friday", "--db", str(agent.db),
        cwd=tmp_path,
    )  # fmt: skip
    assert denied.returncode == 0, denied.stderr
    outcome = agent.outcome()
    assert (outcome["status"], outcome["reason"]) == ("denied", "Denied by user: not on a Friday")
    assert not agent.marker.exists()


def test_an_unanswered_approval_times_out_and_cannot_be_approved_late(tmp_path, agents):
    agent = agents(timeout=1)
    agent.stderr_line()
    outcome = agent.outcome()
    assert (outcome["status"], outcome["reason"]) == ("denied", "Approval timed out")
    (row,) = rows(agent.db)
    assert row.state == "consumed" and row.decision is None  # closed: a late yes runs nothing
    late = toolhooks("approvals", "approve", row.short_id, "--db", str(agent.db), cwd=tmp_path)
    assert late.returncode == 1 and "closed" in late.stderr
    assert not agent.marker.exists()


def test_two_operators_at_once_one_decides(tmp_path, agents):
    agent = agents()
    agent.stderr_line()
    (row,) = rows(agent.db, "pending")
    procs = [
        subprocess.Popen(
            [CONSOLE, "approvals", verb, row.short_id, "--db", str(agent.db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for verb in ("approve", "deny")
    ]
    errors = [proc.communicate(timeout=60)[1] for proc in procs]
    codes = [proc.returncode for proc in procs]
    assert sorted(codes) == [0, 1], errors
    assert "already decided" in errors[codes.index(1)]
    assert agent.outcome()["status"] == ("ok" if codes[0] == 0 else "denied")


# -- restarts --------------------------------------------------------------------------------------


def test_a_pending_approval_survives_sigkill_and_a_restarted_agent_uses_the_decision(
    tmp_path, agents
):
    first = agents()
    first.stderr_line()
    (row,) = rows(first.db, "pending")
    first.child.sigkill()
    assert rows(first.db, "pending")[0].id == row.id
    approved = toolhooks("approvals", "approve", row.short_id, "--db", str(first.db), cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr
    # The restarted agent proposes the same call (a new call id) and takes the decision.
    outcome = agents().outcome()
    assert (outcome["status"], outcome["approval"]) == ("ok", "allow-once")
    assert first.marker.read_text() == "ran\n"
    (used,) = rows(first.db)
    assert used.id == row.id and used.state == "consumed"
    # allow-once is used up: a third agent asks again, under a new approval.
    third = agents()
    third.stderr_line()
    assert [r.id for r in rows(first.db, "pending")] != [row.id]
    assert first.marker.read_text() == "ran\n"


def test_a_restarted_agent_waits_on_the_same_pending_row(tmp_path, agents):
    first = agents()
    first.stderr_line()
    (row,) = rows(first.db, "pending")
    first.child.sigkill()
    second = agents()
    assert row.short_id in second.stderr_line()  # waiting on the row its predecessor left
    assert [r.id for r in rows(second.db)] == [row.id]
    approved = toolhooks("approvals", "approve", row.short_id, "--db", str(second.db), cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr
    assert second.outcome()["status"] == "ok"


# -- deferring: wait_s ----------------------------------------------------------------------------


def test_wait_s_0_defers_and_a_restarted_agent_finishes_the_call_by_its_id(tmp_path, agents):
    first = agents(call_id="call-1", approvals={"wait_s": 0})
    line = first.stderr_line()
    outcome = first.outcome()
    assert outcome["status"] == "pending" and "deferred" in line
    row = rows(first.db, "pending")[0]
    assert row.expires_at > time.time() + 86_000  # defer_ttl_s, not the request's 30 s
    edited = toolhooks(
        *command_in(line), "--params", json.dumps({"path": str(first.marker) + ".edited"}),
        cwd=tmp_path,
    )  # fmt: skip
    assert edited.returncode == 0, edited.stderr
    second = agents(call_id="call-1", approvals={"wait_s": 0})
    finished = second.outcome()
    assert (finished["status"], finished["approval"]) == ("ok", "edit")
    assert Path(str(first.marker) + ".edited").read_text() == "ran\n"
    assert not first.marker.exists()
    # One logical call: one tool.proposed (first process), one tool.injected (second), and the
    # second lists the quiet handler of the first screening, which it never ran itself.
    trail = [e for e in events_of(first.events) if e["call_id"] == "call-1"]
    names = [e["event"] for e in trail]
    assert names.count("tool.proposed") == 1 and names.count("tool.injected") == 1
    assert names[-1] == "tool.injected" and trail[-1]["pid"] == second.proc.pid
    assert trail[0]["pid"] == first.proc.pid
    quiet = trail[-1]["data"]["quiet"]
    assert ("observer", "before_tool_call") in [(q["plugin"], q["hook"]) for q in quiet]


def _trail(events: Path, call_id: str) -> list[tuple]:
    """A call's events in order: name, plugin and what identifies a decision, no timings."""
    trail = []
    for event in events_of(events):
        if event["call_id"] != call_id:
            continue
        data = event["data"]
        quiet = tuple((q["plugin"], q["hook"], q["priority"]) for q in data.get("quiet", ()))
        trail.append((event["event"], event["plugin"], data.get("decision"), data.get("status"),
                      quiet))  # fmt: skip
    return trail


def test_resumed_in_another_process_the_call_is_exactly_the_call_decided_at_once(tmp_path, spawn):
    # Reference: one process, an approver that answers allow-once at once.
    (tmp_path / "ref").mkdir()
    reference = Agent(spawn, tmp_path / "ref", call_id="c", approver="allow-once")
    assert reference.outcome()["status"] == "ok"
    # The same call deferred by one process and resumed by another over the SQLite file.
    (tmp_path / "split").mkdir()
    first = Agent(spawn, tmp_path / "split", call_id="c", approvals={"wait_s": 0})
    first.stderr_line()
    pending = first.outcome()["pending"]
    second = Agent(spawn, tmp_path / "split", resume=pending["short_id"], decision="allow-once")
    assert second.outcome()["status"] == "ok"
    expected = _trail(reference.events, "c")
    split = _trail(first.events, "c")
    assert [e for e in split if e[0] != "approval.deferred"] == expected
    assert [e[0] for e in split].count("approval.deferred") == 1
    assert expected[-1][0] == "tool.injected" and expected[-1][4]  # quiet handlers listed


def test_wait_s_shorter_than_the_timeout_waits_then_defers(tmp_path, agents):
    agent = agents(approvals={"wait_s": 0.3})
    assert "is waiting" in agent.stderr_line()
    outcome = agent.outcome()
    assert outcome["status"] == "pending"
    (row,) = rows(agent.db, "pending")
    assert row.id == outcome["pending"]["id"] and row.expires_at > time.time() + 86_000


def test_a_deferred_approval_expires_after_defer_ttl_s(tmp_path, agents):
    agent = agents(call_id="c-exp", approvals={"wait_s": 0, "defer_ttl_s": 0.5})
    agent.stderr_line()
    assert agent.outcome()["status"] == "pending"
    (row,) = rows(agent.db)
    until(lambda: rows(agent.db, "expired"))
    late = toolhooks("approvals", "approve", row.short_id, "--db", str(agent.db), cwd=tmp_path)
    assert late.returncode == 1 and "expired" in late.stderr
    resumed = agents(resume=row.short_id).outcome()
    assert (resumed["status"], resumed["reason"]) == ("denied", "Approval timed out")
    assert not agent.marker.exists()


def test_two_processes_resume_one_approval_once(tmp_path, agents):
    first = agents(call_id="c-race", approvals={"wait_s": 0})
    first.stderr_line()
    assert first.outcome()["status"] == "pending"
    (row,) = rows(first.db)
    with SQLiteStore(first.db) as store:
        store.decide(row.id, "allow-once", by="ops")
    racers = [agents(resume=row.id, go=True, stdin=True) for _ in range(2)]
    for racer in racers:
        racer.write("go\n")
    results = [racer.outcome() for racer in racers]
    assert sorted(r["status"] for r in results) == ["blocked", "ok"]
    loser = next(r for r in results if r["status"] == "blocked")
    assert "already resolved" in loser["reason"]
    assert first.marker.read_text() == "ran\n"  # ran once


class Gate:
    name = "gate"

    def __init__(self, timeout: float = 30.0) -> None:
        self.request = ApprovalRequest(title="Write a file", description="w", timeout_s=timeout)

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": self.request}


def test_two_threads_resume_one_approval_once(tmp_path):
    config = {"approvals": {"route": "queue", "db": str(tmp_path / "a.db"), "wait_s": 0}}
    ran: list[str] = []

    def write(path: str) -> str:
        ran.append(path)
        return "wrote " + path

    with Runtime(plugins=[Gate()], tools=[write], config=config, load_entrypoints=False) as rt:
        pending = rt.call({"name": "write", "params": {"path": "p"}}).pending
        barrier = threading.Barrier(4)
        results: list = []

        def resume() -> None:
            barrier.wait()
            results.append(rt.resume(pending.id, "allow-once"))

        threads = [threading.Thread(target=resume) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(o.status for o in results) == ["blocked"] * 3 + ["ok"]
    assert ran == ["p"]


def test_ask_after_decide_waits_for_the_operator_and_returns_their_decision(tmp_path):
    db = tmp_path / "a.db"
    config = {"approvals": {"route": "queue", "db": str(db), "poll_interval_s": 0.02}}
    ran: list[str] = []

    def write(path: str) -> str:
        ran.append(path)
        return "wrote " + path

    with Runtime(plugins=[Gate()], tools=[write], config=config, load_entrypoints=False) as rt:
        call = {"name": "write", "params": {"path": "p"}, "id": "c-ask"}
        pending = rt.decide(call).pending
        answers: list[str] = []
        asking = threading.Thread(target=lambda: answers.append(rt.ask(pending.short_id)))
        asking.start()
        with SQLiteStore(db) as store:
            until(lambda: store.get(pending.id).state == "pending" and asking.is_alive())
            store.decide(pending.id, "allow-once", by="ops")
        asking.join(30)
        assert answers == ["allow-once"] and ran == []
        outcome = rt.call(call)
    assert (outcome.status, outcome.approval) == ("ok", "allow-once") and ran == ["p"]


def test_twin_calls_in_one_process_an_allow_once_serves_one_and_the_other_asks_again(tmp_path):
    db = tmp_path / "a.db"
    config = {"approvals": {"route": "queue", "db": str(db), "poll_interval_s": 0.02}}
    recorder = EventRecorder()
    rt = Runtime(plugins=[Gate(), recorder], config=config, load_entrypoints=False)
    rt.add_tool(lambda path: "wrote " + path, name="write")
    call = {"name": "write", "params": {"path": "p"}, "session_id": "s"}
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(rt.call(call))) for _ in range(2)]
    for thread in threads:
        thread.start()
    until(lambda: len(recorder.of("approval.requested")) == 2)
    (row,) = rows(db, "pending")  # two identical calls wait on one approval
    with SQLiteStore(db) as store:
        store.decide(row.id, "allow-once", by="op")
        second = until(lambda: [r for r in store.list(states=["pending"]) if r.id != row.id])
        store.decide(second[0].id, "allow-always", by="op")
    for thread in threads:
        thread.join(30)
    assert sorted(o.approval for o in results) == ["allow-always", "allow-once"]
    assert all(o.status == "ok" for o in results)
    assert rt.call(call).status == "ok"  # remembered in the store: no new approval
    assert len(rows(db)) == 2
    rt.close()


def test_twin_calls_proposed_at_the_same_moment_store_one_approval(tmp_path):
    db = tmp_path / "a.db"
    config = {"approvals": {"route": "queue", "db": str(db), "wait_s": 0}}
    rt = Runtime(plugins=[Gate()], config=config, load_entrypoints=False)
    rt.add_tool(lambda path: "wrote " + path, name="write")
    call = {"name": "write", "params": {"path": "p"}, "session_id": "s"}
    start = threading.Barrier(8)
    outcomes: list = []

    def propose() -> None:
        start.wait()
        outcomes.append(rt.call(call))

    threads = [threading.Thread(target=propose) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [o.status for o in outcomes] == ["pending"] * 8
    assert len({o.pending.id for o in outcomes}) == 1
    assert len(rows(db)) == 1
    rt.close()


# -- interrupted while waiting (issue #10 item 22) -------------------------------------------------


def test_sigint_while_waiting_records_the_end_of_the_call_and_closes_the_approval(agents):
    agent = agents(call_id="c-int")
    agent.stderr_line()
    (row,) = rows(agent.db, "pending")
    agent.proc.send_signal(signal.SIGINT)
    agent.child.finish()
    assert agent.proc.returncode != 0  # KeyboardInterrupt reached the agent, as it should
    trail = [e for e in events_of(agent.events) if e["call_id"] == "c-int"]
    assert [e["event"] for e in trail][-2:] == ["approval.resolved", "tool.injected"]
    assert trail[-2]["data"]["cancelled"] is True
    assert trail[-1]["data"]["status"] == "denied"
    (closed,) = rows(agent.db)
    assert closed.id == row.id and closed.state == "consumed"  # nobody can approve it now
    assert not agent.marker.exists()


def test_sigterm_turned_into_an_exit_by_the_host_records_the_end_of_the_call_too(agents):
    agent = agents(call_id="c-term", sigterm_exits=True)
    agent.stderr_line()
    agent.proc.send_signal(signal.SIGTERM)
    agent.child.finish()
    assert agent.proc.returncode == 143
    trail = [e for e in events_of(agent.events) if e["call_id"] == "c-term"]
    assert [e["event"] for e in trail][-2:] == ["approval.resolved", "tool.injected"]
    assert trail[-2]["data"]["cancelled"] is True
    assert rows(agent.db)[0].state == "consumed"


def test_a_bad_db_file_fails_the_runtime_naming_the_file(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("not a database\n" * 100)
    from toolhooks import ConfigError

    with pytest.raises(ConfigError) as caught:
        Runtime(config={"approvals": {"route": "queue", "db": str(bad)}}, load_entrypoints=False)
    assert str(bad) in str(caught.value) and "not a toolhooks approvals database" in str(
        caught.value
    )
