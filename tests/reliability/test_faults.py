"""Faults: plugins that raise, hang, leak threads, return coroutines or unregister mid-call;
approvers that raise or never answer; an event log on a full disk; SIGKILL while events are being
written and while an approval is pending. Real threads, real subprocesses, real files."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from toolhooks import SQLiteStore, emit, hookimpl

MODES = ["call", "acall"]


def run(rt, request, mode, execute=None):
    if mode == "call":
        return rt.call(request, execute=execute)
    return asyncio.run(rt.acall(request, execute=execute))


@pytest.fixture
def make(toolhooks_make_runtime, recorder):
    """A runtime with the given plugins and a recorder; no entry points."""

    def build(*plugins, **kwargs):
        return toolhooks_make_runtime(plugins=[*plugins, recorder], **kwargs)

    return build


def ran_list():
    ran: list = []
    return ran, lambda params: ran.append(params) or "ran"


# -- plugins that raise ------------------------------------------------------------------------


class Raises:
    name = "raises"

    def __init__(self, is_async=False):
        self.is_async = is_async

    def _fail(self):
        raise RuntimeError("plugin bug")

    @hookimpl
    def before_tool_call(self, call):
        return self._maybe_async()

    @hookimpl
    def after_tool_call(self, call, result):
        return self._maybe_async()

    @hookimpl
    def tool_visible(self, tool):
        return self._maybe_async()

    @hookimpl
    def on_event(self, event):
        if event.event != "tool.proposed":
            self._fail()

    def _maybe_async(self):
        if not self.is_async:
            self._fail()

        async def later():
            self._fail()

        return later()


@pytest.mark.parametrize("is_async", [False, True], ids=["def", "def returning a coroutine"])
@pytest.mark.parametrize("mode", MODES)
def test_a_raising_plugin_fails_closed_before_and_open_after(
    make, recorder, mode, is_async, caplog
):
    ran, execute = ran_list()
    rt = make(Raises(is_async))
    rt.add_tool(lambda: "x", name="visible")
    outcome = run(rt, {"name": "t"}, mode, execute)
    assert outcome.status == "blocked" and outcome.blocked_by == "raises"
    assert outcome.reason.endswith("failed: RuntimeError: plugin bug") and ran == []
    assert rt.visible_tools() == []  # tool_visible fails closed: hidden
    # The sink raising on every event never reached the call; it was logged.
    assert recorder.names()[-1] == "tool.injected"
    assert "on_event sink raises failed" in caplog.text
    rt.unregister("raises")

    class AfterOnly(Raises):
        name = "after_only"
        before_tool_call = None
        tool_visible = None
        on_event = None

    rt.register(AfterOnly(is_async))
    outcome = run(rt, {"name": "t"}, mode, execute)
    assert outcome.status == "ok" and outcome.content == "ran"  # after_tool_call fails open
    assert [e.data["error"] for e in recorder.of("hook.error")][-1] == "RuntimeError: plugin bug"


def test_a_failing_audit_plugin_never_blocks_withholds_or_hides(make, recorder):
    """A shadow plugin is there to be trialled: its failures are recorded, never applied."""

    class Shadow(Raises):
        name = "shadow"

    ran, execute = ran_list()
    rt = make(Shadow(), config={"plugins": {"shadow": {"mode": "audit", "on_error": "block"}}})
    rt.add_tool(lambda: "x", name="visible")
    outcome = rt.call({"name": "t"}, execute=execute)
    assert outcome.status == "ok" and outcome.content == "ran" and len(ran) == 1
    assert [t.name for t in rt.visible_tools()] == ["visible"]
    assert [e.data["hook"] for e in recorder.of("hook.error")] == [
        "before_tool_call",
        "after_tool_call",
    ]


# -- plugins that hang -------------------------------------------------------------------------


class Hangs:
    name = "hangs"

    def __init__(self, release: threading.Event):
        self.release = release

    @hookimpl(timeout=0.2)
    def before_tool_call(self, call):
        self.release.wait(30)


class HangsAsync:
    name = "hangs_async"

    @hookimpl(timeout=0.2)
    async def before_tool_call(self, call):
        await asyncio.sleep(30)


class HangsAfter:
    name = "hangs_after"

    @hookimpl(timeout=0.2)
    async def after_tool_call(self, result):
        await asyncio.sleep(30)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["def in a thread", "async def"])
def test_a_hanging_before_hook_times_out_and_blocks(make, mode, kind):
    release = threading.Event()
    plugin = Hangs(release) if kind == "def in a thread" else HangsAsync()
    ran, execute = ran_list()
    rt = make(plugin)
    started = time.monotonic()
    outcome = run(rt, {"name": "t"}, mode, execute)
    elapsed = time.monotonic() - started
    release.set()
    assert outcome.status == "blocked" and outcome.blocked_by == plugin.name
    assert outcome.reason.endswith("failed: timed out after 0.2 s") and ran == []
    assert elapsed < 5


@pytest.mark.parametrize("mode", MODES)
def test_a_hanging_after_hook_times_out_and_the_result_still_arrives(make, mode):
    rt = make(HangsAfter())
    started = time.monotonic()
    outcome = run(rt, {"name": "t"}, mode, lambda params: "ran")
    assert outcome.status == "ok" and outcome.content == "ran"
    assert time.monotonic() - started < 5


def test_an_async_hook_without_a_timeout_gets_the_default(make, monkeypatch):
    import toolhooks.registry._registry as registry

    monkeypatch.setattr(registry, "DEFAULT_ASYNC_TIMEOUT", 0.3)  # the 15 s default, shortened

    class Forever:
        name = "forever"

        @hookimpl
        async def before_tool_call(self, call):
            await asyncio.sleep(3600)

    rt = make(Forever())
    started = time.monotonic()
    outcome = rt.call({"name": "t"}, execute=lambda params: "ran")
    assert outcome.status == "blocked" and outcome.reason.endswith("timed out after 0.3 s")
    assert time.monotonic() - started < 5


def test_a_hanging_visibility_hook_hides_the_tool(make):
    class Slow:
        name = "slow"

        @hookimpl(timeout=0.2)
        async def tool_visible(self, tool):
            await asyncio.sleep(30)

    rt = make(Slow())
    rt.add_tool(lambda: "x", name="tool")
    assert rt.visible_tools() == []


# -- threads left behind -----------------------------------------------------------------------


def test_a_timed_out_handler_leaves_only_a_daemon_thread_whose_answer_is_dropped(make, recorder):
    release = threading.Event()

    class Zombie:
        name = "zombie"

        @hookimpl(timeout=0.1)
        def before_tool_call(self, call):
            release.wait(10)
            self.emitted = emit("zombie.late")  # after its call ended: refused
            return {"params": {"injected": True}}

    zombie = Zombie()
    ran, execute = ran_list()
    rt = make(zombie)
    first = rt.call({"name": "t", "params": {"n": 1}}, execute=execute)
    assert first.status == "blocked"
    leftover = [t for t in threading.enumerate() if t.name == "toolhooks-timed"]
    assert leftover and all(t.daemon for t in leftover)
    rt.unregister("zombie")
    second = rt.call({"name": "t", "params": {"n": 2}}, execute=execute)
    release.set()
    for thread in leftover:
        thread.join(5)
    # The late answer changed nothing, and no event of the dead call came after its tool.injected.
    assert second.status == "ok" and ran == [{"n": 2}]
    assert zombie.emitted is False
    first_events = recorder.names(first.call_id)
    assert first_events[-1] == "tool.injected" and "zombie.late" not in recorder.names()


def test_a_handler_hung_forever_does_not_block_interpreter_exit(tmp_path):
    script = textwrap.dedent(
        """
        import time
        from toolhooks import Runtime, hookimpl

        class Stuck:
            @hookimpl(timeout=0.2)
            def before_tool_call(self, call):
                time.sleep(3600)

        rt = Runtime(plugins=[Stuck()], load_entrypoints=False)
        print(rt.call({"name": "t"}, execute=lambda p: "ran").status, flush=True)
        """
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "blocked"
    assert time.monotonic() - started < 30


# -- sync hooks that return coroutines ---------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_def_returning_a_coroutine_is_awaited_for_every_hook(make, recorder, mode):
    seen = []

    class Disguised:
        name = "disguised"

        @hookimpl
        def before_tool_call(self, call):
            async def later():
                return {"params": {"checked": True}}

            return later()

        @hookimpl
        def after_tool_call(self, result):
            async def later():
                return {"note": "audited"}

            return later()

        @hookimpl
        def tool_visible(self, tool):
            async def later():
                return tool.name != "hidden"

            return later()

        @hookimpl
        def on_event(self, event):
            async def later():
                seen.append(event.event)

            return later()

    ran, execute = ran_list()
    rt = make(Disguised())
    rt.add_tool(lambda: "x", name="hidden")
    rt.add_tool(lambda: "x", name="shown")
    outcome = run(rt, {"name": "t", "params": {}}, mode, execute)
    assert outcome.status == "ok" and ran == [{"checked": True}]
    assert outcome.content == "ran\n\naudited"
    assert [t.name for t in rt.visible_tools()] == ["shown"]
    deadline = time.monotonic() + 5
    while "tool.injected" not in seen and time.monotonic() < deadline:
        time.sleep(0.01)  # an async sink is scheduled on the background loop, not awaited
    assert "tool.injected" in seen


# -- plugins that change the registry mid-call -------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_plugin_that_unregisters_itself_mid_call(make, mode):
    order = []

    class Once:
        name = "once"
        priority = 10

        def __init__(self, rt_ref):
            self.rt_ref = rt_ref

        @hookimpl
        def before_tool_call(self, call):
            order.append("once.before")
            self.rt_ref[0].unregister("once")
            self.rt_ref[0].register(Late())

        @hookimpl
        def after_tool_call(self, result):
            order.append("once.after")

    class Later:
        name = "later"

        @hookimpl
        def before_tool_call(self, call):
            order.append("later.before")

    class Late:
        name = "late"

        @hookimpl
        def before_tool_call(self, call):
            order.append("late.before")

    holder: list = []
    ran, execute = ran_list()
    rt = make(Once(holder), Later())
    holder.append(rt)
    first = run(rt, {"name": "t"}, mode, execute)
    # The running call keeps the chains it started with: no handler skipped, none added.
    assert first.status == "ok" and order == ["once.before", "later.before", "once.after"]
    order.clear()
    second = run(rt, {"name": "t"}, mode, execute)
    assert second.status == "ok" and order == ["later.before", "late.before"]
    assert len(ran) == 2


def test_unregistering_while_many_calls_run_concurrently(make):
    class Flaky:
        name = "flaky"

        @hookimpl
        async def before_tool_call(self, call):
            await asyncio.sleep(0)
            return {"params": {"seen_by": "flaky"}}

    rt = make(Flaky())

    async def main():
        async def churn():
            for _ in range(50):
                await asyncio.sleep(0)
                with contextlib.suppress(KeyError):
                    rt.unregister("flaky")
                rt.register(Flaky())

        calls = [
            rt.acall({"name": "t", "params": {"i": i}}, execute=lambda p: p) for i in range(200)
        ]
        results = await asyncio.gather(churn(), *calls)
        return results[1:]

    outcomes = asyncio.run(main())
    assert all(o.status == "ok" for o in outcomes)
    assert all(o.value["i"] == i for i, o in enumerate(outcomes))


# -- approvers that raise or never answer ------------------------------------------------------


class Gate:
    name = "gate"

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "ok?", "description": "d", "timeout_s": 1}}


def approver_of(kind, never: threading.Event):
    if kind == "sync raises":

        def approver(pending):
            raise ConnectionError("approval service down")

    elif kind == "async raises":

        async def approver(pending):
            raise ConnectionError("approval service down")

    elif kind == "sync never answers":

        def approver(pending):
            never.wait(30)
            return "allow-once"  # far too late: must be ignored

    else:

        async def approver(pending):
            await asyncio.sleep(30)
            return "allow-once"

    return approver


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "kind", ["sync raises", "async raises", "sync never answers", "async never answers"]
)
def test_an_approver_that_fails_or_never_answers_denies(make, recorder, mode, kind):
    never = threading.Event()
    ran, execute = ran_list()
    rt = make(Gate(), approver=approver_of(kind, never))
    started = time.monotonic()
    outcome = run(rt, {"name": "deploy"}, mode, execute)
    elapsed = time.monotonic() - started
    never.set()
    assert outcome.status == "denied" and ran == []
    if "raises" in kind:
        assert outcome.reason == "Approval failed: ConnectionError: approval service down"
        assert elapsed < 1
    else:
        assert outcome.reason == "Approval timed out"
        assert 0.9 < elapsed < 5  # the 1 s timeout of the request
    resolved = recorder.of("approval.resolved")[-1]
    assert resolved.data["decision"] == "deny"


# -- an event sink whose disk is full ----------------------------------------------------------


def check_whole_lines(data: bytes, fragments_allowed: int = 0) -> list[dict]:
    """Every newline-terminated line is one JSON event; returns them. Torn pieces are counted."""
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    events, torn = [], 0 if not tail else 1
    for line in lines:
        try:
            events.append(json.loads(line))
        except ValueError:
            torn += 1
    assert torn <= fragments_allowed, f"{torn} torn lines"
    return events


def run_logged_calls(rt, count, blob=500):
    statuses = {
        rt.call(
            {"name": "t", "params": {"blob": "x" * blob, "i": i}}, execute=lambda p: "ok"
        ).status
        for i in range(count)
    }
    return statuses


@pytest.fixture
def tiny_disk(tmp_path):
    """A real 64 KB tmpfs (needs root); skipped where it cannot be mounted."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_drops_events_but_never_a_call(tiny_disk, toolhooks_make_runtime, caplog):
    path = tiny_disk / "events.jsonl"
    rt = toolhooks_make_runtime(
        config={"plugins": {"only": ["event_log"], "event_log": {"path": str(path)}}},
        load_entrypoints=True,
    )
    with caplog.at_level(logging.WARNING, logger="toolhooks"):
        assert run_logged_calls(rt, 300) == {"ok"}
        log = rt.get_plugin("event_log")
        log.flush()  # the default durability leaves the last lines to the writer thread
    stats = log.stats()
    assert stats.dropped > 0 and "No space left on device" in stats.last_error
    assert caplog.text.count("cannot write, events are dropped") == 1  # warned once
    before = check_whole_lines(path.read_bytes(), fragments_allowed=1)
    assert before and all("event" in event for event in before)
    # Space comes back: logging resumes with whole lines, the torn piece isolated on its own line.
    (tiny_disk / "events.jsonl").rename(tiny_disk / "old.jsonl")
    (tiny_disk / "old.jsonl").unlink()
    time.sleep(1.1)  # the writer re-checks its file once a second
    assert run_logged_calls(rt, 5, blob=10) == {"ok"}
    log.flush()
    after = check_whole_lines(path.read_bytes())
    assert [e["event"] for e in after].count("tool.injected") == 5


