"""The shared adapter scenarios (toolhooks.testing.scenarios), through a real SDK agent loop.

The model is the SDK's own ``ScriptedModel``: one scripted tool call per turn, then a final
text. What the model saw is read back from the inputs the SDK gave that model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.items import ToolCallOutputItem
from agents.result import RunResult
from agents.testing import ScriptedModel, assistant_message, function_call
from toolhooks import Runtime
from toolhooks.testing.scenarios import (
    SCENARIOS,
    AgentRun,
    Answer,
    Scenario,
    ToolMessage,
    check,
)
from toolhooks_openai_agents import aresolve, defer_to_sdk, guard_agent, guard_run_config, resolve


class OpenAIAgentsDriver:
    name = "openai-agents"

    def approver(self) -> Callable[..., str]:
        return defer_to_sdk

    def run(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        agent, model, config = self._build(runtime, tools, proposals)
        with _default_loop():
            results = [Runner.run_sync(agent, "go", run_config=config)]
            while results[-1].interruptions:
                state = results[-1].to_state()
                for item in results[-1].interruptions:
                    reply = answer(_view(runtime, item.raw_item.call_id))
                    resolve(runtime, state, item, reply["decision"], params=reply.get("params"))
                results.append(Runner.run_sync(agent, state, run_config=config))
        return _transcript(model, results)

    async def arun(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        agent, model, config = self._build(runtime, tools, proposals)
        results = [await Runner.run(agent, "go", run_config=config)]
        while results[-1].interruptions:
            state = results[-1].to_state()
            for item in results[-1].interruptions:
                reply = answer(_view(runtime, item.raw_item.call_id))
                await aresolve(runtime, state, item, reply["decision"], params=reply.get("params"))
            results.append(await Runner.run(agent, state, run_config=config))
        return _transcript(model, results)

    @staticmethod
    def _build(
        runtime: Runtime, tools: list[Callable[..., Any]], proposals: list[dict[str, Any]]
    ) -> tuple[Agent[Any], ScriptedModel, RunConfig]:
        steps: list[Any] = [
            [function_call(p["name"], p["params"], call_id=f"call_{i}")]
            for i, p in enumerate(proposals)
        ]
        model = ScriptedModel([*steps, [assistant_message("done")]])
        agent = Agent(name="scenario", model=model, tools=[function_tool(t) for t in tools])
        config = guard_run_config(runtime, RunConfig(tracing_disabled=True))
        return guard_agent(runtime, agent), model, config


@contextmanager
def _default_loop() -> Iterator[None]:
    """``Runner.run_sync`` runs on the thread's default loop and leaves it open on purpose; the
    test closes it, or the leaked loop is a ResourceWarning (an error in this suite)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _view(runtime: Runtime, call_id: str) -> dict[str, Any]:
    """The pending approval as the kit's ``approval_view`` shows it, read from the store."""
    row = runtime.approvals.for_call(call_id)
    assert row is not None and row.state == "pending", f"no pending approval for {call_id}"
    return {
        "approval_id": row.id,
        "tool": row.tool,
        "params": dict(row.params),
        "digest": row.digest,
        "title": row.title,
        "description": row.description,
        "allowed_decisions": list(row.allowed_decisions),
    }


def _transcript(model: ScriptedModel, results: list[RunResult]) -> AgentRun:
    """Every function_call_output the model was given (from its last input), and the tools it
    was offered at each turn. ``is_error``: the SDK's output item carries toolhooks' status;
    an output with none was written by the SDK itself (a rejection, a tool it could not find)."""
    statuses: dict[str, bool] = {}
    for result in results:
        for item in result.new_items:
            if isinstance(item, ToolCallOutputItem) and item.call_id is not None:
                data = (item.custom_data or {}).get("toolhooks")
                statuses[item.call_id] = data is None or data["status"] != "ok"
    calls = model.calls
    names: dict[str, str] = {}
    messages: list[ToolMessage] = []
    for entry in calls[-1].input if isinstance(calls[-1].input, list) else []:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "function_call":
            names[entry["call_id"]] = entry["name"]
        elif entry.get("type") == "function_call_output":
            call_id = entry["call_id"]
            messages.append(
                ToolMessage(
                    tool=names[call_id], content=str(entry["output"]), is_error=statuses[call_id]
                )
            )
    offered = tuple(frozenset(tool.name for tool in call.tools) for call in calls)
    return AgentRun(messages=tuple(messages), offered=offered)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_scenario_sync(scenario: Scenario, tmp_path: Path) -> None:
    check(scenario, OpenAIAgentsDriver(), workdir=tmp_path)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_scenario_async(scenario: Scenario, tmp_path: Path) -> None:
    check(scenario, OpenAIAgentsDriver(), workdir=tmp_path, is_async=True)
