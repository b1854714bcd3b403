"""loop_detection: every detector at its exact thresholds, state bounds, bad inputs, concurrency."""

from __future__ import annotations

import asyncio
import enum
import importlib.metadata
import threading
import tracemalloc
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from toolhooks import (
    AfterToolCallResult,
    BeforeToolCallResult,
    ConfigError,
    Runtime,
    ToolCall,
    ToolResult,
    ToolSpec,
    hookimpl,
)
from toolhooks.plugins.loop_detection import (
    DETECTOR_NAMES,
    LoopDetectionConfig,
    LoopDetectionPlugin,
)
from toolhooks.plugins.loop_detection import _plugin as plugin_module
from toolhooks.plugins.loop_detection._hashing import UNKNOWN_TOOL, Signer, canonical, outcome_hash
from toolhooks.plugins.loop_detection._state import NO_OUTCOME, SessionState
from toolhooks.testing import EventRecorder

KNOWN = object()  # "give the call the registered spec of its tool"


@dataclass
class Step:
    blocked: bool
    reason: str | None
    note: str | None


class Driver:
    """Feeds one plugin calls the way the runtime does: before, then after with a result."""

    def __init__(self, plugin: LoopDetectionPlugin) -> None:
        self.plugin = plugin
        self.steps: list[Step] = []

    def __call__(
        self,
        name: str = "read",
        params: dict[str, Any] | None = None,
        *,
        session: str | None = "s",
        content: str = "same result",
        status: str = "ok",
        error: str | None = None,
        error_kind: str | None = None,
        spec: Any = KNOWN,
    ) -> Step:
        tool_spec = ToolSpec(name) if spec is KNOWN else spec
        call = ToolCall(
            name=name, params=params or {"path": "/a"}, session_id=session, spec=tool_spec
        )
        before = self.plugin.before_tool_call(call)
        if before is not None:
            assert isinstance(before, BeforeToolCallResult) and before.block
            result = ToolResult(
                "blocked", None, before.block_reason or "", before.block_reason, None, "policy"
            )
            after = self.plugin.after_tool_call(call, result)
            assert after is None  # a call this plugin blocked never gets a note
            step = Step(True, before.block_reason, None)
        else:
            result = ToolResult(status, None, content, error, 1.0, error_kind)  # type: ignore[arg-type]
            after = self.plugin.after_tool_call(call, result)
            assert after is None or isinstance(after, AfterToolCallResult)
            step = Step(False, None, None if after is None else after.note)
        self.steps.append(step)
        return step

    def repeat(self, times: int, *args: Any, **kwargs: Any) -> list[Step]:
        return [self(*args, **kwargs) for _ in range(times)]


def make(**config: Any) -> Driver:
    return Driver(LoopDetectionPlugin(LoopDetectionConfig(**config)))


def notes_at(steps: list[Step]) -> list[int]:
    """1-based indices of the steps that delivered a note."""
    return [i for i, step in enumerate(steps, 1) if step.note]


def first_block(steps: list[Step]) -> int | None:
    return next((i for i, step in enumerate(steps, 1) if step.blocked), None)


# -- configuration --------------------------------------------------------------------------


def test_defaults_match_the_design() -> None:
    config = LoopDetectionConfig()
    assert (config.warning_threshold, config.critical_threshold) == (10, 20)
    assert (config.global_circuit_breaker, config.unknown_tool_threshold) == (30, 10)
    assert config.window == 30 and config.max_sessions == 10_000
    assert config.ignore_params == [] and config.ignore_params_by_tool == {}
    assert config.poll_tools == ["process", "command_status", "session_status"]
    assert all(getattr(config.detectors, name) for name in DETECTOR_NAMES)
    assert LoopDetectionPlugin.priority == 9_000
    assert LoopDetectionPlugin.Config is LoopDetectionConfig
    assert LoopDetectionPlugin().config == config


def test_unknown_key_is_rejected_by_name() -> None:
    with pytest.raises(ValidationError) as caught:
        LoopDetectionConfig(warn_threshold=5)  # type: ignore[call-arg]
    assert caught.value.errors()[0]["loc"] == ("warn_threshold",)
    with pytest.raises(ValidationError) as caught:
        LoopDetectionConfig.model_validate({"detectors": {"pingpong": False}})
    assert caught.value.errors()[0]["loc"] == ("detectors", "pingpong")


@pytest.mark.parametrize(
    "key", ["warning_threshold", "critical_threshold", "global_circuit_breaker",
            "unknown_tool_threshold", "window", "max_sessions"],
)  # fmt: skip
@pytest.mark.parametrize("value", [0, -1, -30])
def test_zero_or_negative_numbers_are_rejected_by_name(key: str, value: int) -> None:
    with pytest.raises(ValidationError) as caught:
        LoopDetectionConfig.model_validate({key: value})
    assert key in [error["loc"][0] for error in caught.value.errors()]


