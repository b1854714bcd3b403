"""A scripted chat model for tests, examples and benchmarks: no network, no API key.

``ScriptedChatModel(proposals=[{"name": "search", "params": {"query": "x"}}, ...])`` proposes one
tool call per model turn, in order, then answers with plain text; a list of such dicts in place of
one is a turn that proposes several calls at once. The turn is the number of model replies already
in the conversation, so the model is stateless: LangGraph may re-run a step after a pause and the
model still proposes the right calls. ``bind_tools`` records the tool names each turn
was offered (``offered``), which is how a test sees what ``hide_tools`` hid.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolCall
from langchain_core.messages.tool import tool_call as make_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field


class ScriptedChatModel(BaseChatModel):
    """Proposes ``proposals[i]`` on turn ``i``, then says ``final``."""

    proposals: list[dict[str, Any] | list[dict[str, Any]]] = Field(default_factory=list)
    final: str = "done"
    offered: list[frozenset[str]] = Field(default_factory=list)
    """The tool names bound for each model turn, in order (appended by ``bind_tools``)."""
    bound: frozenset[str] | None = None

    @property
    def _llm_type(self) -> str:
        return "toolhooks-scripted"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        names = frozenset(_tool_name(tool) for tool in tools)
        self.offered.append(names)
        return self.model_copy(update={"bound": names})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        turn = sum(isinstance(message, AIMessage) for message in messages)
        if turn >= len(self.proposals):
            reply = AIMessage(content=self.final)
        else:
            proposed = self.proposals[turn]
            calls = [proposed] if isinstance(proposed, dict) else list(proposed)
            reply = AIMessage(content="", tool_calls=[_tool_call(call) for call in calls])
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _tool_call(proposal: dict[str, Any]) -> ToolCall:
    return make_tool_call(
        name=proposal["name"],
        args=dict(proposal.get("params", {})),
        id=proposal.get("id") or f"call_{uuid.uuid4().hex[:16]}",
    )


def _tool_name(tool: dict[str, Any] | type | Callable[..., Any] | BaseTool) -> str:
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, dict) and isinstance(tool.get("name"), str):
        return str(tool["name"])
    return str(convert_to_openai_tool(tool)["function"]["name"])


__all__ = ["ScriptedChatModel"]
