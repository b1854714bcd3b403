"""After hooks see a read-only result; only what they return changes it (issue #10 item 3),
and a hook that raises leaves its traceback behind (item 23)."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest
from toolhooks import AfterToolCallResult, Runtime, ToolCall, ToolResult, hookimpl
from toolhooks.testing import EventRecorder


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(load_entrypoints=False, config={})

    @runtime.tool
    def listing() -> dict[str, Any]:
        return {"files": ["a", "b"], "count": 2}

    @runtime.tool
    def echo(text: str) -> str:
        return text

    yield runtime
    runtime.close()


def test_status_cannot_be_written_so_a_blocked_call_stays_blocked(rt: Runtime) -> None:
    problems: list[str] = []

    class Blocker:
        @hookimpl
        def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
            return {"block": True, "block_reason": "not today"}

    class Flipper:
        @hookimpl
        def after_tool_call(self, result: ToolResult) -> None:
            for name, value in (("status", "ok"), ("content", "fine"), ("error", None)):
                try:
                    setattr(result, name, value)
                except dataclasses.FrozenInstanceError as exc:
                    problems.append(f"{name}: {type(exc).__name__}")

    rt.register(Blocker())
    rt.register(Flipper())
    outcome = rt.call({"name": "echo", "params": {"text": "hi"}})
    assert (outcome.status, outcome.content, outcome.reason) == (
        "blocked",
        "not today",
        "not today",
    )
    assert problems == [
        "status: FrozenInstanceError",
        "content: FrozenInstanceError",
        "error: FrozenInstanceError",
    ]


def test_an_audit_plugin_cannot_change_the_value_in_place(rt: Runtime) -> None:
    seen: list[str] = []

    class Sneaky:
        mode = "audit"

        @hookimpl
        def after_tool_call(self, result: ToolResult) -> None:
            try:
                result.value["files"].append("planted")
            except TypeError as exc:
                seen.append(str(exc).split(";")[0])
            try:
                result.value["count"] = 99
            except TypeError:
                seen.append("count is read-only")

    rt.register(Sneaky())
    outcome = rt.call({"name": "listing"})
    assert outcome.status == "ok"
    assert outcome.value == {"files": ["a", "b"], "count": 2}
    assert type(outcome.value) is dict and type(outcome.value["files"]) is list  # the caller's own
    assert seen == ["tool call params are read-only", "count is read-only"]


def test_changes_go_through_the_returned_result_and_later_hooks_see_them(rt: Runtime) -> None:
    seen: list[tuple[str, Any]] = []

    class Rewriter:
        priority = 10

        @hookimpl
        def after_tool_call(self, result: ToolResult) -> AfterToolCallResult:
            return AfterToolCallResult(content="rewritten", value={"files": []})

    class Watcher:
        @hookimpl
        def after_tool_call(self, result: ToolResult) -> None:
            seen.append((result.content, result.value))
            with pytest.raises(TypeError):
                result.value["files"].append("x")

    rt.register(Rewriter())
    rt.register(Watcher())
    outcome = rt.call({"name": "listing"})
    assert (outcome.content, outcome.value) == ("rewritten", {"files": []})
    assert seen == [("rewritten", {"files": []})]


def test_a_failing_hook_logs_its_traceback_and_records_the_last_frames(
    rt: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    recorder = EventRecorder()
    rt.register(recorder)

    def deep_helper(text: str) -> None:
        raise RuntimeError(f"cannot handle {text}")

    class Fragile:
        @hookimpl
        def before_tool_call(self, call: ToolCall) -> None:
            if call.params.get("text") == "before":
                deep_helper("before")

        @hookimpl
        def after_tool_call(self, call: ToolCall) -> None:
            if call.params.get("text") == "after":
                deep_helper("after")

    rt.register(Fragile())
    with caplog.at_level(logging.ERROR, logger="toolhooks"):
        blocked = rt.call({"name": "echo", "params": {"text": "before"}})
        ran = rt.call({"name": "echo", "params": {"text": "after"}})
    assert blocked.status == "blocked"
    assert blocked.reason == (
        "Tool call blocked because before_tool_call hook Fragile failed: "
        "RuntimeError: cannot handle before"
    )
    assert (ran.status, ran.content) == ("ok", "after")

    errors = recorder.of("hook.error")
    assert [e.data["hook"] for e in errors] == ["before_tool_call", "after_tool_call"]
    for event, where in zip(errors, ("before", "after"), strict=True):
        frames = event.data["traceback"]
        assert frames.startswith("Traceback (most recent call last):\n")
        assert "in deep_helper" in frames and f"{where}_tool_call" in frames
        assert frames.rstrip().endswith(f"RuntimeError: cannot handle {where}")

    records = [r for r in caplog.records if r.name == "toolhooks"]
    assert [r.getMessage() for r in records] == [
        "before_tool_call hook Fragile failed on tool 'echo' (call "
        f"{blocked.call_id}): RuntimeError: cannot handle before",
        "after_tool_call hook Fragile failed on tool 'echo' (call "
        f"{ran.call_id}): RuntimeError: cannot handle after",
    ]
    assert all(r.exc_info is not None and r.exc_info[0] is RuntimeError for r in records)


def test_a_failing_tool_visible_hook_logs_its_traceback(
    rt: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    class Picky:
        @hookimpl
        def tool_visible(self, tool: Any) -> bool:
            raise KeyError(tool.name)

    rt.register(Picky())
    with caplog.at_level(logging.ERROR, logger="toolhooks"):
        assert rt.visible_tools() == []
    assert [r.getMessage() for r in caplog.records if r.name == "toolhooks"] == [
        "tool_visible hook Picky failed on tool 'listing': KeyError: 'listing'",
        "tool_visible hook Picky failed on tool 'echo': KeyError: 'echo'",
    ]
    assert all(r.exc_info is not None for r in caplog.records if r.name == "toolhooks")
    caplog.clear()
    with caplog.at_level(
        logging.ERROR, logger="toolhooks"
    ):  # a call to it fails closed, logged too
        outcome = rt.call({"name": "echo", "params": {"text": "hi"}})
    assert outcome.status == "blocked" and outcome.blocked_by == "Picky"
    (record,) = [r for r in caplog.records if r.name == "toolhooks"]
    assert record.getMessage() == "tool_visible hook Picky failed on tool 'echo': KeyError: 'echo'"
    assert record.exc_info is not None and record.exc_info[0] is KeyError
