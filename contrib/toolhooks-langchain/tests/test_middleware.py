"""ToolhooksMiddleware in a real create_agent loop: what the tool gets, what the model reads."""

from __future__ import annotations

import asyncio
import datetime
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.types import Command
from toolhooks import Runtime, ToolCall, ToolSpec, hookimpl
from toolhooks.testing import EventRecorder
from toolhooks_langchain import ToolhooksMiddleware
from toolhooks_langchain.testing import ScriptedChatModel


def run_agent(
    rt: Runtime,
    tools: list[Any],
    proposals: list[dict[str, Any]],
    *,
    is_async: bool = False,
    config: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[list[ToolMessage], ScriptedChatModel]:
    model = ScriptedChatModel(proposals=proposals)
    agent = create_agent(model, tools=tools, middleware=[ToolhooksMiddleware(rt, **options)])
    message = {"messages": [{"role": "user", "content": "go"}]}
    if is_async:
        state = asyncio.run(agent.ainvoke(message, config))
    else:
        state = agent.invoke(message, config)
    return [m for m in state["messages"] if isinstance(m, ToolMessage)], model


def runtime(*plugins: Any) -> Runtime:
    return Runtime(plugins=list(plugins), config={}, load_entrypoints=False)


class Recorder:
    """Remembers every call the before chain saw."""

    name = "recorder"

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        self.calls.append(call)


class Redact:
    name = "redact"

    @hookimpl
    def after_tool_call(self, result: Any) -> dict[str, Any] | None:
        if "sk-" in result.content:
            return {"content": result.content.replace("sk-123", "[REDACTED]")}
        return None


IS_ASYNC = pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])


# -- blocking ---------------------------------------------------------------------------------


class NoDeletes:
    name = "no_deletes"

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        if call.name == "delete":
            return {"block": True, "block_reason": "deleting is not allowed here"}
        return None


