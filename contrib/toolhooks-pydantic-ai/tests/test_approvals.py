"""Approvals in PydanticAI's terms: what the pause carries, and how answers map back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import Agent, AgentRunResultEvent
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied
from toolhooks import Runtime, ToolCall, ToolSpec, hookimpl
from toolhooks.testing import EventRecorder
from toolhooks.testing.scenarios import ToolMessage
from toolhooks_pydantic_ai import ToolhooksCapability, answer_approvals, approval_result

ScriptFactory = Callable[[list[dict[str, Any]]], Any]
Reader = Callable[[list[Any]], tuple[ToolMessage, ...]]


class AskBeforeDeploys:
    name = "ask_before_deploys"

    @hookimpl(tools=["deploy"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {
            "params": {"env": str(call.params["env"]).lower()},
            "require_approval": {
                "title": "Deploy?",
                "description": f"deploy to {call.params['env']}",
                "allowed_decisions": ["allow-once", "allow-always", "deny"],
            },
        }


def deploy_agent(
    script: ScriptFactory, proposals: list[dict[str, Any]], capability: ToolhooksCapability
) -> tuple[Agent[None, str | DeferredToolRequests], list[str]]:
    ran: list[str] = []
    agent = Agent(
        script(proposals).model,
        capabilities=[capability],
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain
    def deploy(env: str) -> str:
        """Deploy the service."""
        ran.append(env)
        return f"deployed to {env}"

    return agent, ran


# -- answers -> PydanticAI results ------------------------------------------------------------


def test_each_decision_maps_to_pydantic_ais_own_result() -> None:
    assert approval_result("allow-once") == (ToolApproved(), None)
    assert approval_result({"decision": "edit", "params": {"env": "qa"}}) == (
        ToolApproved(override_args={"env": "qa"}),
        None,
    )
    assert approval_result({"decision": "deny"}) == (ToolDenied(), None)
    assert approval_result({"decision": "deny", "reason": "not on a Friday"}) == (
        ToolDenied("not on a Friday"),
        None,
    )
    assert approval_result({"decision": "allow-always", "by": "ops@example.com"}) == (
        ToolApproved(),
        {"toolhooks": {"by": "ops@example.com", "decision": "allow-always"}},
    )


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"decision": "edit"}, "an 'edit' answer needs 'params'"),
        ({"decision": "defer"}, "unknown approval decision 'defer'"),
        ("yes", "unknown approval decision 'yes'"),
    ],
)
def test_an_answer_pydantic_ai_cannot_carry_is_refused_naming_it(answer: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        approval_result(answer)


def test_answer_approvals_leaves_deferrals_toolhooks_did_not_make_to_the_caller() -> None:
    requests = DeferredToolRequests(
        approvals=[ToolCallPart("a", {}, "call_a"), ToolCallPart("b", {}, "call_b")],
        metadata={"call_a": {"toolhooks": {"params": {"x": 1}}}},
    )
    seen: list[dict[str, Any]] = []

    def human(view: dict[str, Any]) -> dict[str, Any]:
        seen.append(view)
        return {"decision": "deny", "reason": "no"}

    results = answer_approvals(requests, human)
    assert seen == [{"params": {"x": 1}}]
    assert results == DeferredToolResults(approvals={"call_a": ToolDenied("no")})


# -- the pause ------------------------------------------------------------------------------


def test_the_pause_shows_the_human_what_toolhooks_froze(script: ScriptFactory) -> None:
    rt = Runtime(
        plugins=[AskBeforeDeploys()], config={}, approver=lambda p: "defer", load_entrypoints=False
    )
    agent, ran = deploy_agent(
        script, [{"name": "deploy", "params": {"env": "PROD"}}], ToolhooksCapability(rt)
    )
    result = agent.run_sync("ship it")
    stored = rt.approvals.for_call("call_0")
    rt.close()
    assert ran == []
    assert isinstance(result.output, DeferredToolRequests)
    assert [part.tool_call_id for part in result.output.approvals] == ["call_0"]
    view = result.output.metadata["call_0"]["toolhooks"]
    assert stored is not None
    assert view["approval_id"] == stored.id
    assert view["short_id"] == stored.short_id
    assert view["digest"] == stored.digest
    assert (view["tool"], view["params"], view["proposed_params"]) == (
        "deploy",
        {"env": "prod"},
        {"env": "PROD"},
    )
    assert view["rewritten_by"] == {"env": "ask_before_deploys"}
    assert (view["title"], view["description"], view["plugin"]) == (
        "Deploy?",
        "deploy to PROD",
        "ask_before_deploys",
    )
    assert view["allowed_decisions"] == ["allow-once", "allow-always", "deny"]
    # The tool's JSON Schema, for an editor: the capability registered the tool with the runtime.
    assert view["schema"]["properties"]["env"]["type"] == "string"
    assert view["schema"]["required"] == ["env"]


def test_allow_always_is_remembered_for_the_next_call(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = EventRecorder()
    rt = Runtime(
        plugins=[AskBeforeDeploys(), recorder],
        config={},
        approver=lambda p: "defer",
        load_entrypoints=False,
    )
    proposals = [{"name": "deploy", "params": {"env": "qa"}}] * 2
    agent, ran = deploy_agent(script, proposals, ToolhooksCapability(rt, sender="alice"))
    result = agent.run_sync("ship it twice")
    assert isinstance(result.output, DeferredToolRequests)
    answers = answer_approvals(result.output, lambda view: {"decision": "allow-always"})
    result = agent.run_sync(message_history=result.all_messages(), deferred_tool_results=answers)
    rt.close()
    assert result.output == "done"  # the second call did not pause
    assert ran == ["qa", "qa"]
    assert [m.content for m in read_messages(result.all_messages())] == ["deployed to qa"] * 2
    resolved = [event.data["decision"] for event in recorder.of("approval.resolved")]
    assert resolved == ["allow-always", "allow-always"]


def test_a_denial_with_a_reason_is_recorded_and_answered_once(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = EventRecorder()
    rt = Runtime(
        plugins=[AskBeforeDeploys(), recorder],
        config={},
        approver=lambda p: "defer",
        load_entrypoints=False,
    )
    agent, ran = deploy_agent(
        script, [{"name": "deploy", "params": {"env": "prod"}}], ToolhooksCapability(rt)
    )
    result = agent.run_sync("ship it")
    assert isinstance(result.output, DeferredToolRequests)
    answers = answer_approvals(result.output, lambda v: {"decision": "deny", "reason": "freeze"})
    result = agent.run_sync(message_history=result.all_messages(), deferred_tool_results=answers)
    rt.close()
    assert ran == []
    [message] = read_messages(result.all_messages())
    assert message.is_error is True
    assert "freeze" in message.content
    assert recorder.names().count("tool.injected") == 1
    assert recorder.of("approval.resolved")[-1].data["decision"] == "deny"


def test_a_fresh_runtime_on_the_same_approval_store_resumes_the_pause(
    script: ScriptFactory, read_messages: Reader
) -> None:
    """The pause is taken by one runtime and resumed by another one sharing only its approval
    store, with a new capability and a new agent, as a restarted worker would: the capability
    finds the approval by tool call id in the store, not in memory of its own."""
    proposals = [{"name": "deploy", "params": {"env": "PROD"}}]
    first = Runtime(
        plugins=[AskBeforeDeploys()], config={}, approver=lambda p: "defer", load_entrypoints=False
    )
    agent, ran = deploy_agent(script, proposals, ToolhooksCapability(first))
    paused = agent.run_sync("ship it")
    assert isinstance(paused.output, DeferredToolRequests)

    recorder = EventRecorder()
    second = Runtime(
        plugins=[AskBeforeDeploys(), recorder],
        config={},
        approver=lambda p: "defer",
        approval_store=first.approvals,
        load_entrypoints=False,
    )
    agent, ran = deploy_agent(script, proposals, ToolhooksCapability(second))
    answers = answer_approvals(paused.output, lambda view: {"decision": "allow-once"})
    result = agent.run_sync(message_history=paused.all_messages(), deferred_tool_results=answers)
    stored = first.approvals.get(paused.output.metadata["call_0"]["toolhooks"]["approval_id"])
    second.close()
    first.close()
    assert result.output == "done"
    assert ran == ["prod"]  # the frozen params, not the model's "PROD"
    assert [m.content for m in read_messages(result.all_messages())] == ["deployed to prod"]
    assert "tool.proposed" not in recorder.names()  # the chain did not run a second time
    assert recorder.names().count("tool.injected") == 1
    assert stored is not None
    assert stored.state == "consumed"


def test_an_edit_the_request_does_not_allow_runs_nothing_and_says_so(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = EventRecorder()
    rt = Runtime(
        plugins=[AskBeforeDeploys(), recorder],
        config={},
        approver=lambda p: "defer",
        load_entrypoints=False,
    )
    agent, ran = deploy_agent(
        script, [{"name": "deploy", "params": {"env": "prod"}}], ToolhooksCapability(rt)
    )
    result = agent.run_sync("ship it")
    assert isinstance(result.output, DeferredToolRequests)
    answers = answer_approvals(
        result.output, lambda v: {"decision": "edit", "params": {"env": "qa"}}
    )
    result = agent.run_sync(message_history=result.all_messages(), deferred_tool_results=answers)
    rt.close()
    assert ran == []
    [message] = read_messages(result.all_messages())
    assert message.is_error is True
    assert "decision 'edit' is not allowed" in message.content
    assert recorder.names().count("tool.injected") == 1
    assert recorder.names().count("tool.proposed") == 1


def test_a_streamed_run_pauses_and_resumes_the_same_way(
    script: ScriptFactory, read_messages: Reader
) -> None:
    """``run_stream_events`` goes through the same hooks: the pause, a denial, a hidden tool."""

    class HideRollbacks:
        name = "hide_rollbacks"

        @hookimpl
        def tool_visible(self, tool: ToolSpec) -> bool | None:
            return False if tool.name == "rollback" else None

    recorder = EventRecorder()
    rt = Runtime(
        plugins=[AskBeforeDeploys(), HideRollbacks(), recorder],
        config={},
        approver=lambda p: "defer",
        load_entrypoints=False,
    )
    proposals = [
        {"name": "deploy", "params": {"env": "prod"}},
        {"name": "rollback", "params": {}},
    ]
    agent, ran = deploy_agent(script, proposals, ToolhooksCapability(rt))

    @agent.tool_plain
    def rollback() -> str:
        """Roll the last deploy back."""
        ran.append("rollback")
        return "rolled back"

    async def stream(**kwargs: Any) -> Any:
        async with agent.run_stream_events(**kwargs) as events:
            async for event in events:
                if isinstance(event, AgentRunResultEvent):
                    return event.result
        raise AssertionError("the stream ended without a result")

    result = asyncio.run(stream(user_prompt="ship it"))
    assert isinstance(result.output, DeferredToolRequests)
    answers = answer_approvals(result.output, lambda v: {"decision": "deny"})
    result = asyncio.run(
        stream(message_history=result.all_messages(), deferred_tool_results=answers)
    )
    rt.close()
    assert result.output == "done"
    assert ran == []
    messages = read_messages(result.all_messages())
    assert [(m.tool, m.is_error) for m in messages] == [("deploy", True), ("rollback", True)]
    assert "Denied by user" in messages[0].content
    assert "hidden by plugin hide_rollbacks" in messages[1].content
    assert recorder.names().count("tool.injected") == 2
