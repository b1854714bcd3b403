"""The shared adapter scenarios (toolhooks.testing.scenarios), driven through a PydanticAI agent.

Each scenario runs with PydanticAI's own FunctionModel proposing the calls, through ``run_sync`` and
through ``await agent.run``; a paused approval ends the run with ``DeferredToolRequests`` and is
resumed by a second run carrying the human's ``DeferredToolResults``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.tools import DeferredToolRequests
from toolhooks import Runtime
from toolhooks.testing.scenarios import SCENARIOS, AgentRun, Answer, Scenario, ToolMessage, check
from toolhooks_pydantic_ai import ToolhooksCapability, answer_approvals

Reader = Callable[[list[ModelMessage]], tuple[ToolMessage, ...]]


class PydanticAIDriver:
    name = "pydantic-ai"

    def __init__(self, script: Callable[..., Any], read: Reader) -> None:
        self.script = script
        self.read = read

    def approver(self) -> Any:
        return lambda pending: "defer"

    def build(
        self, runtime: Runtime, tools: list[Callable[..., Any]], proposals: list[dict[str, Any]]
    ) -> tuple[Agent[None, str | DeferredToolRequests], Any]:
        script = self.script(proposals)
        agent = Agent(
            script.model,
            tools=tools,
            capabilities=[ToolhooksCapability(runtime)],
            output_type=[str, DeferredToolRequests],
        )
        return agent, script

    def run(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        agent, script = self.build(runtime, tools, proposals)
        result = agent.run_sync("go")
        while isinstance(result.output, DeferredToolRequests):
            result = agent.run_sync(
                message_history=result.all_messages(),
                deferred_tool_results=answer_approvals(result.output, answer),
            )
        assert result.output == "done"
        return AgentRun(messages=self.read(result.all_messages()), offered=tuple(script.offered))

    async def arun(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        agent, script = self.build(runtime, tools, proposals)
        result = await agent.run("go")
        while isinstance(result.output, DeferredToolRequests):
            result = await agent.run(
                message_history=result.all_messages(),
                deferred_tool_results=answer_approvals(result.output, answer),
            )
        assert result.output == "done"
        return AgentRun(messages=self.read(result.all_messages()), offered=tuple(script.offered))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.parametrize("is_async", [False, True], ids=["run_sync", "run"])
def test_scenario(
    scenario: Scenario,
    is_async: bool,
    tmp_path: Path,
    script: Callable[..., Any],
    read_messages: Reader,
) -> None:
    check(scenario, PydanticAIDriver(script, read_messages), workdir=tmp_path, is_async=is_async)
