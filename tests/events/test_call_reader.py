"""The one reader that rebuilds calls from logged events (``toolhooks.events._calls``): whatif
reads it in proposal order, the desk reads every call as it stands; both fold the same events
the same way. The events here are written by a real runtime's event log and read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import toolhooks
from toolhooks import PendingApproval, Runtime, hookimpl
from toolhooks.events import _names
from toolhooks.events._calls import NO_PROPOSAL, CallReader, latest_calls, rebuilt
from toolhooks.plugins.event_log import read_events


class AskForDeploy:
    @hookimpl(tools=["deploy"])
    def before_tool_call(self, call: toolhooks.ToolCall) -> dict[str, Any] | None:
        return {"require_approval": {"title": "Deploy?", "description": "prod"}}


def logged(tmp_path: Path) -> list[dict[str, Any]]:
    """A real log: one read that runs, one deploy deferred then resumed and allowed."""
    log = tmp_path / "events.jsonl"
    config = {"plugins": {"event_log": {"path": str(log), "durability": "call"}}}
    rt = Runtime(config=config, plugins=[AskForDeploy()], approver=lambda p: "defer")

    def read(path: str) -> str:
        return "text"

    def deploy(env: str) -> str:
        return "deployed"

    rt.add_tool(read)
    rt.add_tool(deploy)
    try:
        ran = rt.call({"name": "read", "params": {"path": "a"}, "id": "c1", "session_id": "s"})
        assert ran.status == "ok"
        paused = rt.call({"name": "deploy", "params": {"env": "prod"}, "id": "c2"})
        assert paused.status == "pending" and isinstance(paused.pending, PendingApproval)
        done = rt.resume(paused.pending.id, "allow-once", by="ana")
        assert done.status == "ok", done.reason
    finally:
        rt.close()
    return list(read_events(log))


def test_every_event_name_has_its_constant() -> None:
    constants = {v for k, v in vars(_names).items() if k.isupper() and isinstance(v, str)}
    assert set(toolhooks.EVENT_NAMES) <= constants
    assert set(_names.CALL_ENDS) == {"tool.injected", "approval.deferred"}


def test_the_desk_sees_a_resumed_call_as_one_call_with_its_decision(tmp_path: Path) -> None:
    calls = latest_calls(logged(tmp_path), max_calls=100)
    assert list(calls) == ["c1", "c2"]
    read, deploy = calls["c1"].summary(), calls["c2"].summary()
    assert (read["tool"], read["status"], read["session_id"]) == ("read", "ok", "s")
    assert (deploy["status"], deploy["decision"], deploy["decided_by"]) == (
        "ok",
        "allow-once",
        "ana",
    )
    assert len(deploy["approval_ids"]) == 1 and deploy["events"] > read["events"]
    assert 0 < read["started"] <= read["updated"] <= deploy["started"]
    assert list(read) == [
        "call_id", "trace_id", "session_id", "tool", "started", "updated", "status",
        "decision", "decided_by", "reason", "approval_ids", "events",
    ]  # fmt: skip


def test_whatif_reads_a_paused_call_up_to_its_deferral_only(tmp_path: Path) -> None:
    events = logged(tmp_path)
    calls = list(CallReader(keep=lambda name: True).feed(events))
    assert [c.call_id for c in calls] == ["c1", "c2"]
    deploy = calls[1]
    assert deploy.ended and deploy.problem is None and deploy.status == "pending"
    assert deploy.proposal is not None and deploy.proposal["params"] == {"env": "prod"}
    assert deploy.events[-1]["event"] == "approval.deferred"  # the resume is not read into it
    assert all(e["event"] != "tool.proposed" for c in calls for e in c.events)


def test_a_call_whose_proposal_is_missing_is_not_replayed() -> None:
    lines = [{"event": "tool.injected", "call_id": "x", "ts": 1.0, "status": "ok"}]
    (call,) = CallReader().feed(lines)
    assert call.problem == NO_PROPOSAL and call.proposal is None and call.status == "ok"


def test_redacted_or_cut_params_are_never_guessed() -> None:
    line = {"event": "tool.proposed", "tool": "exec", "call_id": "x"}
    assert rebuilt({**line, "params": {"command": "[REDACTED]"}}) == (None, "params redacted")
    assert rebuilt({**line, "params": {}, "_truncated": True})[0] is None
    call, problem = rebuilt({**line, "params": {"command": "ls"}})
    assert problem is None and call is not None and call["name"] == "exec"
    assert json.dumps(call)  # a plain mapping Runtime.call takes