@pytest.mark.parametrize("value", [True, "10", 10.0, None])
def test_thresholds_must_be_real_integers(value: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        LoopDetectionConfig.model_validate({"warning_threshold": value})
    assert caught.value.errors()[0]["loc"] == ("warning_threshold",)


def test_critical_must_exceed_warning() -> None:
    with pytest.raises(ValidationError) as caught:
        LoopDetectionConfig(warning_threshold=10, critical_threshold=10)
    error = caught.value.errors()[0]
    assert error["loc"] == ("critical_threshold",)
    assert "greater than warning_threshold" in error["msg"]
    assert LoopDetectionConfig(warning_threshold=10, critical_threshold=11).critical_threshold == 11


def test_window_must_hold_the_critical_threshold() -> None:
    with pytest.raises(ValidationError) as caught:
        LoopDetectionConfig(window=19)
    assert caught.value.errors()[0]["loc"] == ("window",)
    assert LoopDetectionConfig(window=20).window == 20


@pytest.mark.parametrize(
    "data",
    [{"ignore_params": [""]}, {"ignore_params": "request_id"}, {"poll_tools": [1]},
     {"ignore_params_by_tool": {"web": "nonce"}}, {"detectors": {"ping_pong": "no"}}],
)  # fmt: skip
def test_list_and_toggle_values_are_validated(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as caught:
        LoopDetectionConfig.model_validate(data)
    assert caught.value.errors()[0]["loc"][0] == next(iter(data))


def test_plugin_accepts_a_mapping_config() -> None:
    plugin = LoopDetectionPlugin({"warning_threshold": 2, "critical_threshold": 3, "window": 5})
    assert plugin.config.window == 5
    with pytest.raises(ValidationError):
        LoopDetectionPlugin({"window": 0})


def test_entry_point_names_the_plugin() -> None:
    (entry,) = [
        e for e in importlib.metadata.entry_points(group="toolhooks") if e.name == "loop_detection"
    ]
    assert entry.load() is LoopDetectionPlugin


# -- generic repeat -------------------------------------------------------------------------


def test_generic_repeat_warns_at_10_once_and_blocks_at_20() -> None:
    run = make()
    steps = run.repeat(25)
    assert notes_at(steps) == [10]
    assert steps[9].note is not None and steps[9].note.startswith("WARNING: ")
    assert "10 times" in steps[9].note and '"read"' in steps[9].note
    assert [i for i, s in enumerate(steps, 1) if s.blocked] == list(range(20, 26))
    reason = steps[19].reason
    assert reason is not None and reason.startswith("CRITICAL: ") and "20 times" in reason
    # Something different still runs, and the blocked repeats never entered the window.
    assert not run("read", {"path": "/other"}).blocked
    assert run.plugin.config.window == 30


def test_generic_repeat_ignores_key_order() -> None:
    run = make()
    steps = [run("read", {"a": 1, "b": 2} if i % 2 else {"b": 2, "a": 1}) for i in range(20)]
    assert notes_at(steps) == [10]
    assert first_block(steps) == 20
    assert steps[19].reason == (
        'CRITICAL: "read" was called 20 times with identical arguments and identical results '
        "among your recent tool calls (no progress); this call was blocked to stop a loop. "
        "Change the arguments or try a different approach."
    )


def test_identical_calls_whose_results_change_warn_but_never_block() -> None:
    run = make()
    steps = [run("tail_log", {"path": "/var/log/job"}, content=f"line {i}") for i in range(60)]
    assert first_block(steps) is None
    assert notes_at(steps) == [10, 20, 30]  # one warning per bucket while it is in the window
    assert steps[9].note is not None and steps[9].note.startswith('WARNING: "tail_log"')


def test_generic_critical_counts_the_no_progress_run_back_to_the_last_change() -> None:
    run = make()
    changing = [run("job_status", {"id": 7}, content=f"{i}%") for i in range(12)]
    assert first_block(changing) is None
    # The last of those 12 ended "11%"; 7 more calls end the same: a run of 8 finished calls.
    stuck = run.repeat(7, "job_status", {"id": 7}, content="11%")
    assert first_block(stuck) is None
    # 19 identical finished results in a row (the 8 plus 11 more) and then the 20th is blocked.
    more = run.repeat(12, "job_status", {"id": 7}, content="11%")
    assert first_block(more) == 12
    assert more[11].reason is not None and "called 20 times" in more[11].reason
    assert run("job_status", {"id": 7}).blocked  # proposing it again stays blocked


def test_different_params_are_different_calls() -> None:
    run = make()
    steps = [run("read", {"path": f"/f{i}"}) for i in range(60)]
    assert notes_at(steps) == [] and first_block(steps) is None


def test_generic_count_is_over_the_window() -> None:
    run = make()
    run.repeat(19)
    for i in range(11):
        run("read", {"path": f"/x{i}"})
    assert run().blocked  # 19 in the window of 30, plus this one: 20
    run2 = make()
    run2.repeat(19)
    for i in range(12):
        run2("read", {"path": f"/x{i}"})
    step = run2()  # one of the 19 slid out: 18 + this one
    assert not step.blocked and step.note is None  # bucket 1 was delivered already


def test_warning_bucket_is_forgotten_once_the_call_left_the_window() -> None:
    run = make()
    assert notes_at(run.repeat(10)) == [10]
    for i in range(30):
        run("read", {"path": f"/x{i}"})
    assert notes_at(run.repeat(10)) == [10]


def test_custom_thresholds() -> None:
    run = make(warning_threshold=2, critical_threshold=4, window=4)
    steps = run.repeat(5)
    assert notes_at(steps) == [2] and first_block(steps) == 4


# -- known poll -----------------------------------------------------------------------------


def test_poll_without_progress_warns_at_10_and_blocks_at_20() -> None:
    run = make()
    steps = run.repeat(21, "process", {"action": "poll", "id": 7}, content="still running")
    assert notes_at(steps) == [10]
    assert "polled 10 times" in (steps[9].note or "")
    assert first_block(steps) == 20
    assert "polled 20 times" in (steps[19].reason or "")
    assert (steps[19].reason or "").startswith("CRITICAL: ")


def test_poll_with_progress_is_never_a_loop() -> None:
    run = make()
    steps = [run("process", {"action": "poll"}, content=f"line {i}") for i in range(60)]
    assert notes_at(steps) == [] and first_block(steps) is None


def test_poll_progress_restarts_the_run_and_its_warning() -> None:
    run = make()
    steps = run.repeat(15, "process", {"action": "poll"}, content="X")
    steps += [run("process", {"action": "poll"}, content="Y")]  # call 16 changed: progress
    steps += run.repeat(12, "process", {"action": "poll"}, content="Y")
    # Call 25 is the 10th call since the outcome last changed (calls 16..24 returned Y).
    assert notes_at(steps) == [10, 25]
    assert first_block(steps) is None


def test_other_calls_between_polls_do_not_break_the_run() -> None:
    run = make()
    polls = []
    for i in range(10):
        polls.append(run("process", {"action": "poll"}, content="same"))
        run("sleep", {"seconds": i})
    assert notes_at(polls) == [10]


def test_poll_tools_are_configurable_with_wildcards() -> None:
    run = make(poll_tools=["check_*"])
    steps = [run("check_job", {"id": 1}, content=f"{i}%") for i in range(30)]
    assert first_block(steps) is None  # a poll that progresses
    stuck = run.repeat(20, "check_job", {"id": 2}, content="0%")
    assert first_block(stuck) == 20
    # "process" is no longer a poll tool: generic repeat applies, which blocks only when stuck.
    steps = [run("process", {"action": "poll"}, content=f"{i}") for i in range(20)]
    assert first_block(steps) is None and notes_at(steps) == [10, 20]
    stuck = run.repeat(20, "process", {"action": "poll"}, content="idle")
    assert first_block(stuck) == 20


def test_poll_tool_when_known_poll_is_off_falls_under_generic_repeat() -> None:
    run = make(detectors={"known_poll_no_progress": False})
    steps = [run("process", {"action": "poll"}, content=f"{i}") for i in range(20)]
    assert first_block(steps) is None and notes_at(steps) == [10, 20]
    stuck = run.repeat(20, "process", {"action": "poll"}, content="idle")
    assert first_block(stuck) == 20


# -- ping-pong ------------------------------------------------------------------------------


def alternate(run: Driver, count: int, progress: bool = False, start: int = 0) -> list[Step]:
    steps = []
    for i in range(start, start + count):
        params = {"path": "/a"} if i % 2 == 0 else {"path": "/b"}
        steps.append(run("read", params, content=f"r{i}" if progress else f"side {i % 2}"))
    return steps


def test_ping_pong_without_progress_warns_at_10_and_blocks_at_20() -> None:
    run = make()
    steps = alternate(run, 22)
    assert notes_at(steps) == [10]
    assert "alternating" in (steps[9].note or "") and "10 calls" in (steps[9].note or "")
    assert first_block(steps) == 20
    reason = steps[19].reason or ""
    assert reason.startswith("CRITICAL: ") and "alternated" in reason
    # The blocked call stays in the window, so carrying on with the alternation stays blocked.
    assert steps[20].blocked and steps[21].blocked


def test_ping_pong_with_progress_only_warns_once_per_bucket() -> None:
    run = make()
    steps = alternate(run, 60, progress=True)
    # The run is counted inside the window: it tops out at 30 + this call, so bucket 3 is the last.
    assert notes_at(steps) == [10, 20, 30]
    assert first_block(steps) is None


def test_ping_pong_blocks_only_after_20_calls_without_change() -> None:
    run = make()
    steps = alternate(run, 10, progress=True)  # calls 1..10 change every time
    steps += alternate(run, 25, start=10)  # from call 11 each side always returns the same
    assert first_block(steps) == 30  # calls 11..29 unchanged (19) plus this one


def test_broken_alternation_restarts_the_count() -> None:
    run = make(detectors={"generic_repeat": False})
    steps = alternate(run, 15)
    steps.append(run("write", {"path": "/c"}))
    steps += alternate(run, 12)
    assert notes_at(steps) == [10, 26]
    assert first_block(steps) is None


# -- global circuit breaker -----------------------------------------------------------------


def cycle(run: Driver, count: int, progress: bool = False) -> list[Step]:
    names = ("read", "grep", "ls")
    return [
        run(names[i % 3], {"p": 1}, content=f"r{i}" if progress else "same") for i in range(count)
    ]


def test_global_breaker_blocks_a_no_progress_cycle_after_30() -> None:
    run = make()
    steps = cycle(run, 36)
    # Calls 1..3 are new; 4..33 are 30 repeats with identical results: call 34 is blocked.
    assert first_block(steps) == 34
    assert all(step.blocked for step in steps[33:])
    reason = steps[33].reason or ""
    assert reason.startswith("CRITICAL: ") and "circuit breaker" in reason
    assert run.plugin.no_progress_streak("s") == 30
    # A call never seen in the window is let through; it makes progress and resets the streak.
    assert not run("edit", {"p": 1}).blocked
    assert run.plugin.no_progress_streak("s") == 0
    assert not run("read", {"p": 1}).blocked


def test_global_breaker_counts_across_tools_and_resets_on_progress() -> None:
    run = make()
    steps = cycle(run, 90, progress=True)
    assert first_block(steps) is None
    assert run.plugin.no_progress_streak("s") == 0


def test_global_breaker_threshold_is_configurable() -> None:
    run = make(global_circuit_breaker=5)
    steps = cycle(run, 10)
    assert first_block(steps) == 9  # calls 4..8 are 5 no-progress calls


def test_errors_are_outcomes_hashed_by_message() -> None:
    run = make(global_circuit_breaker=3)
    same = [run("read", {"p": i % 2 == 0}, status="error", error="boom") for i in range(6)]
    assert first_block(same) == 6  # calls 3, 4, 5 repeated the same error
    run = make(global_circuit_breaker=3)
    varied = [run("read", {"p": i % 2 == 0}, status="error", error=f"boom {i}") for i in range(12)]
    assert first_block(varied) is None


# -- unknown tool ---------------------------------------------------------------------------


def unknown(run: Driver, name: str, i: int) -> Step:
    return run(
        name,
        {"n": i},
        spec=None,
        status="error",
        error=f"Unknown tool '{name}'",
        error_kind="unknown_tool",
    )


def test_unknown_tool_blocked_at_the_10th_call() -> None:
    run = make()
    steps = [unknown(run, "nope", i) for i in range(11)]
    assert first_block(steps) == 10
    reason = steps[9].reason or ""
    assert reason.startswith("CRITICAL: ") and '"nope"' in reason and "9 calls" in reason


def test_unknown_tool_critical_beats_a_generic_warning() -> None:
    run = make()
    steps = [unknown(run, "nope", 0) for _ in range(10)]  # identical params: generic warns at 10
    assert first_block(steps) == 10 and notes_at(steps) == []


def test_unknown_tool_runs_are_per_name_and_reset_by_success() -> None:
    run = make()
    steps = [unknown(run, "ghost", i) for i in range(8)]
    steps += [unknown(run, "spook", i) for i in range(9)]
    steps.append(run("ghost", {"n": 99}, spec=None))  # ran via execute=: resets "ghost"
    steps += [unknown(run, "ghost", 100 + i) for i in range(9)]
    assert first_block(steps) is None
    assert unknown(run, "ghost", 200).blocked  # 9 failures in a row before it
    assert unknown(run, "spook", 200).blocked


def test_a_tool_that_became_known_is_not_blocked_as_unknown() -> None:
    run = make()
    for i in range(12):
        unknown(run, "late", i)
    assert not run("late", {"n": 50}).blocked  # spec present now


def test_unknown_spec_with_successful_results_is_never_blocked() -> None:
    run = make()
    steps = [run("external", {"n": i}, spec=None) for i in range(40)]
    assert first_block(steps) is None


# -- detector toggles and order ---------------------------------------------------------------


def test_each_detector_can_be_switched_off() -> None:
    run = make(detectors={"generic_repeat": False})
    steps = [run("read", content=f"r{i}") for i in range(40)]  # progress: nothing else fires
    assert notes_at(steps) == [] and first_block(steps) is None

    run = make(detectors={"known_poll_no_progress": False, "generic_repeat": False})
    steps = run.repeat(32, "process", content="same")
    assert first_block(steps) == 32  # only the breaker is left: calls 2..31 made no progress

    run = make(detectors={"global_circuit_breaker": False})
    steps = cycle(run, 60)
    assert first_block(steps) is None

    run = make(detectors={"ping_pong": False})
    steps = alternate(run, 30)
    assert first_block(steps) is None and notes_at(steps) == [19, 20]  # generic: "/a", "/b"

    run = make(detectors={"unknown_tool_repeat": False})
    steps = [unknown(run, "nope", i) for i in range(20)]
    assert first_block(steps) is None


# -- ignore_params --------------------------------------------------------------------------


def test_ignore_params_leaves_volatile_keys_out_of_the_signature() -> None:
    run = make(ignore_params=["request_id"])
    steps = [run("read", {"path": "/a", "request_id": i}) for i in range(20)]
    assert notes_at(steps) == [10] and first_block(steps) == 20
    plain = make()
    steps = [plain("read", {"path": "/a", "request_id": i}) for i in range(20)]
    assert first_block(steps) is None


def test_ignore_params_only_top_level_keys() -> None:
    run = make(ignore_params=["request_id"])
    steps = [run("read", {"path": "/a", "meta": {"request_id": i}}) for i in range(20)]
    assert first_block(steps) is None


def test_ignore_params_by_tool() -> None:
    run = make(ignore_params_by_tool={"web_*": ["nonce"], "read": ["ts"]})
    web = [run("web_fetch", {"url": "u", "nonce": i}) for i in range(20)]
    assert first_block(web) == 20
    read = [run("read", {"path": "/a", "ts": i, "nonce": i}) for i in range(20)]
    assert first_block(read) is None  # "nonce" is only ignored for web_*
    signer = Signer(["a"], {"x*": ["b"], "xy": ["c"]})
    assert signer.ignored("xyz") == {"a", "b"} and signer.ignored("xy") == {"a", "b", "c"}
    assert signer.ignored("other") == {"a"}


# -- sessions -------------------------------------------------------------------------------


def test_sessions_are_isolated() -> None:
    run = make()
    for session in ("s1", "s2"):
        assert notes_at(run.repeat(9, session=session)) == []
    assert run(session="s1").note is not None
    assert run(session="s2").note is not None
    for _ in range(10):
        run(session="s1")
    assert run(session="s1").blocked
    assert not run(session="s3").blocked


def test_calls_without_a_session_share_one_bucket() -> None:
    run = make()
    run.repeat(9, session=None)
    assert run(session=None).note is not None
    assert run.plugin.has_session(None)
    assert run(session="").note is None  # "" is a session id of its own


def test_lru_eviction_at_max_sessions() -> None:
    run = make(max_sessions=3)
    run.repeat(9, session="a")
    run(session="b")
    run(session="c")
    run(session="a")  # a is now the most recently used (10th call: warned)
    run(session="d")  # evicts b
    assert run.plugin.session_count() == 3
    assert [run.plugin.has_session(s) for s in "abcd"] == [True, False, True, True]
    run(session="e")  # evicts c
    assert not run.plugin.has_session("c") and run.plugin.has_session("a")
    # An evicted session starts over.
    run.repeat(8, session="b")
    for s in ("x", "y", "z"):
        run(session=s)
    assert notes_at(run.repeat(9, session="b")) == []


def test_after_hook_for_an_evicted_session_is_harmless() -> None:
    plugin = LoopDetectionPlugin(LoopDetectionConfig(max_sessions=1))
    run = Driver(plugin)
    run.repeat(9, session="a")
    call = ToolCall(name="read", params={"path": "/a"}, session_id="a", spec=ToolSpec("read"))
    assert plugin.before_tool_call(call) is None
    run(session="b")  # evicts a while the call is still running
    after = plugin.after_tool_call(call, ToolResult("ok", None, "same result"))
    assert after is not None and (after.note or "").startswith("WARNING: ")
    assert not plugin.has_session("a")


def test_reset_forgets_history() -> None:
    run = make()
    run.repeat(19)
    run.plugin.reset("s")
    assert not run().blocked
    run.repeat(19, session=None)
    run.plugin.reset(None)
    assert not run(session=None).blocked
    run.plugin.reset()
    assert run.plugin.session_count() == 0


def test_pending_calls_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugin_module, "MAX_PENDING", 8)
    plugin = LoopDetectionPlugin()
    calls = [
        ToolCall(name="read", params={"i": i}, session_id="s", spec=ToolSpec("read"))
        for i in range(50)
    ]
    for call in calls:
        plugin.before_tool_call(call)
    assert len(plugin._pending) == 8
    assert plugin.after_tool_call(calls[0], ToolResult("ok")) is None  # dropped: ignored
    assert plugin.after_tool_call(calls[-1], ToolResult("ok")) is None
    assert len(plugin._pending) == 7


def test_after_without_before_is_ignored() -> None:
    plugin = LoopDetectionPlugin()
    call = ToolCall(name="read", params={}, session_id="s")
    assert (
        plugin.after_tool_call(call, ToolResult("blocked", None, "denied by policy", "denied"))
        is None
    )
    assert plugin.session_count() == 0


def test_note_goes_to_the_call_that_earned_it() -> None:
    plugin = LoopDetectionPlugin(
        LoopDetectionConfig(warning_threshold=2, critical_threshold=3, window=3)
    )
    first = ToolCall(name="read", params={"p": 1}, session_id="s")
    second = ToolCall(name="read", params={"p": 1}, session_id="s")
    other = ToolCall(name="read", params={"p": 2}, session_id="s")
    assert plugin.before_tool_call(first) is None
    assert plugin.before_tool_call(second) is None  # 2nd identical (first still running): warns
    assert plugin.before_tool_call(other) is None
    assert plugin.after_tool_call(other, ToolResult("ok", None, "x")) is None
    assert plugin.after_tool_call(first, ToolResult("ok", None, "x")) is None
    note = plugin.after_tool_call(second, ToolResult("ok", None, "x"))
    assert note is not None and (note.note or "").startswith("WARNING: ")


# -- the ring ---------------------------------------------------------------------------------


@given(
    st.integers(min_value=2, max_value=6),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.booleans()), max_size=40),
)
@settings(max_examples=200)
def test_ring_matches_a_naive_model(window: int, script: list[tuple[int, int, bool]]) -> None:
    """Appends and outcomes against a plain list: counts, newest-first lookups, the streak."""
    state = SessionState(threading.Lock())
    model: list[list[Any]] = []  # [sig, out or None]
    streak = 0
    for sig_n, out_n, finishes in script:
        sig = bytes([sig_n + 1]) * 8
        out = bytes([out_n + 1]) * 8
        seq = state.append(sig, "t", window)
        model.append([sig, None])
        if finishes:
            held = model[-window:]
            previous = [o for s, o in held[:-1] if s == sig and o is not None]
            stalled = bool(previous) and previous[-1] == out
            assert state.record(seq, out) is stalled
            model[-1][1] = out
            streak = streak + 1 if stalled else 0
        held = model[-window:]
        assert state.size == len(held) and state.total == len(model)
        assert state.streak == streak
        for n in range(4):
            probe = bytes([n + 1]) * 8
            assert state.count(probe) == sum(s == probe for s, _ in held)
            outs = [state.out_at(p) for p in state.newest_first(probe)]
            expected = [o or NO_OUTCOME for s, o in reversed(held) if s == probe]
            assert outs == expected


