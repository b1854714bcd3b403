"""``ToolhooksMiddleware``: every tool call of a ``create_agent`` agent goes through a Runtime."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command
from toolhooks import Runtime, Sender, ToolError, ToolSpec

from ._approvals import settle, settle_async
from ._calls import final_result, find_message, register_tools, same_json, text_of, tool_call

SenderLike = Sender | Mapping[str, Any] | str | None
TRUSTED_LIMIT = 4096
ToolResponse = ToolMessage | Command[Any]
ModelResult = ModelResponse[Any] | AIMessage


class ToolhooksMiddleware(AgentMiddleware):
    """Put ``runtime`` between a LangChain agent's model and its tools.

    ``create_agent(model, tools, middleware=[ToolhooksMiddleware(rt)])``: each tool call runs
    through the runtime's fence, hooks, validation and approval; the tool itself runs through
    LangChain's own handler with the params the hooks decided; the model gets back the text the
    after-hooks produced. ``sender`` and ``agent_id`` scope the policy; ``sender`` may also be a
    function of the run's context (``agent.invoke(..., context=...)``) for an agent that serves
    many users. ``hide_tools`` removes the tools the runtime hides from what the model is offered
    (a call to one is blocked anyway). The user's messages are the thread's trusted input
    (``Runtime.trust``): a value the user typed is never "from" a tool result for ``rules``.
    """

    def __init__(
        self,
        runtime: Runtime,
        sender: SenderLike | Callable[[Any], SenderLike] = None,
        agent_id: str | None = None,
        hide_tools: bool = True,
    ) -> None:
        super().__init__()
        self.runtime = runtime
        self._sender_of = sender if callable(sender) else None
        self.sender = None if callable(sender) else Sender.coerce(sender)
        self.agent_id = agent_id
        self.hide_tools = hide_tools
        # A LangGraph interrupt raised by a tool (or by a graph called as a tool) must reach
        # LangGraph unchanged, not become a failed tool call.
        runtime.add_passthrough(GraphBubbleUp)
        self._known: set[str] = set()
        self._specs: dict[str, ToolSpec] = {}  # the runtime's spec of each tool, by name
        self._trusted: OrderedDict[tuple[str, str], None] = OrderedDict()
        """(thread, message) already given to ``Runtime.trust`` (bounded)."""

    # -- the model's view -------------------------------------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResult:
        self._trust(request)
        return handler(self._offer(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResult:
        self._trust(request)
        return await handler(self._offer(request))

    def _trust(self, request: ModelRequest[Any]) -> None:
        """Each user message of the thread, once, as the session's trusted input."""
        thread = _thread()
        if thread is None:
            return
        for message in request.messages:
            if not isinstance(message, HumanMessage):
                continue
            text = text_of(message.content)
            key = (thread, message.id or text)
            if not text or key in self._trusted:
                continue
            self.runtime.trust(thread, text)
            self._trusted[key] = None
            while len(self._trusted) > TRUSTED_LIMIT:
                self._trusted.popitem(last=False)

    def _offer(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with the tools the runtime hides for this scope taken out."""
        self._learn(request.tools)
        if not self.hide_tools or not request.tools:
            return request
        visible, sender = self.runtime.is_visible, self._sender(request.runtime)
        tools = [
            tool
            for tool in request.tools
            if (name := _name(tool)) is None or visible(name, sender, self.agent_id, "agent")
        ]
        return request if len(tools) == len(request.tools) else request.override(tools=tools)

    def _sender(self, runtime: Any) -> SenderLike:
        """The sender for this run: the fixed one, or the function's answer for its context
        (checked where it is used: a bad one makes the call an invalid call, with the reason)."""
        if self._sender_of is None:
            return self.sender
        return self._sender_of(getattr(runtime, "context", None))

    def _learn(self, tools: list[Any]) -> None:
        if any(isinstance(t, BaseTool) and t.name not in self._known for t in tools):
            register_tools(self.runtime, tools)
            self._specs = {spec.name: spec for spec in self.runtime.tool_specs()}
            self._known.update(self._specs)

    # -- the tool calls ---------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolResponse],
    ) -> ToolResponse:
        tool = request.tool
        if tool is not None and tool.name not in self._known:
            self._learn([tool])
        run = _Execution(request)

        def execute(params: dict[str, Any]) -> Any:
            return run.finish(handler(run.request_with(params)))

        name = request.tool_call.get("name")
        spec = self._specs.get(name) if isinstance(name, str) else None
        call = tool_call(request, self._sender(request.runtime), self.agent_id, spec)
        outcome = self.runtime.call(call, execute)
        outcome = settle(self.runtime, outcome, execute)
        return final_result(outcome, request, run.result)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolResponse]],
    ) -> ToolResponse:
        tool = request.tool
        if tool is not None and tool.name not in self._known:
            self._learn([tool])
        run = _Execution(request)

        async def execute(params: dict[str, Any]) -> Any:
            return run.finish(await handler(run.request_with(params)))

        name = request.tool_call.get("name")
        spec = self._specs.get(name) if isinstance(name, str) else None
        call = tool_call(request, self._sender(request.runtime), self.agent_id, spec)
        outcome = await self.runtime.acall(call, execute)
        outcome = await settle_async(self.runtime, outcome, execute)
        return final_result(outcome, request, run.result)


class _Execution:
    """One tool call's run through LangChain's handler; keeps the tool's own message."""

    __slots__ = ("request", "result")

    def __init__(self, request: ToolCallRequest) -> None:
        self.request = request
        self.result: ToolResponse | None = None

    def request_with(self, params: dict[str, Any]) -> ToolCallRequest:
        """The request with exactly the params the hooks (and the approver) decided on: itself
        when they are the proposed args, same values of the same types (the check costs a tenth
        of the override: BENCHMARKS.md, choices made for speed)."""
        request = self.request
        if same_json(params, request.tool_call.get("args")):
            return request
        return request.override(tool_call={**request.tool_call, "args": params})

    def finish(self, result: ToolResponse) -> str:
        """The tool's text for the after-hooks; a LangChain error message is a tool error."""
        self.result = result
        message = find_message(result, self.request.tool_call.get("id") or "")
        if message is None:
            return ""
        text = text_of(message.content)
        if message.status == "error":
            self.result = None
            raise ToolError(text)
        return text


def _thread() -> str | None:
    """The LangGraph thread of the run (the session of its tool calls), when there is one."""
    from langgraph.config import get_config

    try:
        config = get_config()
    except RuntimeError:  # outside a run
        return None
    thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


def _name(tool: Any) -> str | None:
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        name = tool.get("name")
        if name is None and isinstance(tool.get("function"), Mapping):
            name = tool["function"].get("name")
        return name if isinstance(name, str) else None
    return getattr(tool, "__name__", None)
