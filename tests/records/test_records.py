"""ToolCall, Outcome, PluginInfo and HandlerInfo are plain frozen, slotted, keyword-only records
(issue #14 item 7)."""

from __future__ import annotations

import dataclasses

import pytest
from toolhooks import (
    HandlerInfo,
    InvalidToolCall,
    Outcome,
    PluginInfo,
    ToolCall,
    ToolSpec,
    hookimpl,
)


@pytest.mark.parametrize("record", [ToolCall, Outcome, PluginInfo, HandlerInfo])
def test_frozen_slotted_keyword_only(record):
    params = record.__dataclass_params__
    assert params.frozen and "__slots__" in vars(record)
    assert all(f.kw_only for f in dataclasses.fields(record))
    with pytest.raises(TypeError):
        record("positional")


def test_a_call_is_a_record_with_its_params_frozen_and_ids_generated():
    call = ToolCall(name="read", params={"path": "/a", "tags": ["x"]}, session_id="s")
    assert call.id.startswith("call_") and call.trace_id and call.trace_id in call.id
    with pytest.raises(TypeError, match="read-only"):
        call.params["tags"].append("y")
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.name = "rm"  # type: ignore[misc]
    again = ToolCall(name="read", params={"path": "/a", "tags": ["x"]}, session_id="s", id=call.id)
    assert again != call  # trace ids differ
    same = dataclasses.replace(call)
    assert same == call and same is not call
    assert call.with_params({"path": "/b"}).params == {"path": "/b"}
    with pytest.raises(TypeError):
        hash(call)  # params are a dict: a call is not hashable, as before


def test_from_mapping_treats_none_as_not_given_but_checks_origin():
    call = ToolCall.from_mapping({"name": "t", "params": None, "id": None, "trace_id": None})
    assert call.params == {} and call.id and call.trace_id
    with pytest.raises(ValueError, match="origin must be 'agent' or 'external', got None"):
        ToolCall.from_mapping({"name": "t", "origin": None})


def test_outcome_and_infos_from_the_runtime(toolhooks_runtime):
    class Note:
        @hookimpl
        def after_tool_call(self, result):
            return {"note": "checked"}

    toolhooks_runtime.register(Note(), name="note")
    outcome = toolhooks_runtime.call({"name": "t"}, execute=lambda p: "ok")
    assert (outcome.content, outcome.notes, outcome.content_changed) == (
        "ok\n\nchecked",
        ["checked"],
        False,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.status = "error"  # type: ignore[misc]
    [info] = toolhooks_runtime.plugins()
    assert (info.name, info.hooks, info.enabled) == ("note", ("after_tool_call",), True)
    [handler] = toolhooks_runtime.handlers("after_tool_call")
    assert (handler.plugin, handler.mode, handler.timeout_s) == ("note", "enforce", None)


def test_a_call_copied_with_a_spec_or_params_keeps_every_other_field() -> None:
    # with_spec / with_params copy the fields by name without checking them again: a field added
    # to ToolCall and not copied would be lost here.
    call = ToolCall(
        name="read",
        params={"path": "a"},
        id="c1",
        session_id="s",
        run_id="r",
        trace_id="t",
        agent_id="a",
        sender={"id": "u", "roles": ["dev"]},
        origin="external",
        context_window_tokens=5,
    )
    spec = ToolSpec("read")
    for copy, changed in ((call.with_spec(spec), "spec"), (call.with_params({"x": [1]}), "params")):
        for item in dataclasses.fields(ToolCall):
            if item.name != changed:
                assert getattr(copy, item.name) == getattr(call, item.name), item.name
    assert call.with_spec(spec).spec is spec
    assert dict(call.with_params({"x": [1]}).params) == {"x": [1]}
    with pytest.raises(TypeError):
        call.with_params({"x": [1]}).params["x"].append(2)  # frozen on the way
    with pytest.raises(InvalidToolCall):
        call.with_params({"x": object()})
