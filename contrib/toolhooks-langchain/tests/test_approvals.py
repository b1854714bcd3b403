"""Approvals across a LangGraph pause: InterruptApprover, interrupt() and Command(resume=...)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, interrupt
from toolhooks import Runtime, ToolCall, hookimpl
from toolhooks.testing import EventRecorder
from toolhooks_langchain import InterruptApprover, ToolhooksMiddleware
from toolhooks_langchain.testing import ScriptedChatModel

IS_ASYNC = pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])


class Workspace:
    """Rewrites relative paths into /workspace and counts how often the chain ran."""

    name = "workspace"

    def __init__(self) -> None:
        self.seen = 0

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        self.seen += 1
        path = call.params["path"]
        return None if path.startswith("/") else {"params": {"path": f"/workspace/{path}"}}


class AskFirst:
    name = "ask_first"

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {
            "require_approval": {
                "title": "Write a file?",
                "description": f"write {call.params['path']}",
                "allowed_decisions": ["allow-once", "deny", "edit"],
            }
        }


class Harness:
    """One agent with a checkpointer, run sync or async, paused and resumed by hand."""

    def __init__(self, *, is_async: bool, proposals: list[dict[str, Any]] | None = None) -> None:
        self.ran: list[dict[str, Any]] = []
        self.workspace = Workspace()
        self.events = EventRecorder()
        self.rt = Runtime(
            plugins=[self.workspace, AskFirst(), self.events],
            config={},
            approver=InterruptApprover(),
            load_entrypoints=False,
        )

        def write_file(path: str, content: str) -> str:
            """Write a text file."""
            self.ran.append({"path": path, "content": content})
            return f"wrote {len(content)} chars to {path}"

        call = {"name": "write_file", "params": {"path": "notes.txt", "content": "hi"}}
        self.model = ScriptedChatModel(proposals=proposals or [{**call, "id": "call_w"}])
        self.agent = create_agent(
            self.model,
            tools=[write_file],
            middleware=[ToolhooksMiddleware(self.rt)],
            checkpointer=InMemorySaver(),
        )
        self.config = {"configurable": {"thread_id": f"t-{uuid.uuid4().hex[:8]}"}}
        self.is_async = is_async

    def invoke(self, value: Any) -> dict[str, Any]:
        if self.is_async:
            return asyncio.run(self.agent.ainvoke(value, self.config))  # type: ignore[no-any-return]
        return self.agent.invoke(value, self.config)  # type: ignore[no-any-return]

    def start(self) -> dict[str, Any]:
        return self.invoke({"messages": [{"role": "user", "content": "write a note"}]})

    def resume(self, value: Any) -> dict[str, Any]:
        return self.invoke(Command(resume=value))

    def close(self) -> None:
        self.rt.close()


def pauses(state: dict[str, Any]) -> list[Any]:
    return list(state.get("__interrupt__") or ())


def tool_messages(state: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


def names_for(events: EventRecorder, call_id: str) -> list[str]:
    return [e.event for e in events.events if e.call_id == call_id]


@IS_ASYNC
def test_the_interrupt_carries_the_approval_as_plain_values(is_async: bool) -> None:
    h = Harness(is_async=is_async)
    (pause,) = pauses(h.start())
    (row,) = h.rt.approvals.list()
    assert pause.value == {
        "type": "toolhooks.approval",
        "approval_id": row.id,
        "short_id": row.short_id,
        "tool": "write_file",
        "call_id": "call_w",
        "params": {"path": "/workspace/notes.txt", "content": "hi"},
        "proposed_params": {"path": "notes.txt", "content": "hi"},
        "rewritten_by": {"path": "workspace"},
        "digest": row.digest,
        "title": "Write a file?",
        "description": "write /workspace/notes.txt",
        "severity": "warning",
        "allowed_decisions": ["allow-once", "deny", "edit"],
        "expires_at": row.expires_at,
        "plugin": "ask_first",
        "schema": row.schema,
    }
    assert row.schema is not None
    assert row.schema["properties"]["path"]["type"] == "string"
    assert h.ran == []
    assert "tool.injected" not in names_for(h.events, "call_w")
    h.close()


@IS_ASYNC
def test_resuming_reruns_the_step_but_not_the_chain(is_async: bool) -> None:
    h = Harness(is_async=is_async)
    h.start()
    state = h.resume({"decision": "allow-once", "by": "alice"})
    assert pauses(state) == []
    assert h.ran == [{"path": "/workspace/notes.txt", "content": "hi"}]
    assert h.workspace.seen == 1
    (message,) = tool_messages(state)
    assert message.content == "wrote 2 chars to /workspace/notes.txt"
    assert message.status == "success"
    names = names_for(h.events, "call_w")
    assert names.count("tool.proposed") == 1
    assert names.count("tool.injected") == 1
    assert names[-1] == "tool.injected"
    (resolved,) = h.events.of("approval.resolved")
    assert resolved.data["by"] == "alice"
    h.close()


@IS_ASYNC
def test_a_bare_decision_string_resumes_too(is_async: bool) -> None:
    h = Harness(is_async=is_async)
    h.start()
    state = h.resume("deny")
    (message,) = tool_messages(state)
    assert h.ran == []
    assert message.status == "error"
    assert message.content == "Denied by user"
    assert message.response_metadata["toolhooks"]["status"] == "denied"
    h.close()


@IS_ASYNC
def test_an_unreadable_answer_is_a_deny_that_says_why(is_async: bool) -> None:
    h = Harness(is_async=is_async)
    h.start()
    state = h.resume({"decision": ["allow-once"]})
    (message,) = tool_messages(state)
    assert h.ran == []
    assert message.status == "error"
    assert message.content == (
        "Denied by user: Unreadable approval answer: {'decision': ['allow-once']}"
    )
    h.close()


@IS_ASYNC
def test_a_decision_the_request_does_not_allow_is_a_deny(is_async: bool) -> None:
    h = Harness(is_async=is_async)
    h.start()
    state = h.resume({"decision": "allow-always"})
    (message,) = tool_messages(state)
    assert h.ran == []
    assert message.content == "Denied by user (decision 'allow-always' is not allowed)"
    h.close()


@IS_ASYNC
def test_an_edit_the_hooks_change_again_pauses_a_second_time(is_async: bool) -> None:
    """The edited relative path is rewritten again by the hook, so what would run is not what
    the editor submitted: a second approval, a second interrupt in the same step. LangGraph
    replays the first interrupt's answer on the re-run; it must not be applied to the second."""
    h = Harness(is_async=is_async)
    h.start()
    state = h.resume({"decision": "edit", "params": {"path": "draft.txt", "content": "hi"}})
    (pause,) = pauses(state)
    assert pause.value["params"] == {"path": "/workspace/draft.txt", "content": "hi"}
    assert h.ran == []
    first, second = sorted(h.rt.approvals.list(), key=lambda row: row.created_at)
    assert (first.state, second.state) == ("consumed", "pending")
    assert pause.value["approval_id"] == second.id

    state = h.resume({"decision": "allow-once"})
    assert pauses(state) == []
    assert h.ran == [{"path": "/workspace/draft.txt", "content": "hi"}]
    (message,) = tool_messages(state)
    assert message.content == "wrote 2 chars to /workspace/draft.txt"
    rows = sorted(h.rt.approvals.list(), key=lambda row: row.created_at)
    assert [(row.id, row.state) for row in rows] == [
        (first.id, "consumed"),
        (second.id, "consumed"),
    ]
    assert [e.data["decision"] for e in h.events.of("approval.resolved")] == ["edit", "allow-once"]
    names = names_for(h.events, "call_w")
    assert names.count("tool.proposed") == 1
    assert names.count("tool.injected") == 1
    h.close()


