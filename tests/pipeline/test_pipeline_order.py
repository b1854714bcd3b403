"""The exact order of every hook call and event for a call that is rewritten, approved, executed."""

from __future__ import annotations

from toolhooks import Runtime, hookimpl


def test_full_pipeline_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trail: list[str] = []
    quiet: list[dict] = []

    class Rewriter:
        name = "rewriter"
        priority = 100

        @hookimpl
        def before_tool_call(self, call):
            trail.append("rewriter.before")
            return {"params": {"path": "/workspace/" + call.params["path"]}}

    class Gate:
        name = "gate"
        priority = 50

        @hookimpl
        def before_tool_call(self, call):
            trail.append("gate.before")
            return {
                "require_approval": {"title": "Write a file?", "description": call.params["path"]}
            }

    class Observer:
        name = "observer"
        priority = 10

        @hookimpl
        def before_tool_call(self):
            trail.append("observer.before")

        @hookimpl
        def after_tool_call(self, result):
            trail.append("observer.after")
            return {"note": "observed"}

        @hookimpl
        def on_event(self, event):
            assert event.trace_id and event.call_id
            trail.append(f"event:{event.event}:{event.plugin or '-'}")
            if event.event == "tool.injected":
                quiet.extend(event.data["quiet"])

    class Trimmer:
        name = "trimmer"
        priority = -10_000

        @hookimpl
        def after_tool_call(self, result):
            trail.append("trimmer.after")
            return {"content": result.content.upper()}

    def approver(pending):
        trail.append(f"approver:{pending.plugin}:{pending.call.params['path']}")
        return "allow-once"

    rt = Runtime(
        plugins=[Rewriter(), Gate(), Observer(), Trimmer()],
        approver=approver,
        load_entrypoints=False,
    )

    @rt.tool
    def write(path: str, text: str) -> str:
        trail.append(f"tool:{path}")
        return f"wrote {len(text)} bytes to {path}"

    outcome = rt.call(
        {"name": "write", "params": {"path": "a.txt", "text": "hi"}, "session_id": "s1"}
    )
    assert outcome.status == "ok"
    assert outcome.content == "WROTE 2 BYTES TO /WORKSPACE/A.TXT\n\nobserved"
    assert outcome.approval == "allow-once"
    assert outcome.rewritten_by == {"path": "rewriter"}
    assert trail == [
        "event:tool.proposed:-",
        "rewriter.before",
        "event:hook.decision:rewriter",
        "gate.before",
        "event:hook.decision:gate",
        "observer.before",  # no opinion: no event of its own, listed in tool.injected's quiet
        "event:approval.requested:gate",
        "approver:gate:/workspace/a.txt",
        "event:approval.resolved:gate",
        "event:tool.started:-",
        "tool:/workspace/a.txt",
        "event:tool.finished:-",
        "observer.after",
        "event:hook.decision:observer",
        "trimmer.after",
        "event:hook.decision:trimmer",
        "event:tool.injected:-",
    ]
    # The observer's before handler returned nothing: the one quiet handler of the call.
    assert [(q["plugin"], q["hook"], q["priority"]) for q in quiet] == [
        ("observer", "before_tool_call", 10)
    ]
    assert isinstance(quiet[0]["latency_ms"], float) and quiet[0]["latency_ms"] >= 0