def test_ring_ignores_matches_that_straddle_two_entries() -> None:
    state = SessionState(threading.Lock())
    state.append(b"AAAABBBB", "t", 4)
    state.append(b"CCCCDDDD", "t", 4)
    assert list(state.newest_first(b"BBBBCCCC")) == []
    assert list(state.newest_first(b"CCCCDDDD")) == [1]


def test_outcome_of_a_call_that_left_the_window_is_dropped() -> None:
    state = SessionState(threading.Lock())
    first = state.append(b"11111111", "t", 2)
    state.append(b"22222222", "t", 2)
    state.append(b"33333333", "t", 2)
    assert state.record(first, b"xxxxxxxx") is False
    assert [state.out_at(p) for p in range(2)] == [NO_OUTCOME, NO_OUTCOME]


# -- hashing and bad inputs -----------------------------------------------------------------


class Colour(enum.Enum):
    RED = 1


class Level(enum.IntEnum):
    HIGH = 3


def test_non_json_params_hash_deterministically() -> None:
    signer = Signer([], {})
    samples: list[dict[str, Any]] = [
        {"data": b"\x00\xff", "tags": {"b", "a", "c"}, "nan": float("nan"), "inf": float("-inf")},
        {"tuple": (1, 2), "frozen": frozenset({1, 2}), "level": Level.HIGH, "big": 10**5000},
        {"surrogate": "\ud800", "nested": [{"z": 1, "a": [b"x", {1.5}]}]},
    ]
    for params in samples:
        first = signer.sign("t", ToolCall(name="t", params=params).params)
        assert first == signer.sign("t", ToolCall(name="t", params=params).params)
        assert isinstance(first, bytes) and len(first) == 8
    assert signer.sign("t", {"s": {1, 2, 3}}) == signer.sign("t", {"s": {3, 2, 1}})
    assert signer.sign("t", {"b": b"x"}) != signer.sign("t", {"b": b"y"})
    assert signer.sign("t", {"b": b"x"}) != signer.sign("t", {"b": "x"})
    assert signer.sign("t", {"x": 1}) != signer.sign("u", {"x": 1})


