"""Runtime: call and acall, tools and schemas, bad calls as Outcomes, visibility, bookkeeping."""

from __future__ import annotations

import asyncio
import threading

import pytest
from toolhooks import (
    AfterToolCallResult,
    PluginValidationError,
    Runtime,
    Sender,
    ToolCall,
    ToolSpec,
    hookimpl,
)


@pytest.fixture
def rt(toolhooks_runtime):
    @toolhooks_runtime.tool(tags=["side_effect"])
    def write(path: str, text: str = "", mode: int = 0o644) -> str:
        """Write a file."""
        return f"{path}:{text}:{mode}"

    @toolhooks_runtime.tool
    def explode() -> None:
        raise OSError("disk on fire")

    return toolhooks_runtime


def test_schema_from_signature(rt):
    (write,) = [spec for spec in rt.tool_specs() if spec.name == "write"]
    assert write.description == "Write a file."
    assert write.tags == frozenset({"side_effect"})
    assert write.parameters["properties"]["path"] == {"title": "Path", "type": "string"}
    assert write.parameters["required"] == ["path"]
    assert write.parameters["additionalProperties"] is False


def test_call_returns_content_and_value(rt):
    outcome = rt.call({"name": "write", "params": {"path": "a", "text": "b"}})
    assert (outcome.status, outcome.content, outcome.value) == ("ok", "a:b:420", "a:b:420")
    assert outcome.params == {"path": "a", "text": "b"}


def test_invalid_params_are_blocked_by_toolhooks_naming_the_field(rt):
    ran = []
    rt.add_tool(lambda n: ran.append(n), name="count", description="")
    outcome = rt.call({"name": "write", "params": {"text": 5}})
    assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
    assert "field 'path': Field required" in outcome.reason
    assert "field 'text': Input should be a valid string" in outcome.reason
    outcome = rt.call({"name": "write", "params": {"path": "a", "colour": "red"}})
    assert "field 'colour': Extra inputs are not permitted" in outcome.reason


def test_validated_params_are_what_runs_and_what_is_reported(rt):
    outcome = rt.call({"name": "write", "params": {"path": "a", "mode": 7}})
    assert outcome.value == "a::7" and outcome.params == {"path": "a", "mode": 7}
    assert rt.adjusted_params(outcome.call_id) == {"path": "a", "mode": 7}


def test_unknown_tool_is_an_error_outcome(rt):
    outcome = rt.call({"name": "nope"})
    assert outcome.status == "error" and outcome.reason == "Unknown tool 'nope'"


def test_tool_that_raises_is_an_error_outcome(rt):
    outcome = rt.call({"name": "explode"})
    assert outcome.status == "error"
    assert outcome.content == "Tool 'explode' failed: OSError: disk on fire"


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (None, "got NoneType"),
        ("exec", "got str"),
        ({"params": {}}, "no 'name'"),
        ({"name": ""}, "non-empty"),
        ({"name": "x" * 10_000}, "10000 characters"),
        ({"name": "ex\x00ec"}, "control characters"),
        ({"name": "a", "params": [1]}, "params must be a mapping"),
        ({"name": "a", "params": {1: 2}}, "not a string"),
        ({"name": "a", "origin": "martian"}, "origin"),
        ({"name": "a", "bogus": 1}, "unknown keys: 'bogus'"),
        ({"name": "a", "sender": {"name": "no id"}}, "sender.id"),
        ({"name": "a", "context_window_tokens": -1}, "context_window_tokens"),
    ],
)
def test_malformed_calls_are_outcomes_not_exceptions(rt, raw, fragment):
    outcome = rt.call(raw)
    assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
    assert outcome.reason.startswith("Invalid tool call: ")
    assert fragment in outcome.reason


def test_cyclic_and_deep_params_are_refused(rt):
    cyclic: dict = {}
    cyclic["self"] = cyclic
    assert "reference cycle" in rt.call({"name": "write", "params": cyclic}).reason
    deep: dict = {}
    node = deep
    for _ in range(10_000):
        node["x"] = {}
        node = node["x"]
    assert "nested deeper than 64" in rt.call({"name": "write", "params": deep}).reason


def test_toolcall_objects_are_accepted_and_immutable(rt):
    call = ToolCall(name="write", params={"path": "p"}, sender=Sender("u1", roles=("dev",)))
    with pytest.raises(AttributeError):
        call.name = "x"
    assert rt.call(call).value == "p::420"


def test_async_tool_and_async_hooks_in_sync_call(rt):
    class AsyncPlugin:
        name = "async_plugin"

        @hookimpl
        async def before_tool_call(self, call):
            await asyncio.sleep(0)
            return {"params": {"text": "from-async"}}

        @hookimpl
        async def after_tool_call(self, result):
            return AfterToolCallResult(note="async after")

    rt.register(AsyncPlugin())

    @rt.tool
    async def slow_write(path: str, text: str) -> str:
        await asyncio.sleep(0)
        return f"{path}={text}"

    outcome = rt.call({"name": "slow_write", "params": {"path": "p", "text": "t"}})
    assert outcome.content == "p=from-async\n\nasync after"