@IS_ASYNC
def test_defer_as_the_answer_keeps_the_graph_paused(is_async: bool) -> None:
    h = Harness(is_async=is_async)
    h.start()
    (pause,) = pauses(h.resume("defer"))
    (row,) = h.rt.approvals.list()
    assert pause.value["approval_id"] == row.id
    assert row.state == "pending"
    state = h.resume({"decision": "allow-once"})
    assert h.ran == [{"path": "/workspace/notes.txt", "content": "hi"}]
    assert tool_messages(state)[0].content == "wrote 2 chars to /workspace/notes.txt"
    h.close()


@IS_ASYNC
def test_a_decision_recorded_elsewhere_finishes_when_the_answer_has_none(is_async: bool) -> None:
    h = Harness(is_async=is_async)
    h.start()
    (row,) = h.rt.approvals.list()
    (pause,) = pauses(h.resume({"decision": None}))  # nobody decided yet: still paused
    assert pause.value["approval_id"] == row.id
    assert h.ran == []
    assert h.rt.approvals.decide(row.id, "allow-once", by="desk") is not None
    state = h.resume({"decision": None})
    assert pauses(state) == []
    assert h.ran == [{"path": "/workspace/notes.txt", "content": "hi"}]
    assert h.rt.approvals.get(row.id).state == "consumed"  # type: ignore[union-attr]
    (resolved,) = h.events.of("approval.resolved")
    assert resolved.data["by"] == "desk"
    h.close()