def test_hashing_survives_what_a_tool_call_could_never_hold() -> None:
    signer = Signer([], {})

    class Opaque:
        pass

    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no repr for you")

    cyclic: list[Any] = []
    cyclic.append(cyclic)
    weird: list[dict[Any, Any]] = [
        {"obj": Opaque()},
        {"hostile": Hostile(), "set": {Colour.RED}},
        {"cycle": cyclic},
        {"keys": {(1, 2): "tuple key", 3: "int key", None: "none"}},
        {"mixed": {1: "a", "b": 2}},
        {"mv": memoryview(b"abc"), "ba": bytearray(b"z")},
    ]
    for params in weird:
        assert signer.sign("t", params) == signer.sign("t", params)
        assert canonical(params) == canonical(params)
    # Default reprs carry memory addresses; they are stripped, so equal-looking objects agree.
    assert signer.sign("t", {"obj": Opaque()}) == signer.sign("t", {"obj": Opaque()})


@given(
    st.dictionaries(
        st.text(max_size=8),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary(),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=4), inner, max_size=4)
            ),
            max_leaves=12,
        ),
        max_size=6,
    )
)
@settings(max_examples=150)
def test_signature_is_deterministic_and_order_independent(params: dict[str, Any]) -> None:
    signer = Signer([], {})
    reordered = dict(reversed(list(params.items())))
    assert signer.sign("tool", ToolCall(name="tool", params=params).params) == signer.sign(
        "tool", reordered
    )


