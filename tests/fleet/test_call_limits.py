"""call_limits with the embedded counters: what is counted, per what, and what the block says."""

from __future__ import annotations

import re
import threading

import pytest
from toolhooks import ConfigError, Runtime
from toolhooks.plugins.call_limits import CallLimitsConfig, CallLimitsPlugin
from toolhooks.plugins.call_limits._counters import MemoryCounters


def ok(params: dict) -> str:
    return "ran"


def runtime(limits: list[dict], **config: object) -> Runtime:
    table = {"call_limits": {"limits": limits}}
    return Runtime(
        plugins=[CallLimitsPlugin], config={"plugins": table, **config}, load_entrypoints=False
    )


def statuses(rt: Runtime, n: int, **call: object) -> list[str]:
    call.setdefault("name", "exec")
    return [rt.call(dict(call), execute=ok).status for _ in range(n)]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_count_admits_exactly_max_calls_then_blocks_naming_the_limit():
    rt = runtime([{"name": "exec budget", "tools": ["exec"], "max_calls": 3, "scope": "run"}])
    assert statuses(rt, 5, run_id="r1") == ["ok", "ok", "ok", "blocked", "blocked"]
    outcome = rt.call({"name": "exec", "run_id": "r1"}, execute=ok)
    assert outcome.blocked_by == "call_limits"
    assert outcome.reason == (
        "Call limit 'exec budget' reached (3 calls per run); it resets when a new run starts "
        "or after 7 days without calls"
    )
    # A new run has its own count.
    assert statuses(rt, 1, run_id="r2") == ["ok"]


def test_scopes_count_separately_and_calls_without_the_id_share_one_bucket():
    rt = runtime(
        [
            {"name": "per session", "tools": ["a"], "max_calls": 1, "scope": "session"},
            {"name": "per sender", "tools": ["b"], "max_calls": 1, "scope": "sender"},
            {"name": "for everyone", "tools": ["c"], "max_calls": 2, "scope": "global"},
        ]
    )
    assert statuses(rt, 2, name="a", session_id="s1") == ["ok", "blocked"]
    assert statuses(rt, 1, name="a", session_id="s2") == ["ok"]
    assert statuses(rt, 2, name="a") == ["ok", "blocked"]  # the shared "no session" bucket
    assert statuses(rt, 2, name="b", sender={"id": "alice"}) == ["ok", "blocked"]
    assert statuses(rt, 1, name="b", sender={"id": "bob"}) == ["ok"]
    assert statuses(rt, 1, name="c", session_id="x", sender={"id": "alice"}) == ["ok"]
    assert statuses(rt, 2, name="c", session_id="y", sender={"id": "bob"}) == ["ok", "blocked"]


def test_names_globs_and_groups_select_tools_including_user_groups_of_the_policy():
    rt = runtime(
        [
            {"name": "web", "tools": ["group:web"], "max_calls": 1},
            {"name": "mine", "tools": ["group:review"], "max_calls": 1},
            {"name": "fs", "tools": ["fs_*"], "max_calls": 1},
        ],
        tools={"groups": {"review": ["lint", "diff"]}},
    )
    assert statuses(rt, 1, name="web_fetch") == ["ok"]
    assert statuses(rt, 1, name="web_search") == ["blocked"]  # one web budget for the group
    assert statuses(rt, 1, name="lint") == ["ok"]
    assert statuses(rt, 1, name="diff") == ["blocked"]
    assert statuses(rt, 1, name="fs_read") == ["ok"]
    assert statuses(rt, 1, name="fs_write") == ["blocked"]
    assert statuses(rt, 3, name="exec") == ["ok", "ok", "ok"]  # no limit covers it


def test_a_call_refused_by_one_limit_uses_up_no_other():
    rt = runtime(
        [
            {"name": "wide", "tools": ["*"], "max_calls": 3},
            {"name": "narrow", "tools": ["exec"], "max_calls": 1},
        ]
    )
    assert statuses(rt, 3, name="exec") == ["ok", "blocked", "blocked"]
    # Both exec refusals came from "narrow", so "wide" has counted one call: two are left.
    assert statuses(rt, 3, name="read") == ["ok", "ok", "blocked"]
    assert "'wide'" in (rt.call({"name": "read"}, execute=ok).reason or "")