@IS_ASYNC
def test_two_calls_in_one_conversation_each_pause_once(is_async: bool) -> None:
    call = {"name": "write_file", "params": {"path": "a.txt", "content": "1"}}
    other = {"name": "write_file", "params": {"path": "b.txt", "content": "22"}}
    h = Harness(is_async=is_async, proposals=[call, other])
    (first,) = pauses(h.start())
    assert first.value["params"]["path"] == "/workspace/a.txt"
    (second,) = pauses(h.resume("allow-once"))
    assert second.value["params"]["path"] == "/workspace/b.txt"
    state = h.resume("deny")
    assert pauses(state) == []
    assert h.ran == [{"path": "/workspace/a.txt", "content": "1"}]
    assert [m.status for m in tool_messages(state)] == ["success", "error"]
    h.close()


@IS_ASYNC
def test_parallel_calls_pause_together_and_resume_by_interrupt_id(is_async: bool) -> None:
    calls = [
        {"name": "write_file", "params": {"path": "a.txt", "content": "1"}, "id": "call_a"},
        {"name": "write_file", "params": {"path": "b.txt", "content": "22"}, "id": "call_b"},
    ]
    h = Harness(is_async=is_async, proposals=[calls])
    found = pauses(h.start())
    by_call = {pause.value["call_id"]: pause for pause in found}
    assert sorted(by_call) == ["call_a", "call_b"]
    state = h.resume(
        {
            by_call["call_a"].id: {"decision": "deny", "reason": "not now"},
            by_call["call_b"].id: {"decision": "allow-once"},
        }
    )
    assert pauses(state) == []
    assert h.ran == [{"path": "/workspace/b.txt", "content": "22"}]
    messages = {m.tool_call_id: m for m in tool_messages(state)}
    assert messages["call_a"].content == "Denied by user: not now"
    assert messages["call_a"].status == "error"
    assert messages["call_b"].content == "wrote 2 chars to /workspace/b.txt"
    for call_id in ("call_a", "call_b"):
        names = names_for(h.events, call_id)
        assert names.count("tool.proposed") == names.count("tool.injected") == 1
    h.close()


# -- a tool's own interrupt -------------------------------------------------------------------


@IS_ASYNC
def test_a_tool_that_interrupts_pauses_the_graph_not_the_pipeline(is_async: bool) -> None:
    def confirm(question: str) -> str:
        """Ask the user."""
        answer = interrupt({"question": question})
        return f"user said {answer}"

    rt = Runtime(config={}, load_entrypoints=False)
    agent = create_agent(
        ScriptedChatModel(proposals=[{"name": "confirm", "params": {"question": "ok?"}}]),
        tools=[confirm],
        middleware=[ToolhooksMiddleware(rt)],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "t-confirm"}}

    def invoke(value: Any) -> dict[str, Any]:
        if is_async:
            return asyncio.run(agent.ainvoke(value, config))  # type: ignore[no-any-return]
        return agent.invoke(value, config)  # type: ignore[no-any-return]

    (pause,) = pauses(invoke({"messages": [{"role": "user", "content": "ask"}]}))
    assert pause.value == {"question": "ok?"}
    state = invoke(Command(resume="yes"))
    (message,) = tool_messages(state)
    assert message.content == "user said yes"
    assert message.status == "success"
    rt.close()