def test_odd_tool_names() -> None:
    run = make()
    name = "wéird tool/名前 ✓ 'q' \"dq\" $(x)"
    steps = run.repeat(20, name)
    assert notes_at(steps) == [10] and first_block(steps) == 20
    assert name in (steps[19].reason or "")


def test_outcome_hash_rules() -> None:
    ok = outcome_hash(ToolResult("ok", None, "text"))
    assert ok == outcome_hash(ToolResult("ok", {"other": "value"}, "text"))  # content decides
    assert ok != outcome_hash(ToolResult("ok", None, "text 2"))
    assert outcome_hash(ToolResult("ok", {"a": 1}, "")) != outcome_hash(
        ToolResult("ok", {"a": 2}, "")
    )
    assert outcome_hash(ToolResult("ok", {b"x"}, "")) == outcome_hash(ToolResult("ok", {b"x"}, ""))
    error = outcome_hash(ToolResult("error", None, "shown", "boom", 1.0, "exception"))
    assert error == outcome_hash(ToolResult("error", None, "other text", "boom", 2.0, "exception"))
    assert error != outcome_hash(ToolResult("error", None, "shown", "bang", 1.0, "exception"))
    blocked = outcome_hash(ToolResult("blocked", None, "no", "no", None, "policy"))
    assert blocked != outcome_hash(ToolResult("denied", None, "no", "no", None, "approval"))
    unknown_result = ToolResult(
        "error", None, "Unknown tool 'x'", "Unknown tool 'x'", None, "unknown_tool"
    )
    assert outcome_hash(unknown_result) == UNKNOWN_TOOL
    odd = ToolResult("ok", None, ["not", "a", "string"])  # type: ignore[arg-type]
    assert outcome_hash(odd) == outcome_hash(ToolResult("ok", None, ["not", "a", "string"]))  # type: ignore[arg-type]


