"""The merge rules as a pure fold, line by line (DESIGN.md, "The before_tool_call merge rules").

No runtime, no registry, no events dispatcher: ``fold(state, plugin, result)`` is given a state
and what a plugin's handler returned, and gives the next state. ``test_merge_rules.py`` checks
the same rules end to end through ``Runtime.call``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from toolhooks import REMOVE, ApprovalRequest, BeforeToolCallResult, ToolCall
from toolhooks.pipeline._state import CallState, HookFailed, fold

ASK = ApprovalRequest(title="Run it?", description="a plugin asks")
LATER_ASK = ApprovalRequest(title="Me too?", description="a later plugin asks")


def start(**params: Any) -> CallState:
    call = ToolCall(name="t", params=params)
    return CallState(call, call.params)


def writes(params: Mapping[str, Any]) -> BeforeToolCallResult:
    return BeforeToolCallResult(params=dict(params))


def chain(state: CallState, *steps: tuple[str, Any]) -> CallState:
    for plugin, result in steps:
        state = fold(state, plugin, result)
    return state


# State: params = a copy of the proposed params; no approval; no block.


def test_the_start_is_the_proposal_with_no_approval_and_no_block():
    state = start(x=1)
    assert dict(state.params) == {"x": 1}
    assert state.params is state.proposed
    assert state.approval is None and state.approval_plugin is None
    assert state.blocked_by is None and state.block_reason is None
    assert state.writers is None and state.rewritten() == {}


# ... passing it a ToolCall whose params are the merged params so far, handed over read-only.


def test_the_next_handler_sees_the_merged_params_read_only():
    state = fold(start(x=1), "a", writes({"y": 2}))
    assert dict(state.call.params) == {"x": 1, "y": 2}
    with pytest.raises(TypeError):
        state.call.params["x"] = 5  # type: ignore[index]


def test_a_written_value_mutated_by_its_handler_afterwards_changes_nothing():
    value = [1, 2]
    state = fold(start(), "a", writes({"list": value}))
    value.append(3)
    assert list(state.params["list"]) == [1, 2]


def test_the_state_is_immutable():
    state = start(x=1)
    with pytest.raises(AttributeError):
        state.blocked_by = "me"  # type: ignore[misc]


# 1. None -> no opinion, next handler.


def test_none_is_no_opinion_and_changes_nothing():
    state = start(x=1)
    assert fold(state, "a", None) is state


def test_an_empty_result_is_no_decision():
    state = start(x=1)
    assert fold(state, "a", BeforeToolCallResult()) is state


# 2. params -> shallow, field-level merge; last writer wins; unnamed fields kept; REMOVE deletes.


def test_params_merge_field_by_field_and_keep_the_fields_not_named():
    state = chain(start(x=1, y=2), ("a", writes({"y": 3, "z": 4})))
    assert dict(state.params) == {"x": 1, "y": 3, "z": 4}
    assert dict(state.proposed) == {"x": 1, "y": 2}


def test_the_merge_is_shallow_a_nested_value_is_replaced_whole():
    state = chain(start(opts={"a": 1, "b": 2}), ("a", writes({"opts": {"a": 9}})))
    assert dict(state.params["opts"]) == {"a": 9}


def test_the_last_writer_wins():
    state = chain(start(x=1), ("a", writes({"x": 2})), ("b", writes({"x": 3})))
    assert state.params["x"] == 3
    assert dict(state.writers or {}) == {"x": "b"}


def test_remove_deletes_a_field():
    state = chain(start(x=1, y=2), ("a", writes({"y": REMOVE})))
    assert dict(state.params) == {"x": 1}
    assert state.rewritten() == {"y": "a"}


def test_remove_of_a_missing_field_changes_nothing_but_names_the_writer():
    state = chain(start(x=1), ("a", writes({"gone": REMOVE})))
    assert dict(state.params) == {"x": 1}
    assert dict(state.writers or {}) == {"gone": "a"}
    assert state.rewritten() == {}


# Two plugins writing different values to one field is recorded (params.conflict naming both).


def test_two_plugins_writing_different_values_is_a_conflict_naming_both():
    state = fold(start(), "a", writes({"x": 1}))
    state = fold(state, "b", writes({"x": 2}))
    assert state.events == (("params.conflict", "b", {"field": "x", "plugins": ["a", "b"]}),)


def test_the_same_value_written_twice_or_by_the_same_plugin_is_no_conflict():
    state = fold(start(), "a", writes({"x": 1}))
    again = fold(state, "b", writes({"x": 1}))
    assert again.events == ()
    rewrite = fold(state, "a", writes({"x": 2}))
    assert rewrite.events == ()


# The runtime remembers which plugin last wrote each field.


def test_the_writers_are_remembered_and_rewritten_names_only_changed_fields():
    state = chain(start(x=1), ("a", writes({"x": 1, "y": 2})), ("b", writes({"y": 3})))
    assert dict(state.writers or {}) == {"x": "a", "y": "b"}
    assert state.rewritten() == {"y": "b"}


# 3. require_approval -> the first request wins and freezes the params.


def test_the_first_approval_request_wins_and_the_plugin_is_stamped_by_the_runtime():
    state = fold(start(), "asker", BeforeToolCallResult(require_approval=ASK))
    assert state.approval is ASK
    assert state.approval_plugin == "asker"


def test_after_a_request_params_from_another_plugin_are_ignored_and_recorded():
    state = fold(start(x=1), "asker", BeforeToolCallResult(require_approval=ASK))
    after = fold(state, "other", writes({"x": 2, "y": 3}))
    assert dict(after.params) == {"x": 1}
    assert after.events == (
        ("params.frozen_ignored", "other", {"fields": ["x", "y"], "approval_plugin": "asker"}),
    )


def test_the_requesting_plugin_may_still_write_params():
    state = fold(start(x=1), "asker", BeforeToolCallResult(require_approval=ASK))
    after = fold(state, "asker", writes({"x": 2}))
    assert after.params["x"] == 2


def test_a_request_and_params_in_one_result_both_apply():
    state = fold(start(x=1), "a", BeforeToolCallResult(params={"x": 2}, require_approval=ASK))
    assert state.params["x"] == 2 and state.approval_plugin == "a"


def test_later_requests_are_ignored_and_recorded():
    state = fold(start(), "first", BeforeToolCallResult(require_approval=ASK))
    after = fold(state, "second", BeforeToolCallResult(require_approval=LATER_ASK))
    assert after.approval is ASK and after.approval_plugin == "first"
    assert after.events == (
        ("approval.ignored", "second", {"title": "Me too?", "approval_plugin": "first"}),
    )


# 4. block=True -> terminal, with block_reason or the default; also after an approval request.


def test_a_block_names_the_plugin_and_its_reason():
    state = fold(start(), "guard", BeforeToolCallResult(block=True, block_reason="no"))
    assert (state.blocked_by, state.block_reason) == ("guard", "no")


def test_a_block_without_a_reason_gets_the_default():
    state = fold(start(), "guard", BeforeToolCallResult(block=True))
    assert state.block_reason == "Tool call blocked by plugin guard"


def test_a_later_handler_can_block_after_an_approval_was_requested():
    state = fold(start(), "asker", BeforeToolCallResult(require_approval=ASK))
    state = fold(state, "guard", BeforeToolCallResult(block=True))
    assert state.blocked_by == "guard" and state.approval_plugin == "asker"


def test_block_false_is_no_decision():
    state = start()
    assert fold(state, "a", BeforeToolCallResult(block=False, block_reason="ignored")) is state


# 5. A handler that raises or exceeds its timeout fails closed, unless on_error = "ignore".


def test_a_failing_handler_blocks_with_the_failure():
    state = fold(start(), "fragile", HookFailed("RuntimeError: boom"))
    assert state.blocked_by == "fragile"
    assert state.block_reason == (
        "Tool call blocked because before_tool_call hook fragile failed: RuntimeError: boom"
    )


def test_a_timed_out_handler_blocks_the_same_way():
    state = fold(start(), "slow", HookFailed("timed out after 0.1 s"))
    assert state.block_reason == (
        "Tool call blocked because before_tool_call hook slow failed: timed out after 0.1 s"
    )


def test_a_failing_handler_with_on_error_ignore_changes_nothing():
    state = start()
    assert fold(state, "fragile", HookFailed("boom"), on_error="ignore") is state


@pytest.mark.parametrize(
    "params", [{1: "not a string key"}, {"x": object()}], ids=["bad key", "bad value"]
)
def test_invalid_params_fail_closed_and_change_nothing(params):
    state = fold(start(x=1), "bad", BeforeToolCallResult(params=params))
    assert state.blocked_by == "bad"
    assert state.block_reason.startswith(
        "Tool call blocked because before_tool_call hook bad failed: invalid params: "
    )
    assert dict(state.params) == {"x": 1}
    [(name, plugin, data)] = state.events
    assert (name, plugin, data["hook"], data["on_error"]) == (
        "hook.error",
        "bad",
        "before_tool_call",
        "block",
    )


def test_invalid_params_with_on_error_ignore_skip_the_whole_result():
    result = BeforeToolCallResult(params={"x": 2, 1: "bad"}, require_approval=ASK)
    state = fold(start(x=1), "bad", result, on_error="ignore")
    assert state.blocked_by is None and state.approval is None
    assert dict(state.params) == {"x": 1}
    assert [name for name, _, _ in state.events] == ["hook.error"]


# 6. A plugin in mode = "audit" runs, and its decisions are recorded, but not applied.


@pytest.mark.parametrize(
    "result",
    [
        BeforeToolCallResult(block=True),
        BeforeToolCallResult(params={"x": 2}),
        BeforeToolCallResult(require_approval=ASK),
        HookFailed("boom"),
    ],
    ids=["block", "params", "approval", "failure"],
)
def test_an_audit_plugins_decisions_are_not_applied(result):
    state = start(x=1)
    assert fold(state, "shadow", result, audit=True) is state


# A paused call is taken up again from its stored row through one constructor.


def test_a_state_rebuilt_from_a_stored_row_is_the_state_that_paused():
    from toolhooks.approvals._resolve import make_pending
    from toolhooks.records._frozen import freeze_params
    from toolhooks.stores._contract import stored_from_pending

    state = chain(
        start(x=1), ("a", writes({"x": 2})), ("asker", BeforeToolCallResult(require_approval=ASK))
    )
    pending = make_pending(state.call, "asker", ASK, "digest", state.proposed, state.rewritten())
    row = stored_from_pending(pending, expires_at=pending.expires_at, quiet=[])
    again = CallState.from_row(row, None)
    assert dict(again.params) == dict(state.params)
    assert dict(again.proposed) == dict(freeze_params({"x": 1}))
    assert dict(again.writers or {}) == {"x": "a"}
    assert again.approval == ASK and again.approval_plugin == "asker"
    assert again.blocked_by is None
    assert again.call.id == state.call.id and again.call.trace_id == state.call.trace_id