def test_a_rate_is_a_sliding_window_with_the_exact_reset_time():
    clock = FakeClock()
    plugin = CallLimitsPlugin(
        {"limits": [{"name": "poll", "tools": ["p"], "rate": "5 per minute"}]}
    )
    plugin.counters = plugin._memory = MemoryCounters(10, clock)
    rt = Runtime(plugins=[plugin], load_entrypoints=False, config={})
    for second in range(5):
        clock.now = 1000.0 + second
        assert rt.call({"name": "p"}, execute=ok).status == "ok"
    clock.now = 1059.5
    refused = rt.call({"name": "p"}, execute=ok)
    assert refused.status == "blocked"
    assert re.fullmatch(
        r"Call limit 'poll' reached \(5 calls per minute per session\); it resets in 0\.5 s "
        r"\(at \d\d:\d\d:\d\d UTC\)",
        refused.reason or "",
    )
    clock.now = 1060.0  # the first call leaves the window: exactly one more is admitted
    assert rt.call({"name": "p"}, execute=ok).status == "ok"
    assert rt.call({"name": "p"}, execute=ok).status == "blocked"
    clock.now = 1061.0
    assert rt.call({"name": "p"}, execute=ok).status == "ok"


def test_a_count_is_forgotten_after_its_idle_expiry():
    clock = FakeClock()
    plugin = CallLimitsPlugin({"limits": [{"tools": ["x"], "max_calls": 1}], "count_ttl_s": 60})
    plugin.counters = MemoryCounters(10, clock)
    rt = Runtime(plugins=[plugin], load_entrypoints=False, config={})
    assert statuses(rt, 2, name="x") == ["ok", "blocked"]
    clock.now += 60
    assert statuses(rt, 2, name="x") == ["ok", "blocked"]


def test_concurrent_threads_never_go_over_a_count():
    rt = runtime([{"tools": ["exec"], "max_calls": 50, "scope": "global"}])
    results: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        mine = statuses(rt, 40, session_id=threading.current_thread().name)
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count("ok") == 50
    assert results.count("blocked") == 270


def test_the_embedded_counters_are_bounded():
    counters = MemoryCounters(3)
    plugin = CallLimitsPlugin({"limits": [{"tools": ["x"], "max_calls": 1}]})
    plugin.counters = counters
    rt = Runtime(plugins=[plugin], load_entrypoints=False, config={})
    for session in "abcde":
        rt.call({"name": "x", "session_id": session}, execute=ok)
    assert len(counters._entries) == 3
    assert plugin.reset() == 3


def test_the_plugin_is_a_builtin_that_limits_nothing_until_configured():
    with Runtime(config={}) as rt:
        names = [info.name for info in rt.plugins()]
        assert "call_limits" in names
        assert [info.priority for info in rt.plugins() if info.name == "call_limits"] == [-1_000]
        assert rt.get_plugin("call_limits").config == CallLimitsConfig()
    bare = Runtime(plugins=[CallLimitsPlugin], load_entrypoints=False, config={})
    assert statuses(bare, 3, name="anything") == ["ok", "ok", "ok"]


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ({"tools": ["x"]}, "a limit needs exactly one of max_calls or rate"),
        ({"tools": ["x"], "max_calls": 1, "rate": "1 per second"}, "exactly one of"),
        ({"tools": ["x"], "rate": "5 a minute"}, "rate '5 a minute' is not"),
        ({"tools": ["x"], "rate": "5 per fortnight"}, "is not '<calls> per"),
        ({"tools": ["x"], "rate": "0 per minute"}, "calls must be between 1"),
        ({"tools": ["x"], "max_calls": 1, "scope": "team"}, "scope"),
        ({"tools": ["x"], "max_calls": 1, "bogus": 1}, "unknown key 'bogus'"),
    ],
)
def test_bad_limits_are_config_errors_naming_the_field(limit: dict, message: str):
    with pytest.raises(ConfigError) as caught:
        runtime([limit])
    assert message in str(caught.value)
    assert "plugins.call_limits" in str(caught.value)


def test_an_unknown_group_is_a_config_error_listing_the_known_ones():
    with pytest.raises(
        ConfigError, match=r"unknown group 'group:nope' \(known groups: group:automation"
    ):
        runtime([{"tools": ["group:nope"], "max_calls": 1}])


def test_two_limits_with_one_name_are_rejected():
    with pytest.raises(ConfigError, match="two limits are named 'same'"):
        runtime([{"name": "same", "max_calls": 1}, {"name": "same", "max_calls": 2}])