@IS_ASYNC
def test_a_blocked_call_is_an_error_message_with_the_reason_and_never_runs(is_async: bool) -> None:
    ran: list[str] = []

    def delete(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return "deleted"

    rt = runtime(NoDeletes())
    proposals = [{"name": "delete", "params": {"path": "a"}, "id": "call_del"}]
    (message,), _ = run_agent(rt, [delete], proposals, is_async=is_async)
    assert ran == []
    assert message.status == "error"
    assert message.content == "deleting is not allowed here"
    assert message.tool_call_id == "call_del"
    assert message.name == "delete"
    meta = message.response_metadata["toolhooks"]
    assert meta["status"] == "blocked"
    assert meta["blocked_by"] == "no_deletes"
    assert meta["reason"] == "deleting is not allowed here"
    assert meta["call_id"] == "call_del"


# -- what the tool returns --------------------------------------------------------------------


@IS_ASYNC
def test_a_result_no_hook_changed_is_the_tools_own_message(is_async: bool) -> None:
    @tool(response_format="content_and_artifact")
    def fetch(url: str) -> tuple[str, dict[str, Any]]:
        """Fetch a page."""
        return f"page {url}", {"bytes": 1234}

    (message,), _ = run_agent(
        runtime(Redact()), [fetch], [{"name": "fetch", "params": {"url": "u"}}], is_async=is_async
    )
    assert message.content == "page u"
    assert message.artifact == {"bytes": 1234}
    assert message.status == "success"
    assert "toolhooks" not in message.response_metadata


@IS_ASYNC
def test_after_hook_changes_replace_the_content_and_keep_the_artifact(is_async: bool) -> None:
    @tool(response_format="content_and_artifact")
    def secret(name: str) -> tuple[str, dict[str, Any]]:
        """Read a secret."""
        return f"{name}=sk-123", {"source": "vault"}

    (message,), _ = run_agent(
        runtime(Redact()),
        [secret],
        [{"name": "secret", "params": {"name": "K"}}],
        is_async=is_async,
    )
    assert message.content == "K=[REDACTED]"
    assert message.artifact == {"source": "vault"}
    assert message.status == "success"
    assert message.response_metadata["toolhooks"]["status"] == "ok"


@IS_ASYNC
def test_content_blocks_are_what_after_hooks_read(is_async: bool) -> None:
    @tool
    def blocks(name: str) -> list[dict[str, Any]]:
        """Return content blocks."""
        return [{"type": "text", "text": f"{name}=sk-123"}, {"type": "text", "text": " end"}]

    (message,), _ = run_agent(
        runtime(Redact()),
        [blocks],
        [{"name": "blocks", "params": {"name": "K"}}],
        is_async=is_async,
    )
    assert message.content == "K=[REDACTED] end"


@IS_ASYNC
def test_a_command_result_gets_the_after_hook_changes_in_its_message(is_async: bool) -> None:
    @tool
    def secret_command(name: str, runtime: ToolRuntime) -> Command[Any]:
        """Read a secret and say so through a Command."""
        reply = ToolMessage(content=f"{name}=sk-123", tool_call_id=runtime.tool_call_id)
        return Command(update={"messages": [reply]})

    (message,), _ = run_agent(
        runtime(Redact()),
        [secret_command],
        [{"name": "secret_command", "params": {"name": "K"}}],
        is_async=is_async,
    )
    assert message.content == "K=[REDACTED]"


@IS_ASYNC
def test_invalid_args_are_an_error_with_langchains_reason(is_async: bool) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    (message,), _ = run_agent(
        runtime(), [add], [{"name": "add", "params": {"a": 1}}], is_async=is_async
    )
    assert message.status == "error"
    assert "b" in message.content
    assert "Field required" in message.content
    assert message.response_metadata["toolhooks"]["status"] == "error"


# -- the call toolhooks sees ------------------------------------------------------------------


@IS_ASYNC
def test_ids_thread_sender_and_agent_reach_the_hooks(is_async: bool) -> None:
    def search(query: str) -> str:
        """Search."""
        return "nothing"

    recorder = Recorder()
    run_agent(
        runtime(recorder),
        [search],
        [{"name": "search", "params": {"query": "q"}, "id": "call_77"}],
        is_async=is_async,
        config={"configurable": {"thread_id": "thread-9"}},
        sender={"id": "u1", "roles": ["dev"]},
        agent_id="helper",
    )
    (call,) = recorder.calls
    assert call.id == "call_77"
    assert call.session_id == "thread-9"
    assert call.agent_id == "helper"
    assert call.sender is not None
    assert (call.sender.id, call.sender.roles) == ("u1", ("dev",))
    assert dict(call.params) == {"query": "q"}
    assert call.spec is not None
    assert call.spec.description == "Search."
    assert call.spec.parameters["properties"]["query"]["type"] == "string"


@dataclass
class Caller:
    user: str


class OnlyAdminsDeploy:
    name = "only_admins_deploy"

    @hookimpl
    def tool_visible(self, tool: ToolSpec, sender: Any) -> bool | None:
        if tool.name == "deploy":
            return sender is not None and "admin" in sender.roles
        return None


@IS_ASYNC
def test_the_sender_can_come_from_the_runs_context(is_async: bool) -> None:
    recorder = Recorder()
    rt = runtime(recorder, OnlyAdminsDeploy())
    people = {"ana": {"id": "ana", "roles": ["admin"]}, "bo": {"id": "bo"}}
    guard = ToolhooksMiddleware(rt, sender=lambda context: people[context.user])
    offered: dict[str, list[frozenset[str]]] = {}
    messages: dict[str, ToolMessage] = {}
    for user in ("ana", "bo"):
        model = ScriptedChatModel(proposals=[{"name": "deploy", "params": {"env": "prod"}}])
        agent = create_agent(model, [deploy, status], middleware=[guard], context_schema=Caller)
        start = {"messages": [{"role": "user", "content": "deploy"}]}
        if is_async:
            state = asyncio.run(agent.ainvoke(start, context=Caller(user)))
        else:
            state = agent.invoke(start, context=Caller(user))
        offered[user] = model.offered
        (messages[user],) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert offered == {
        "ana": [frozenset({"deploy", "status"})] * 2,
        "bo": [frozenset({"status"})] * 2,
    }
    assert messages["ana"].content == "deployed prod"
    assert messages["bo"].status == "error"
    assert "deploy" in messages["bo"].content
    assert [call.sender.id for call in recorder.calls if call.sender] == ["ana", "bo"]


def test_arguments_reach_the_hooks_as_json_values() -> None:
    def schedule(when: str, tags: list[str]) -> str:
        """Schedule a job."""
        return f"scheduled at {when} with {tags}"

    recorder = Recorder()
    when = datetime.datetime(2026, 12, 2, 22, 0, tzinfo=datetime.timezone.utc)
    proposal = {"name": "schedule", "params": {"when": when, "tags": ("a", "b")}}
    (message,), _ = run_agent(runtime(recorder), [schedule], [proposal])
    (call,) = recorder.calls
    assert call.params == {"when": "2026-12-02T22:00:00Z", "tags": ["a", "b"]}
    assert message.content == "scheduled at 2026-12-02T22:00:00Z with ['a', 'b']"


def test_a_tool_the_user_registered_keeps_its_tags() -> None:
    def search(query: str) -> str:
        """Search."""
        return "nothing"

    recorder = Recorder()
    rt = runtime(recorder)
    rt.add_tool(ToolSpec("search", "Search the web.", {"type": "object"}, frozenset({"read_only"})))
    run_agent(rt, [search], [{"name": "search", "params": {"query": "q"}}])
    (call,) = recorder.calls
    assert call.spec is not None
    assert call.spec.tags == frozenset({"read_only"})
    assert call.spec.description == "Search the web."


# -- hiding -----------------------------------------------------------------------------------


class InternsCannotDeploy:
    name = "interns_cannot_deploy"

    @hookimpl
    def tool_visible(self, tool: ToolSpec, agent_id: str | None) -> bool | None:
        return False if tool.name == "deploy" and agent_id == "intern" else None


def deploy(env: str) -> str:
    """Deploy."""
    return f"deployed {env}"


def status() -> str:
    """Show the status."""
    return "green"


@IS_ASYNC
def test_the_model_is_not_offered_what_the_runtime_hides_for_its_agent(is_async: bool) -> None:
    rt = runtime(InternsCannotDeploy())
    tools = [deploy, status]
    proposals = [{"name": "status", "params": {}}]
    _, intern = run_agent(rt, tools, proposals, is_async=is_async, agent_id="intern")
    _, lead = run_agent(rt, tools, proposals, is_async=is_async, agent_id="lead")
    assert intern.offered == [frozenset({"status"})] * 2
    assert lead.offered == [frozenset({"deploy", "status"})] * 2


class NoWebSearch:
    name = "no_web_search"

    @hookimpl
    def tool_visible(self, tool: ToolSpec) -> bool | None:
        return False if tool.name == "web_search" else None


def test_a_provider_tool_is_hidden_by_its_name() -> None:
    builtin = {"type": "web_search_preview", "name": "web_search"}
    _, hidden = run_agent(runtime(NoWebSearch()), [status, builtin], [])
    _, shown = run_agent(runtime(), [status, builtin], [])
    assert hidden.offered == [frozenset({"status"})]
    assert shown.offered == [frozenset({"status", "web_search"})]


def test_hide_tools_false_offers_every_tool() -> None:
    _, model = run_agent(
        runtime(InternsCannotDeploy()),
        [deploy, status],
        [],
        agent_id="intern",
        hide_tools=False,
    )
    assert model.offered == [frozenset({"deploy", "status"})]


# -- the audit trail --------------------------------------------------------------------------


@IS_ASYNC
def test_each_call_is_one_proposed_and_one_injected_event(is_async: bool) -> None:
    def search(query: str) -> str:
        """Search."""
        return "nothing"

    events = EventRecorder()
    proposals = [
        {"name": "search", "params": {"query": "a"}, "id": "call_a"},
        {"name": "search", "params": {"query": "b"}, "id": "call_b"},
    ]
    run_agent(runtime(events), [search], proposals, is_async=is_async)
    for call_id in ("call_a", "call_b"):
        names = [e.event for e in events.events if e.call_id == call_id]
        assert names[0] == "tool.proposed"
        assert names[-1] == "tool.injected"
        assert names.count("tool.proposed") == names.count("tool.injected") == 1


@IS_ASYNC
def test_the_users_message_is_the_threads_trusted_input(is_async: bool) -> None:
    def pay(iban: str) -> str:
        """Pay."""
        return "paid"

    rt = runtime()
    model = ScriptedChatModel(proposals=[])
    agent = create_agent(model, tools=[pay], middleware=[ToolhooksMiddleware(rt)])
    message = {"messages": [{"role": "user", "content": "Pay GB29NWBK60161331926819 please"}]}
    config = {"configurable": {"thread_id": "thread-3"}}
    if is_async:
        asyncio.run(agent.ainvoke(message, config))
    else:
        agent.invoke(message, config)
    rt.label_store.record("thread-3", ["outside"], {"gb29nwbk60161331926819", "de8937040044"})
    assert rt.label_store.provenance("thread-3", {"gb29nwbk60161331926819"}, ["outside"]) is None
    assert rt.label_store.provenance("thread-3", {"de8937040044"}, ["outside"]) is not None
    rt.label_store.record("other", ["outside"], {"gb29nwbk60161331926819"})
    assert rt.label_store.provenance("other", {"gb29nwbk60161331926819"}, ["outside"]) is not None
