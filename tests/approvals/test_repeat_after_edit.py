"""A host that re-runs a paused step (LangGraph does) repeats the model's call with the same id.

After an edit led to a second approval, that repeated call must still be recognised as the paused
call: it carries the model's proposal, not the editor's params.
"""

from __future__ import annotations

from toolhooks import ToolCall


def test_a_repeated_call_finds_the_approval_an_edit_led_to(make, drive, gate_plugin) -> None:
    gate = gate_plugin(prefix="/ws/", allowed_decisions=["allow-once", "deny", "edit"])
    rt, recorder, ran = make(gate)
    proposal = ToolCall(name="write", params={"path": "notes.txt", "text": "hi"}, id="call_1")
    first = drive.call(rt, proposal)
    assert first.status == "pending"
    assert first.pending is not None
    # The gate rewrites the edited path again, so the edit does not cover what would run.
    second = drive.resume(rt, first.pending.id, "edit", params={"path": "draft.txt", "text": "hi"})
    assert second.status == "pending"
    assert second.pending is not None
    assert second.pending.id != first.pending.id
    assert dict(second.pending.call.params) == {"path": "/ws/draft.txt", "text": "hi"}
    assert second.pending.proposed_params == {"path": "notes.txt", "text": "hi"}

    again = drive.call(rt, proposal)  # the host re-runs its step: same id, same proposal
    assert again.status == "pending"
    assert again.pending is not None
    assert again.pending.id == second.pending.id

    done = drive.resume(rt, second.pending.id, "allow-once")
    assert done.status == "ok"
    assert ran == [{"path": "/ws/draft.txt", "text": "hi"}]
    names = recorder.of_call("call_1")
    assert names.count("tool.proposed") == 1
    assert names.count("tool.injected") == 1