# -- concurrency ----------------------------------------------------------------------------


def session_script(run: Driver, session: str) -> list[tuple[bool, bool]]:
    """A fixed mix: a repeat that gets blocked, an alternation, distinct calls."""
    out = []
    for i in range(45):
        if i < 22:
            step = run("read", {"p": "loop"}, session=session)
        elif i < 34:
            step = run("read", {"p": i % 2}, session=session, content=str(i))
        else:
            step = run("ls", {"i": i}, session=session)
        out.append((step.blocked, step.note is not None))
    return out


def test_threads_hammering_distinct_and_shared_sessions() -> None:
    reference = session_script(make(), "ref")
    plugin = LoopDetectionPlugin(LoopDetectionConfig(max_sessions=64))
    results: dict[int, list[tuple[bool, bool]]] = {}
    shared_blocked = [0] * 8
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def worker(index: int) -> None:
        try:
            run = Driver(plugin)
            barrier.wait()
            for round_ in range(5):
                results[index * 10 + round_] = session_script(run, f"t{index}-{round_}")
                for j in range(40):
                    shared_blocked[index] += run("grep", {"q": j % 4}, session="shared").blocked
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    # A session that only one thread uses behaves exactly like a single-threaded run.
    assert len(results) == 40 and all(result == reference for result in results.values())
    # The shared session: the window stays bounded, every call was recorded once, only the
    # blocked ones lack an outcome, and nothing is left pending.
    state = plugin._sessions.peek("shared")
    assert state is not None
    assert state.size == 30 and len(state.sigs) == len(state.outs) == 30 * 8
    assert state.total == 8 * 5 * 40
    assert sum(shared_blocked) > 0
    unfinished = sum(state.out_at(i) == NO_OUTCOME for i in range(30))
    assert unfinished <= sum(shared_blocked)
    assert len(plugin._pending) == 0
    assert plugin.session_count() == 41


