"""One test per line of PLUGINS.md's "The before_tool_call merge rules"."""

from __future__ import annotations

import asyncio
import time

import pytest
from toolhooks import REMOVE, BeforeToolCallResult, Runtime, hookimpl


def echo(params):
    return dict(params)


def run(rt: Runtime, params=None, name="t"):
    return rt.call({"name": name, "params": params or {}}, execute=echo)


class Writes:
    """A before-hook returning a fixed result; named so that events can be checked."""

    def __init__(self, name, result, priority=0):
        self.name = name
        self.result = result
        self.priority = priority
        self.seen = []

    @hookimpl
    def before_tool_call(self, call):
        self.seen.append(dict(call.params))
        return self.result


def test_none_is_no_opinion(toolhooks_runtime, register_plugin):
    register_plugin(Writes("a", None))
    outcome = run(toolhooks_runtime, {"x": 1})
    assert outcome.status == "ok"
    assert outcome.value == {"x": 1}
    assert outcome.rewritten_by == {}


def test_order_is_priority_then_registration(toolhooks_runtime, register_plugin):
    order = []

    class P:
        def __init__(self, name, priority):
            self.name, self.priority = name, priority

        @hookimpl
        def before_tool_call(self, call):
            order.append(self.name)

    for name, priority in [("low", -5), ("first_tie", 3), ("high", 100), ("second_tie", 3)]:
        register_plugin(P(name, priority))
    run(toolhooks_runtime)
    assert order == ["high", "first_tie", "second_tie", "low"]


def test_hookimpl_priority_beats_attribute_and_config_beats_both(toolhooks_make_runtime):
    order = []

    class A:
        name = "a"
        priority = 1

        @hookimpl(priority=50)
        def before_tool_call(self):
            order.append("a")

    class B:
        name = "b"
        priority = 10

        @hookimpl
        def before_tool_call(self):
            order.append("b")

    rt = toolhooks_make_runtime(plugins=[A(), B()])
    run(rt)
    assert order == ["a", "b"]
    order.clear()
    rt = toolhooks_make_runtime(plugins=[A(), B()], config={"plugins": {"b": {"priority": 99}}})
    run(rt)
    assert order == ["b", "a"]


def test_params_field_level_last_writer_wins(toolhooks_runtime, register_plugin):
    register_plugin(Writes("first", {"params": {"a": 1, "b": 1}}, priority=2))
    register_plugin(Writes("second", {"params": {"b": 2, "c": 2}}, priority=1))
    outcome = run(toolhooks_runtime, {"a": 0, "keep": True})
    assert outcome.value == {"a": 1, "b": 2, "c": 2, "keep": True}
    assert outcome.params == {"a": 1, "b": 2, "c": 2, "keep": True}
    assert outcome.rewritten_by == {"a": "first", "b": "second", "c": "second"}


def test_each_handler_sees_the_merged_params_so_far(toolhooks_runtime, register_plugin):
    first = register_plugin(Writes("first", {"params": {"a": 1}}, priority=2))
    second = Writes("second", None, priority=1)
    register_plugin(second)
    run(toolhooks_runtime, {"a": 0})
    assert first == "first"
    assert second.seen == [{"a": 1}]


def test_remove_deletes_a_key(toolhooks_runtime, register_plugin):
    register_plugin(Writes("strip", {"params": {"secret": REMOVE, "absent": REMOVE}}))
    outcome = run(toolhooks_runtime, {"secret": "x", "ok": 1})
    assert outcome.value == {"ok": 1}


def test_conflict_between_two_plugins_is_recorded(
    toolhooks_runtime, register_plugin, toolhooks_events
):
    register_plugin(Writes("one", {"params": {"path": "/a"}}, priority=2))
    register_plugin(Writes("two", {"params": {"path": "/b"}}, priority=1))
    outcome = run(toolhooks_runtime, {"path": "/orig"})
    assert outcome.value == {"path": "/b"}
    (conflict,) = toolhooks_events.of("params.conflict")
    assert conflict.data == {"field": "path", "plugins": ["one", "two"]}


