"""One logical call counts once in the loop detector, however many times an edit re-screens it."""

from __future__ import annotations

from toolhooks import ToolCall
from toolhooks.plugins.loop_detection import LoopDetectionPlugin
from toolhooks.testing import EventRecorder

from .conftest import Gate


def test_an_edited_call_counts_once_in_the_loop_detector(toolhooks_make_runtime, drive) -> None:
    loops = LoopDetectionPlugin({"warning_threshold": 4, "critical_threshold": 8})
    recorder = EventRecorder()
    gate = Gate(allowed_decisions=["allow-once", "deny", "edit"])
    rt = toolhooks_make_runtime(plugins=[gate, loops, recorder], approver=lambda pending: "defer")
    rt.add_tool(lambda path, text="": f"wrote {path}", name="write")
    for number in range(3):  # a reviewer who always edits the same proposal the same way
        call = ToolCall(name="write", params={"path": "a.txt"}, id=f"c{number}", session_id="s")
        paused = drive.call(rt, call)
        assert paused.status == "pending" and paused.pending is not None
        done = drive.resume(rt, paused.pending.id, "edit", params={"path": "b.txt"})
        assert done.status == "ok", done.reason
    assert len(gate.seen) == 6  # every call screened twice: its proposal and its edit
    # Counted per screening, the window would read a, b, a, b, a, b: a ping-pong of six calls.
    # Counted once each, it holds three identical calls: under the warning threshold of 4.
    assert [e.event for e in recorder.events if e.event.startswith("loop.")] == []