# -- through the Runtime --------------------------------------------------------------------


class Capture(EventRecorder):
    name = "capture"


def runtime(**config: Any) -> tuple[Runtime, Capture]:
    capture = Capture()
    plugin = LoopDetectionPlugin(LoopDetectionConfig(**config))
    rt = Runtime(plugins=[plugin, capture], load_entrypoints=False)

    def echo(path: str) -> str:
        return f"contents of {path}"

    rt.add_tool(echo, name="read")
    return rt, capture


def test_runtime_delivers_the_warning_note_and_events() -> None:
    rt, capture = runtime()
    with rt:
        outcomes = [
            rt.call({"name": "read", "params": {"path": "/a"}, "session_id": "s"})
            for _ in range(20)
        ]
    warned = outcomes[9]
    assert warned.status == "ok"
    assert warned.content.startswith("contents of /a\n\nWARNING: ")
    assert len(warned.notes) == 1 and warned.notes[0].startswith("WARNING: ")
    assert [o.notes for o in outcomes[:9] + outcomes[10:19]] == [[]] * 18
    blocked = outcomes[19]
    assert blocked.status == "blocked" and blocked.blocked_by == "loop_detection"
    assert blocked.reason is not None and blocked.reason.startswith("CRITICAL: ")
    assert blocked.content == blocked.reason
    (warning,) = capture.of("loop.warning")
    assert (
        warning.plugin == "loop_detection" and warning.session_id == "s" and warning.tool == "read"
    )
    assert warning.call_id == warned.call_id and warning.trace_id == warned.trace_id
    assert warning.data["detector"] == "generic_repeat" and warning.data["count"] == 10
    assert warning.data["threshold"] == 10 and warning.data["level"] == "warning"
    (critical,) = capture.of("loop.critical")
    assert critical.call_id == blocked.call_id and critical.data["detector"] == "generic_repeat"
    assert critical.data["count"] == 20 and critical.data["message"] == blocked.reason


def test_runtime_unknown_tool_is_blocked_at_10() -> None:
    rt, capture = runtime()
    with rt:
        outcomes = [
            rt.call({"name": "nope", "params": {"i": i}, "session_id": "s"}) for i in range(10)
        ]
    assert [o.status for o in outcomes] == ["error"] * 9 + ["blocked"]
    assert outcomes[9].blocked_by == "loop_detection"
    assert capture.of("loop.critical")[0].data["detector"] == "unknown_tool_repeat"


def test_runtime_execute_callables_with_progress_are_not_loops() -> None:
    rt, _ = runtime()
    counter = iter(range(1000))
    with rt:
        outcomes = [
            rt.call({"name": "process", "params": {"action": "poll"}, "session_id": "s"},
                    execute=lambda params: f"tick {next(counter)}")
            for _ in range(50)
        ]  # fmt: skip
    assert all(o.status == "ok" and not o.notes for o in outcomes)


def test_runtime_calls_blocked_later_in_the_chain_are_recorded_by_reason() -> None:
    class Refuse:
        name = "refuse"
        priority = 0

        @hookimpl
        def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
            return {"block": True, "block_reason": "not today"}

    plugin = LoopDetectionPlugin(LoopDetectionConfig(global_circuit_breaker=3))
    with Runtime(plugins=[plugin, Refuse()], load_entrypoints=False) as rt:
        outcomes = [
            rt.call({"name": "x", "params": {"n": i % 2}, "session_id": "s"}, execute=lambda p: 1)
            for i in range(6)
        ]
    assert [o.blocked_by for o in outcomes] == ["refuse"] * 5 + ["loop_detection"]
    assert plugin.no_progress_streak("s") == 3


def test_runtime_builds_the_plugin_from_its_config_table() -> None:
    config = {
        "plugins": {
            "loop_detection": {"warning_threshold": 2, "critical_threshold": 3, "window": 3}
        }
    }
    with Runtime(plugins=[LoopDetectionPlugin], config=config, load_entrypoints=False) as rt:
        outcomes = [rt.call({"name": "t", "params": {}}, execute=lambda p: "r") for _ in range(3)]
    assert [bool(o.notes) for o in outcomes] == [False, True, False]
    assert outcomes[2].status == "blocked"


def test_runtime_rejects_a_bad_config_table_by_key() -> None:
    with pytest.raises(ConfigError, match="bogus"):
        Runtime(plugins=[LoopDetectionPlugin], config={"plugins": {"loop_detection": {"bogus": 1}}},
                load_entrypoints=False)  # fmt: skip
    with pytest.raises(ConfigError, match="critical_threshold"):
        Runtime(plugins=[LoopDetectionPlugin], load_entrypoints=False,
                config={"plugins": {"loop_detection": {"critical_threshold": -1}}})  # fmt: skip