def test_same_value_from_two_plugins_is_not_a_conflict(
    toolhooks_runtime, register_plugin, toolhooks_events
):
    register_plugin(Writes("one", {"params": {"path": "/a"}}, priority=2))
    register_plugin(Writes("two", {"params": {"path": "/a"}}, priority=1))
    run(toolhooks_runtime)
    assert toolhooks_events.of("params.conflict") == []


def test_params_are_read_only_and_nested_mutation_cannot_change_what_runs(
    toolhooks_runtime, register_plugin
):
    errors = []

    class Vandal:
        name = "vandal"

        @hookimpl
        def before_tool_call(self, call):
            for attempt in (
                lambda: call.params.__setitem__("x", 2),
                lambda: call.params["nested"]["list"].append(99),
                lambda: call.params["nested"].update(z=1),
                lambda: setattr(call, "name", "rm"),
            ):
                try:
                    attempt()
                except (TypeError, AttributeError) as exc:
                    errors.append(type(exc).__name__)

    register_plugin(Vandal())
    proposed = {"x": 1, "nested": {"list": [1, 2]}}
    outcome = run(toolhooks_runtime, proposed)
    # a frozen record: assigning a field raises dataclasses.FrozenInstanceError (an AttributeError)
    assert errors == ["TypeError", "TypeError", "TypeError", "FrozenInstanceError"]
    assert outcome.value == {"x": 1, "nested": {"list": [1, 2]}}
    assert proposed == {"x": 1, "nested": {"list": [1, 2]}}


def test_a_handler_keeping_its_returned_dict_cannot_mutate_it_later(
    toolhooks_runtime, register_plugin
):
    kept = {"items": [1]}

    class Sneaky:
        name = "sneaky"
        priority = 5

        @hookimpl
        def before_tool_call(self):
            return {"params": kept}

    class Later:
        name = "later"

        @hookimpl
        def before_tool_call(self):
            kept["items"].append("evil")

    register_plugin(Sneaky())
    register_plugin(Later())
    outcome = run(toolhooks_runtime)
    assert outcome.value == {"items": [1]}


def test_first_approval_wins_and_freezes_params(toolhooks_make_runtime, toolhooks_events):
    asked = []

    def approver(pending):
        asked.append((pending.plugin, pending.request.title, dict(pending.call.params)))
        return "allow-once"

    rt = toolhooks_make_runtime(approver=approver)
    rt.register(toolhooks_events)
    rt.register(
        Writes(
            "gate",
            {"params": {"a": 1}, "require_approval": {"title": "first", "description": "d"}},
            3,
        )
    )
    rt.register(
        Writes(
            "other",
            {
                "params": {"a": 2, "b": 2},
                "requireApproval": {"title": "second", "description": "d"},
            },
            2,
        )
    )
    outcome = run(rt, {"a": 0})
    assert asked == [("gate", "first", {"a": 1})]
    assert outcome.status == "ok"
    assert outcome.value == {"a": 1}
    (ignored,) = toolhooks_events.of("params.frozen_ignored")
    assert ignored.plugin == "other" and ignored.data["approval_plugin"] == "gate"
    assert [e.plugin for e in toolhooks_events.of("approval.ignored")] == ["other"]


def test_approving_plugin_may_still_change_params_after_freezing(toolhooks_make_runtime):
    class Gate:
        name = "gate"

        @hookimpl(priority=5)
        def before_tool_call(self):
            return {"require_approval": {"title": "t", "description": "d"}}

        @hookimpl(priority=1, specname="before_tool_call")
        def tighten(self):
            return {"params": {"dry_run": True}}

    seen = []
    rt = toolhooks_make_runtime(
        plugins=[Gate()], approver=lambda p: seen.append(dict(p.call.params)) or "allow-once"
    )
    outcome = run(rt, {"cmd": "deploy"})
    assert outcome.value == {"cmd": "deploy", "dry_run": True}
    assert seen == [{"cmd": "deploy", "dry_run": True}]