def test_sync_call_creates_no_event_loop_when_everything_is_sync(rt):
    class Plain:
        name = "plain"

        @hookimpl
        def before_tool_call(self):
            return None

    rt.register(Plain())
    before = {t.name for t in threading.enumerate()}
    rt.call({"name": "write", "params": {"path": "p"}})
    assert not rt._background.started
    assert {t.name for t in threading.enumerate()} == before


def test_acall_runs_sync_and_async_handlers_on_the_callers_loop(rt):
    seen = []

    class Mixed:
        name = "mixed"

        @hookimpl(priority=2)
        def before_tool_call(self):
            seen.append(("sync", asyncio.get_running_loop() is not None))

        @hookimpl(priority=1, specname="before_tool_call")
        async def also(self):
            seen.append(("async", True))
            return {"params": {"text": "x"}}

    rt.register(Mixed())

    async def main():
        return await asyncio.gather(
            *[rt.acall({"name": "write", "params": {"path": str(i)}}) for i in range(20)]
        )

    outcomes = asyncio.run(main())
    assert [o.value for o in outcomes] == [f"{i}:x:420" for i in range(20)]
    assert seen.count(("sync", True)) == 20 and seen.count(("async", True)) == 20
    assert not rt._background.started


def test_after_hook_failure_fails_open_unless_configured_to_block(toolhooks_make_runtime):
    class Bad:
        name = "bad"

        @hookimpl
        def after_tool_call(self):
            raise RuntimeError("after broke")

    rt = toolhooks_make_runtime(plugins=[Bad()])
    outcome = rt.call({"name": "t"}, execute=lambda p: "fine")
    assert outcome.status == "ok" and outcome.content == "fine"
    rt = toolhooks_make_runtime(plugins=[Bad()], config={"plugins": {"bad": {"on_error": "block"}}})
    outcome = rt.call({"name": "t"}, execute=lambda p: "secret result")
    assert outcome.status == "blocked" and outcome.blocked_by == "bad"
    assert "secret result" not in outcome.content
    assert "after_tool_call hook bad failed: RuntimeError: after broke" in outcome.content


def test_after_hooks_see_blocked_and_denied_calls_too(toolhooks_make_runtime):
    seen = []

    class Audit:
        name = "audit"

        @hookimpl
        def after_tool_call(self, call, result):
            seen.append((call.name, result.status, result.error_kind))

    class Wall:
        name = "wall"

        @hookimpl(tools=["blocked"])
        def before_tool_call(self):
            return {"block": True}

        @hookimpl(tools=["asks"], specname="before_tool_call")
        def ask(self):
            return {"require_approval": {"title": "t", "description": "d"}}

    rt = toolhooks_make_runtime(plugins=[Audit(), Wall()])
    rt.call({"name": "blocked"}, execute=lambda p: 1)
    rt.call({"name": "asks"}, execute=lambda p: 1)
    rt.call({"name": "missing"})
    rt.call({"name": "ok"}, execute=lambda p: 1)
    assert seen == [
        ("blocked", "blocked", "policy"),
        ("asks", "denied", "approval"),
        ("missing", "error", "unknown_tool"),
        ("ok", "ok", None),
    ]


def test_after_hook_content_and_value_last_writer_wins_and_notes_append(
    toolhooks_runtime, register_plugin
):
    class One:
        name = "one"
        priority = 2

        @hookimpl
        def after_tool_call(self):
            return {"content": "one", "value": 1, "note": "n1"}

    class Two:
        name = "two"
        priority = 1

        @hookimpl
        def after_tool_call(self, result):
            assert result.content == "one"
            return {"content": result.content + "+two", "note": "n2"}

    register_plugin(One())
    register_plugin(Two())
    outcome = toolhooks_runtime.call({"name": "t"}, execute=lambda p: "raw")
    assert outcome.content == "one+two\n\nn1\nn2"
    assert outcome.value == 1 and outcome.notes == ["n1", "n2"]


def test_a_raising_sink_never_affects_the_call(toolhooks_runtime, register_plugin, caplog):
    class BadSink:
        name = "bad_sink"

        @hookimpl
        def on_event(self, event):
            raise RuntimeError("sink down")

    register_plugin(BadSink())
    outcome = toolhooks_runtime.call({"name": "t"}, execute=lambda p: "ok")
    assert outcome.status == "ok"
    assert "on_event sink bad_sink failed" in caplog.text