def test_many_concurrent_asyncio_sessions() -> None:
    plugin = LoopDetectionPlugin()
    capture = Capture()

    async def slow(params: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return "same"

    async def main() -> list[list[Any]]:
        with Runtime(plugins=[plugin, capture], load_entrypoints=False) as rt:

            async def session(name: str) -> list[Any]:  # one conversation: one call at a time
                call = {"name": "fetch", "params": {"u": 1}, "session_id": name}
                return [await rt.acall(call, execute=slow) for _ in range(25)]

            return await asyncio.gather(*(session(f"s{i}") for i in range(50)))

    for session_outcomes in asyncio.run(main()):
        statuses = [o.status for o in session_outcomes]
        assert statuses == ["ok"] * 19 + ["blocked"] * 6
        assert sum(bool(o.notes) for o in session_outcomes) == 1
    assert len(capture.of("loop.warning")) == 50 and len(capture.of("loop.critical")) == 300
    assert len(plugin._pending) == 0


# -- memory -----------------------------------------------------------------------------------


def test_memory_per_session_is_small() -> None:
    plugin = LoopDetectionPlugin()
    spec = ToolSpec("read")
    sessions = 300
    calls = [
        [
            ToolCall(
                name="read",
                params={"path": f"/f{i}", "n": j},
                session_id=f"session-{i:06d}",
                spec=spec,
            )
            for j in range(30)
        ]
        for i in range(sessions)
    ]
    results = [ToolResult("ok", None, f"result {j}") for j in range(30)]
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for per_session in calls:
            for call, result in zip(per_session, results, strict=True):
                plugin.before_tool_call(call)
                plugin.after_tool_call(call, result)
        used = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert used / sessions < 8 * 1024


def test_audit_mode_reports_but_never_blocks() -> None:
    plugin = LoopDetectionPlugin()
    capture = Capture()
    config = {"plugins": {"loop_detection": {"mode": "audit"}}}
    with Runtime(plugins=[plugin, capture], config=config, load_entrypoints=False) as rt:
        outcomes = [
            rt.call({"name": "t", "params": {}, "session_id": "s"}, execute=lambda p: "r")
            for _ in range(25)
        ]
    assert all(o.status == "ok" for o in outcomes)
    assert len(capture.of("loop.critical")) == 6
    # The calls ran, so their outcomes were recorded: the session saw 24 no-progress repeats.
    assert plugin.no_progress_streak("s") == 24


def test_documented_toml_example_loads(tmp_path: Any) -> None:
    path = tmp_path / "toolhooks.toml"
    path.write_text(
        """
[plugins.loop_detection]
warning_threshold = 8
critical_threshold = 16
ignore_params = ["request_id", "timestamp"]
poll_tools = ["process", "command_status", "job_status*"]
max_sessions = 50_000

[plugins.loop_detection.ignore_params_by_tool]
"web_*" = ["nonce"]

[plugins.loop_detection.detectors]
ping_pong = false
""",
        encoding="utf-8",
    )
    with Runtime(plugins=[LoopDetectionPlugin], config=path, load_entrypoints=False) as rt:
        plugin = rt.get_plugin("loop_detection")
        outcomes = [
            rt.call(
                {"name": "web_fetch", "params": {"url": "u", "nonce": i}}, execute=lambda p: "page"
            )
            for i in range(16)
        ]
    assert isinstance(plugin, LoopDetectionPlugin)
    config = plugin.config
    assert (config.warning_threshold, config.critical_threshold, config.max_sessions) == (
        8,
        16,
        50_000,
    )
    assert config.detectors.ping_pong is False and config.ignore_params_by_tool == {
        "web_*": ["nonce"]
    }
    assert [bool(o.notes) for o in outcomes].index(True) == 7 and outcomes[15].status == "blocked"


def test_runtime_blocked_calls_keep_the_loop_visible() -> None:
    rt, capture = runtime()
    plugin = rt.get_plugin("loop_detection")
    with rt:
        outcomes = [
            rt.call({"name": "read", "params": {"path": "/a"}, "session_id": "s"})
            for _ in range(24)
        ]
        assert plugin.no_progress_streak("s") == 18  # calls 2..19 ran and repeated call 1
        state = plugin._sessions.peek("s")
        assert [state.out_at(p) == NO_OUTCOME for p in range(24)] == [False] * 19 + [True] * 5
        assert rt.call({"name": "read", "params": {"path": "/b"}, "session_id": "s"}).status == "ok"
    assert [o.status for o in outcomes] == ["ok"] * 19 + ["blocked"] * 5
    assert len(capture.of("loop.critical")) == 5


@given(
    st.dictionaries(
        st.text(max_size=8),
        st.none() | st.booleans() | st.integers() | st.text(),
        max_size=6,
    )
)
@settings(max_examples=150)
def test_the_flat_signature_text_is_the_params_themselves(params: dict[str, Any]) -> None:
    """Plain scalar params take the quick encoder: its text must decode to exactly the params
    (so two calls share a signature only when their params are equal), keys sorted."""
    import json

    from toolhooks.plugins.loop_detection._hashing import _flat_json

    text = _flat_json(ToolCall(name="t", params=params).params)
    if text is None:  # only a lone surrogate sends plain params the canonical way
        words = [*params, *(v for v in params.values() if isinstance(v, str))]
        assert any("\ud800" <= ch <= "\udfff" for word in words for ch in word)
        return
    decoded = json.loads(text)
    assert list(decoded) == sorted(params)
    assert [(v, type(v)) for v in decoded.values()] == [
        (params[k], type(params[k])) for k in decoded
    ]


def test_flat_and_canonical_signatures_do_not_meet() -> None:
    signer = Signer([], {})
    # The same-looking values of other types go the canonical way and sign differently.
    assert signer.sign("t", {"x": 1}) != signer.sign("t", {"x": 1.0})
    assert signer.sign("t", {"x": "a"}) != signer.sign("t", {"x": b"a"})
    assert signer.sign("t", {"x": True}) != signer.sign("t", {"x": 1})
    assert signer.sign("t", {"x": None}) != signer.sign("t", {"x": float("nan")})
