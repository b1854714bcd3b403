"""The shared adapter scenarios, through a real LangChain ``create_agent`` with a scripted model,
sync and async."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage as LangChainToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from toolhooks import Runtime
from toolhooks.testing.scenarios import (
    SCENARIOS,
    AgentRun,
    Answer,
    Scenario,
    ToolMessage,
    check,
)
from toolhooks_langchain import InterruptApprover, ToolhooksMiddleware
from toolhooks_langchain.testing import ScriptedChatModel

MAX_PAUSES = 20  # a run that pauses more often than this is looping, not waiting for a human


class LangChainDriver:
    name = "langchain"

    def approver(self) -> Any:
        return InterruptApprover()

    def _agent(
        self, runtime: Runtime, tools: list[Callable[..., Any]], proposals: list[dict[str, Any]]
    ) -> tuple[Any, ScriptedChatModel, dict[str, Any]]:
        model = ScriptedChatModel(proposals=proposals)
        agent = create_agent(
            model,
            tools=tools,
            middleware=[ToolhooksMiddleware(runtime)],
            checkpointer=InMemorySaver(),
        )
        config = {"configurable": {"thread_id": f"thread-{uuid.uuid4().hex[:8]}"}}
        return agent, model, config

    def run(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        agent, model, config = self._agent(runtime, tools, proposals)
        state = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config)
        for _ in range(MAX_PAUSES):
            interrupts = state.get("__interrupt__") or ()
            if not interrupts:
                return _transcript(state, model)
            resume = {item.id: answer(item.value) for item in interrupts}
            state = agent.invoke(Command(resume=resume), config)
        raise AssertionError(f"still paused after {MAX_PAUSES} answers")

    async def arun(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        agent, model, config = self._agent(runtime, tools, proposals)
        state = await agent.ainvoke({"messages": [{"role": "user", "content": "go"}]}, config)
        for _ in range(MAX_PAUSES):
            interrupts = state.get("__interrupt__") or ()
            if not interrupts:
                return _transcript(state, model)
            resume = {item.id: answer(item.value) for item in interrupts}
            state = await agent.ainvoke(Command(resume=resume), config)
        raise AssertionError(f"still paused after {MAX_PAUSES} answers")


def _transcript(state: dict[str, Any], model: ScriptedChatModel) -> AgentRun:
    messages = tuple(
        ToolMessage(
            tool=message.name or "",
            content=message.text,
            is_error=message.status == "error",
        )
        for message in state["messages"]
        if isinstance(message, LangChainToolMessage)
    )
    return AgentRun(messages=messages, offered=tuple(model.offered))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_scenario(scenario: Scenario, is_async: bool, tmp_path: Path) -> None:
    check(scenario, LangChainDriver(), workdir=tmp_path, is_async=is_async)
