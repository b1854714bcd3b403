"""call_limits with ``[state] url``: counters in a real Redis, exact across threads and runtimes."""

from __future__ import annotations

import re
import threading
import time

from toolhooks import MemoryStore, Runtime
from toolhooks.plugins.call_limits import CallLimitsPlugin
from toolhooks.plugins.call_limits._redis import RedisCounters
from toolhooks.testing import EventRecorder


def ok(params: dict) -> str:
    return "ran"


def runtime(state: dict, limits: list[dict], **extra: object) -> Runtime:
    table = {"call_limits": {"limits": limits, **extra}}
    return Runtime(
        plugins=[CallLimitsPlugin],
        config={"plugins": table, "state": state},
        load_entrypoints=False,
        # Approvals elsewhere: these tests are about what the limits alone do without Redis
        # (with the Redis approval store every call also looks its id up there, and fails
        # closed first: test_approvals_shared.py).
        approval_store=MemoryStore(),
    )


def test_with_a_state_url_the_counters_live_in_redis_and_are_shared_by_runtimes(state_table):
    limits = [{"name": "budget", "tools": ["exec"], "max_calls": 3, "scope": "session"}]
    first, second = runtime(state_table, limits), runtime(state_table, limits)
    assert isinstance(first.get_plugin("call_limits").counters, RedisCounters)
    got = [
        rt.call({"name": "exec", "session_id": "s"}, execute=ok).status
        for rt in (first, second) * 3
    ]
    assert got == ["ok", "ok", "ok", "blocked", "blocked", "blocked"]
    assert first.call({"name": "exec", "session_id": "other"}, execute=ok).status == "ok"
    outcome = second.call({"name": "exec", "session_id": "s"}, execute=ok)
    assert outcome.reason == (
        "Call limit 'budget' reached (3 calls per session); it resets when a new session starts "
        "or after 7 days without calls"
    )


def test_many_threads_over_several_runtimes_admit_exactly_the_limit(state_table):
    limits = [{"tools": ["*"], "max_calls": 100, "scope": "global"}]
    runtimes = [runtime(state_table, limits) for _ in range(4)]
    results: list[str] = []
    lock = threading.Lock()

    def worker(rt: Runtime) -> None:
        mine = [rt.call({"name": "exec"}, execute=ok).status for _ in range(60)]
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=worker, args=(rt,)) for rt in runtimes for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 480
    assert results.count("ok") == 100


def test_a_rate_in_redis_says_when_it_resets_and_admits_again_after(state_table):
    rt = runtime(state_table, [{"name": "burst", "tools": ["p"], "rate": "2 per second"}])
    assert [rt.call({"name": "p"}, execute=ok).status for _ in range(2)] == ["ok", "ok"]
    refused = rt.call({"name": "p"}, execute=ok)
    found = re.fullmatch(
        r"Call limit 'burst' reached \(2 calls per second per session\); it resets in "
        r"(\d+\.\d) s \(at \d\d:\d\d:\d\d UTC\)",
        refused.reason or "",
    )
    assert found is not None, refused.reason
    assert 0.0 < float(found.group(1)) <= 1.0
    deadline = time.monotonic() + 5
    status = refused.status
    while status == "blocked" and time.monotonic() < deadline:
        time.sleep(0.05)
        status = rt.call({"name": "p"}, execute=ok).status
    assert status == "ok"


def test_a_refused_call_counts_in_no_limit_in_redis_either(state_table):
    rt = runtime(
        state_table,
        [
            {"name": "wide", "tools": ["*"], "max_calls": 3},
            {"name": "narrow", "tools": ["exec"], "max_calls": 1},
        ],
    )
    assert [rt.call({"name": "exec"}, execute=ok).status for _ in range(3)] == [
        "ok",
        "blocked",
        "blocked",
    ]
    assert [rt.call({"name": "read"}, execute=ok).status for _ in range(3)] == [
        "ok",
        "ok",
        "blocked",
    ]


def test_reset_clears_the_shared_counters(state_table):
    limits = [{"tools": ["x"], "max_calls": 1}]
    rt = runtime(state_table, limits)
    assert rt.call({"name": "x"}, execute=ok).status == "ok"
    assert rt.call({"name": "x"}, execute=ok).status == "blocked"
    assert rt.get_plugin("call_limits").reset() == 1
    assert rt.call({"name": "x"}, execute=ok).status == "ok"


def test_unreachable_state_fails_closed_with_a_clear_reason():
    state = {"url": "redis://127.0.0.1:1/0", "timeout_s": 0.5}
    recorder = EventRecorder()
    rt = runtime(state, [{"tools": ["x"], "max_calls": 5}])
    rt.register(recorder)
    outcome = rt.call({"name": "x"}, execute=ok)
    assert outcome.status == "blocked"
    assert outcome.blocked_by == "call_limits"
    assert (outcome.reason or "").startswith(
        "Call limits unavailable, call blocked (fail closed): shared state at "
        "redis://127.0.0.1:1/0 unavailable while checking call limits: ConnectionError"
    )
    assert [e.data["applied"] for e in recorder.of("limits.state_error")] == ["block"]
    # A tool no limit covers needs no shared state and runs.
    assert rt.call({"name": "y"}, execute=ok).status == "ok"


def test_limits_may_be_configured_to_fail_open():
    state = {"url": "redis://127.0.0.1:1/0", "timeout_s": 0.5}
    recorder = EventRecorder()
    rt = runtime(state, [{"tools": ["x"], "max_calls": 1}], on_state_error="allow")
    rt.register(recorder)
    assert [rt.call({"name": "x"}, execute=ok).status for _ in range(2)] == ["ok", "ok"]
    assert [e.data["applied"] for e in recorder.of("limits.state_error")] == ["allow", "allow"]


def test_the_password_of_the_state_url_never_appears_in_a_reason():
    state = {"url": "redis://user:s3cret@127.0.0.1:1/0", "timeout_s": 0.5}
    rt = runtime(state, [{"tools": ["x"], "max_calls": 1}])
    reason = rt.call({"name": "x"}, execute=ok).reason or ""
    assert "s3cret" not in reason
    assert "redis://user:***@127.0.0.1:1/0" in reason