def test_enospc_on_every_write_drops_events_but_never_a_call(
    toolhooks_make_runtime, tmp_path, monkeypatch
):
    from toolhooks.plugins.event_log import _writer

    path = tmp_path / "events.jsonl"
    rt = toolhooks_make_runtime(
        config={"plugins": {"only": ["event_log"], "event_log": {"path": str(path)}}},
        load_entrypoints=True,
    )
    assert run_logged_calls(rt, 3) == {"ok"}
    rt.get_plugin("event_log").flush()
    written = path.read_bytes()

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_writer.os, "write", full)
    assert run_logged_calls(rt, 20) == {"ok"}
    rt.get_plugin("event_log").flush()  # while writes still fail
    monkeypatch.undo()
    stats = rt.get_plugin("event_log").stats()
    assert stats.dropped >= 20 and stats.last_error.startswith("OSError: [Errno 28]")
    assert path.read_bytes() == written  # nothing half-written
    check_whole_lines(written)


# -- SIGKILL in the middle of writing events ---------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys
    from toolhooks import Runtime
    # No rotation: every run stays in one file. "call": each call's lines are written as it ends,
    # so every run has lines however early the kill (test_event_log.py kills "interval" too).
    log = {"path": sys.argv[1], "max_bytes": 0, "durability": "call"}
    rt = Runtime(config={"plugins": {"only": ["event_log"], "event_log": log}})
    i = 0
    while True:
        i += 1
        rt.call({"name": "t", "params": {"i": i, "run": sys.argv[2], "pad": "p" * (i % 50)}},
                execute=lambda p: "ok")
        if i == 200:
            print("ready", flush=True)
    """
)


def test_sigkill_while_writing_events_leaves_only_whole_lines(tmp_path, spawn):
    path = tmp_path / "events.jsonl"
    kills = 5
    for run_id in range(kills):
        agent = spawn(sys.executable, "-c", WRITER, str(path), str(run_id))
        agent.wait_for("ready")
        time.sleep(0.05 + 0.07 * run_id)  # kill at a different point of the write loop each time
        agent.sigkill()
    from toolhooks.plugins.event_log import log_files, read_events

    files = log_files(str(path))  # the writer is fast: the log may have rotated meanwhile
    data = b"".join(Path(name).read_bytes() for name in files)
    # One os.write per buffer: a kill lands between writes, so every line is whole. The design
    # tolerates one torn piece per kill (a write cut short); it is isolated on its own line.
    events = check_whole_lines(data, fragments_allowed=kills)
    runs = {event["params"]["run"] for event in events if event["event"] == "tool.proposed"}
    assert runs == {str(i) for i in range(kills)}
    # Each run's calls are complete up to where it died: every call that has its tool.injected
    # also has its tool.proposed, and calls are in order.
    for run_id in map(str, range(kills)):
        proposed = [
            e["call_id"]
            for e in events
            if e["event"] == "tool.proposed" and e["params"]["run"] == run_id
        ]
        assert len(proposed) >= 200
        injected = {e["call_id"] for e in events if e["event"] == "tool.injected"}
        done = [call for call in proposed if call in injected]
        assert done == proposed[: len(done)] and len(done) >= len(proposed) - 1
    assert len(list(read_events(str(path)))) == len(events)


# -- SIGKILL while an approval is pending ------------------------------------------------------

AGENT = textwrap.dedent(
    """
    import json
    from toolhooks import Runtime, hookimpl

    class Gate:
        name = "gate"

        @hookimpl
        def before_tool_call(self, call):
            return {"require_approval": {"title": "Deploy?", "description": "deploy to prod",
                                         "timeout_s": 120}}

    rt = Runtime.from_config(plugins=[Gate()])

    @rt.tool(tags=["side_effect"])
    def deploy(env: str) -> str:
        with open("deployed.txt", "a") as handle:
            handle.write(env + "\\n")
        return "deployed " + env

    outcome = rt.call({"name": "deploy", "params": {"env": "prod"}, "sender": "alice",
                       "session_id": "s1"})
    print(json.dumps({"status": outcome.status, "reason": outcome.reason,
                      "approval": outcome.approval, "content": outcome.content}), flush=True)
    """
)
# `only` holds for every plugin: the agent's own gate is the only one.
QUEUE_CONFIG = '[plugins]\nonly = ["gate"]\n\n[approvals]\nroute = "queue"\ndb = "approvals.db"\npoll_interval_s = 0.05\n'


def wait_for_pending(db: Path, count: int = 1, timeout: float = 30) -> list:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            with SQLiteStore(db) as store:
                rows = store.list(states=["pending"])
            if len(rows) >= count:
                return rows
        time.sleep(0.05)
    raise AssertionError("no pending approval appeared")


def cli(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "toolhooks", "approvals", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def agents(tmp_path, spawn):
    """(working directory with the queue route configured, start()); leftovers are killed."""
    (tmp_path / "toolhooks.toml").write_text(QUEUE_CONFIG)
    return tmp_path, lambda: spawn(sys.executable, "-c", AGENT)


def test_a_pending_approval_survives_sigkill_and_is_resolved_after_restart(agents):
    agent_dir, start_agent = agents
    db = agent_dir / "approvals.db"
    first = start_agent()
    (row,) = wait_for_pending(db)
    first.sigkill()
    # The approval is still there, pending, in an intact database, and the CLI lists it.
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with SQLiteStore(db) as store:
        assert store.get(row.id).state == "pending"
    listed = cli(agent_dir, "list")
    assert listed.returncode == 0 and row.short_id in listed.stdout
    assert not (agent_dir / "deployed.txt").exists()
    # The restarted agent proposes the same call and waits on the same row; approving it runs
    # the call exactly once.
    second = start_agent()
    # Approve only once the restarted agent waits on the row (its one stderr line says so): a
    # fixed pause let a slow start find the row already decided, and the wait went untested.
    line = second.wait_for("is waiting for a decision", stream="stderr")
    assert f"approval {row.short_id} is waiting for a decision" in line
    approved = cli(agent_dir, "approve", row.id, "--by", "ops")
    assert approved.returncode == 0, approved.stderr
    out, err = second.finish()
    assert second.proc.returncode == 0, err
    result = json.loads(out)
    assert result["status"] == "ok" and result["approval"] == "allow-once"
    assert (agent_dir / "deployed.txt").read_text() == "prod\n"
    with SQLiteStore(db) as store:
        rows = store.list()
        assert [r.id for r in rows] == [row.id]  # reused, not asked again
        assert rows[0].decision == "allow-once" and rows[0].state == "consumed"


def test_an_approval_decided_while_the_agent_was_dead_is_used_once_after_restart(agents):
    agent_dir, start_agent = agents
    db = agent_dir / "approvals.db"
    first = start_agent()
    (row,) = wait_for_pending(db)
    first.sigkill()
    assert cli(agent_dir, "approve", row.id).returncode == 0
    second = start_agent()
    out, err = second.finish()
    assert second.proc.returncode == 0, err
    assert json.loads(out)["status"] == "ok"
    assert (agent_dir / "deployed.txt").read_text() == "prod\n"
    # allow-once was consumed: a third run must ask again (a new pending row), not run.
    third = start_agent()
    rows = wait_for_pending(db)
    assert [r.id for r in rows] != [row.id]
    third.sigkill()
    assert (agent_dir / "deployed.txt").read_text() == "prod\n"