def test_approval_plugin_is_stamped_by_the_runtime(toolhooks_make_runtime):
    seen = []

    class Liar:
        name = "liar"

        @hookimpl
        def before_tool_call(self):
            return {"require_approval": {"title": "t", "description": "d"}, "plugin": "policy"}

    rt = toolhooks_make_runtime(
        plugins=[Liar()], approver=lambda p: seen.append(p.plugin) or "allow-once"
    )
    outcome = run(rt)
    # An unknown key is itself an invalid result: fail closed rather than guess.
    assert outcome.status == "blocked" and "unknown key 'plugin'" in outcome.reason
    assert seen == []

    class Honest:
        name = "honest"

        @hookimpl
        def before_tool_call(self):
            return BeforeToolCallResult(require_approval={"title": "t", "description": "d"})

    rt = toolhooks_make_runtime(
        plugins=[Honest()], approver=lambda p: seen.append(p.plugin) or "allow-once"
    )
    assert run(rt).status == "ok"
    assert seen == ["honest"]


def test_block_is_terminal(toolhooks_runtime, register_plugin):
    after = Writes("after", None, priority=-1)
    register_plugin(Writes("wall", {"block": True, "blockReason": "no way"}, priority=1))
    register_plugin(after)
    ran = []
    outcome = toolhooks_runtime.call({"name": "t"}, execute=lambda p: ran.append(p))
    assert outcome.status == "blocked"
    assert outcome.blocked_by == "wall"
    assert outcome.reason == "no way" and outcome.content == "no way"
    assert after.seen == [] and ran == []


def test_block_default_reason_names_the_plugin(toolhooks_runtime, register_plugin):
    register_plugin(Writes("wall", BeforeToolCallResult(block=True)))
    assert run(toolhooks_runtime).reason == "Tool call blocked by plugin wall"


def test_block_false_is_no_decision(toolhooks_runtime, register_plugin):
    register_plugin(Writes("meh", {"block": False, "block_reason": "ignored"}))
    assert run(toolhooks_runtime).status == "ok"


def test_block_after_approval_request_wins_and_no_approval_is_asked(
    toolhooks_make_runtime, toolhooks_events
):
    asked = []
    rt = toolhooks_make_runtime(approver=lambda p: asked.append(p) or "allow-once")
    rt.register(toolhooks_events)
    rt.register(
        Writes("gate", {"require_approval": {"title": "t", "description": "d"}}, priority=10)
    )
    rt.register(Writes("window", {"block": True, "block_reason": "change freeze"}, priority=1))
    outcome = run(rt)
    assert outcome.status == "blocked" and outcome.blocked_by == "window"
    assert asked == []
    assert toolhooks_events.of("approval.requested") == []


@pytest.mark.parametrize("kind", ["raise", "async_raise", "garbage", "bad_field"])
def test_failing_handler_fails_closed(toolhooks_runtime, register_plugin, kind):
    class Broken:
        name = "broken"

        if kind == "raise":

            @hookimpl
            def before_tool_call(self):
                raise RuntimeError("boom")
        elif kind == "async_raise":

            @hookimpl
            async def before_tool_call(self):
                raise RuntimeError("boom")
        elif kind == "garbage":

            @hookimpl
            def before_tool_call(self):
                return 42
        else:

            @hookimpl
            def before_tool_call(self):
                return {"require_approval": {"title": "", "description": "d"}}

    register_plugin(Broken())
    ran = []
    outcome = toolhooks_runtime.call({"name": "t"}, execute=lambda p: ran.append(1))
    assert outcome.status == "blocked" and outcome.blocked_by == "broken"
    assert outcome.reason.startswith(
        "Tool call blocked because before_tool_call hook broken failed: "
    )
    expected = {
        "raise": "RuntimeError: boom",
        "async_raise": "RuntimeError: boom",
        "garbage": "returned int",
        "bad_field": "require_approval.title",
    }[kind]
    assert expected in outcome.reason
    assert ran == []


