"""A scripted PydanticAI model: FunctionModel proposing one tool call per turn, then answering."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from toolhooks.testing.scenarios import ToolMessage


class Script:
    """Proposes ``proposals`` one per model turn (ids call_0, call_1, ...), then says "done".

    It counts the model responses already in the history, so a run resumed from a pause carries
    on where the paused one stopped. ``offered`` records the tools shown at every turn.
    """

    def __init__(self, proposals: list[dict[str, Any]]) -> None:
        self.proposals = proposals
        self.offered: list[frozenset[str]] = []
        self.model = FunctionModel(self.respond, stream_function=self.stream)

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append(frozenset(tool.name for tool in info.function_tools))
        turn = sum(isinstance(message, ModelResponse) for message in messages)
        if turn < len(self.proposals):
            proposal = self.proposals[turn]
            part = ToolCallPart(proposal["name"], dict(proposal["params"]), f"call_{turn}")
            return ModelResponse(parts=[part])
        return ModelResponse(parts=[TextPart("done")])

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        """The same script, streamed (for ``run_stream_events``)."""
        part = self.respond(messages, info).parts[0]
        if isinstance(part, ToolCallPart):
            delta = DeltaToolCall(
                part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id
            )
            yield {0: delta}
        else:
            assert isinstance(part, TextPart)
            yield part.content


def tool_messages(messages: list[ModelMessage]) -> tuple[ToolMessage, ...]:
    """Every tool result the model was sent, in order, as the scenario kit compares them."""
    return tuple(
        ToolMessage(
            tool=part.tool_name,
            content=part.model_response_str(),
            is_error=part.outcome != "success",
        )
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    )


@pytest.fixture
def script() -> Callable[[list[dict[str, Any]]], Script]:
    return Script


@pytest.fixture
def read_messages() -> Callable[[list[ModelMessage]], tuple[ToolMessage, ...]]:
    return tool_messages


@pytest.fixture(autouse=True)
def _close_the_run_sync_loop() -> Iterator[None]:
    """``run_sync`` leaves its thread's event loop open for the next call; close it after a test."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)