def test_unknown_hook_and_bad_arguments_are_rejected_at_registration(toolhooks_runtime):
    class Typo:
        @hookimpl
        def before_tool_cal(self, call):
            pass

    with pytest.raises(PluginValidationError, match="unknown hook 'before_tool_cal'"):
        toolhooks_runtime.register(Typo())

    class WrongArg:
        @hookimpl
        def before_tool_call(self, tool_call):
            pass

    with pytest.raises(PluginValidationError, match="tool_call"):
        toolhooks_runtime.register(WrongArg())
    assert toolhooks_runtime.plugins() == []


def test_visible_tools(rt):
    class HideWrites:
        name = "hide"

        @hookimpl
        def tool_visible(self, tool, sender):
            if "side_effect" in tool.tags and (sender is None or "admin" not in sender.roles):
                return False
            return None

    rt.register(HideWrites())
    assert [t.name for t in rt.visible_tools()] == ["explode"]
    admin = {"id": "u", "roles": ["admin"]}
    assert [t.name for t in rt.visible_tools(sender=admin)] == ["write", "explode"]


def test_spec_only_tools_run_through_execute(toolhooks_runtime):
    toolhooks_runtime.add_tool(
        ToolSpec("remote", "A remote tool", {"type": "object"}, frozenset({"internal"}))
    )
    outcome = toolhooks_runtime.call(
        {"name": "remote", "params": {"q": 1}}, execute=lambda p: {"got": p}
    )
    assert outcome.content == '{"got": {"q": 1}}'
    assert "has no implementation" in toolhooks_runtime.call({"name": "remote"}).content


def test_plugins_listing(toolhooks_runtime, register_plugin):
    class Listed:
        name = "listed"
        priority = 7

        @hookimpl(tools=["exec"])
        def before_tool_call(self):
            pass

        @hookimpl
        def on_event(self, event):
            pass

    register_plugin(Listed())
    (info,) = toolhooks_runtime.plugins()
    assert (info.name, info.priority, info.source, info.mode, info.enabled) == (
        "listed",
        7,
        "registered",
        "enforce",
        True,
    )
    assert set(info.hooks) == {"before_tool_call", "on_event"} and info.tools == ("exec",)


def test_adjusted_params_is_bounded(toolhooks_runtime):
    first = toolhooks_runtime.call({"name": "t", "params": {"n": 0}}, execute=lambda p: 1)
    for n in range(5000):
        toolhooks_runtime.call({"name": "t", "params": {"n": n}}, execute=lambda p: 1)
    assert toolhooks_runtime.adjusted_params(first.call_id) is None
    assert len(toolhooks_runtime._adjusted) <= 4096
    assert toolhooks_runtime.adjusted_params("no-such-id") is None


def test_runtime_is_usable_from_many_threads(toolhooks_runtime, toolhooks_events):
    class Counter:
        name = "counter"

        @hookimpl
        def before_tool_call(self, call):
            return {"params": {"seen": call.params["n"]}}

    toolhooks_runtime.register(Counter())
    results = []

    def worker(offset):
        for n in range(200):
            results.append(
                toolhooks_runtime.call(
                    {"name": "t", "params": {"n": offset + n}}, execute=dict
                ).value
            )

    threads = [threading.Thread(target=worker, args=(i * 1000,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 1600 and all(r["seen"] == r["n"] for r in results)
    assert len(toolhooks_events.of("tool.injected")) == 1600
    assert len({e.call_id for e in toolhooks_events.of("tool.injected")}) == 1600


def test_runtime_constructor_arguments(tmp_path):
    def greet(name: str) -> str:
        return f"hello {name}"

    with Runtime(tools=[greet], load_entrypoints=False) as rt:
        assert rt.call({"name": "greet", "params": {"name": "ada"}}).content == "hello ada"


def test_handlers_lists_each_chain_in_order_with_options(toolhooks_make_runtime):
    class Gate:
        name = "gate"

        @hookimpl(priority=5, tools=["exec"], timeout=2.5)
        def before_tool_call(self):
            pass

        @hookimpl
        async def after_tool_call(self):
            pass

    class Watch:
        name = "watch"

        @hookimpl(priority=9)
        def before_tool_call(self):
            pass

    rt = toolhooks_make_runtime(
        plugins=[Gate(), Watch()], config={"plugins": {"watch": {"mode": "audit"}}}
    )
    assert [
        (h.plugin, h.priority, h.timeout_s, h.inline, h.mode, h.tools)
        for h in rt.handlers("before_tool_call", "exec")
    ] == [
        ("watch", 9, None, True, "audit", None),
        ("gate", 5, 2.5, False, "enforce", ("exec",)),
    ]
    assert [h.plugin for h in rt.handlers("before_tool_call", "read")] == ["watch"]
    (after,) = rt.handlers("after_tool_call")
    assert (after.is_async, after.timeout_s, after.on_error) == (True, 15.0, "ignore")