def test_timeout_fails_closed_sync_and_async(toolhooks_runtime, register_plugin):
    class SlowSync:
        name = "slow_sync"

        @hookimpl(timeout=0.05)
        def before_tool_call(self):
            time.sleep(2)

    register_plugin(SlowSync())
    started = time.monotonic()
    outcome = run(toolhooks_runtime)
    assert time.monotonic() - started < 1.5
    assert outcome.status == "blocked"
    assert "slow_sync failed: timed out after 0.05 s" in outcome.reason
    toolhooks_runtime.unregister("slow_sync")

    class SlowAsync:
        name = "slow_async"

        @hookimpl(timeout=0.05)
        async def before_tool_call(self):
            await asyncio.sleep(5)

    register_plugin(SlowAsync())
    outcome = run(toolhooks_runtime)
    assert "slow_async failed: timed out after 0.05 s" in outcome.reason


def test_config_timeout_overrides_hookimpl(toolhooks_make_runtime):
    class Slow:
        name = "slow"

        @hookimpl(timeout=30)
        async def before_tool_call(self):
            await asyncio.sleep(5)

    rt = toolhooks_make_runtime(plugins=[Slow()], config={"plugins": {"slow": {"timeout_s": 0.05}}})
    assert "timed out after 0.05 s" in run(rt).reason


def test_on_error_ignore_lets_the_call_through(toolhooks_make_runtime, toolhooks_events):
    class Flaky:
        name = "flaky"

        @hookimpl
        def before_tool_call(self):
            raise ValueError("nope")

    rt = toolhooks_make_runtime(
        plugins=[Flaky()], config={"plugins": {"flaky": {"on_error": "ignore"}}}
    )
    rt.register(toolhooks_events)
    assert run(rt).status == "ok"
    (error,) = toolhooks_events.of("hook.error")
    assert error.plugin == "flaky" and error.data["on_error"] == "ignore"


def test_audit_mode_runs_and_records_but_does_not_apply(toolhooks_make_runtime, toolhooks_events):
    shadow = Writes("shadow", {"block": True, "params": {"x": 9}})
    rt = toolhooks_make_runtime(plugins=[shadow], config={"plugins": {"shadow": {"mode": "audit"}}})
    rt.register(toolhooks_events)
    outcome = run(rt, {"x": 1})
    assert outcome.status == "ok" and outcome.value == {"x": 1}
    assert shadow.seen == [{"x": 1}]
    (decision,) = [e for e in toolhooks_events.of("hook.decision") if e.plugin == "shadow"]
    assert decision.data["applied"] is False and decision.data["block"] is True


def test_tools_matcher_limits_a_handler_to_matching_names(toolhooks_runtime, register_plugin):
    class FsOnly:
        name = "fs_only"

        @hookimpl(tools=["fs_*", "exec"])
        def before_tool_call(self, call):
            return {"block": True}

    register_plugin(FsOnly())
    assert run(toolhooks_runtime, name="fs_write").status == "blocked"
    assert run(toolhooks_runtime, name="exec").status == "blocked"
    assert run(toolhooks_runtime, name="exec2").status == "ok"
    assert run(toolhooks_runtime, name="web_fs_x").status == "ok"


def test_config_tools_override_matcher(toolhooks_make_runtime):
    wall = Writes("wall", {"block": True})
    rt = toolhooks_make_runtime(
        plugins=[wall], config={"plugins": {"wall": {"tools": ["danger*"]}}}
    )
    assert run(rt, name="safe").status == "ok"
    assert run(rt, name="danger_zone").status == "blocked"


def test_chain_is_rebuilt_on_register_and_unregister(toolhooks_runtime, register_plugin):
    assert run(toolhooks_runtime).status == "ok"
    register_plugin(Writes("wall", {"block": True}))
    assert run(toolhooks_runtime).status == "blocked"
    toolhooks_runtime.unregister("wall")
    assert run(toolhooks_runtime).status == "ok"
