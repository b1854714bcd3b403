"""guard_tool / guard_tools / guard_agent: a FunctionTool whose every call goes through a Runtime.

The guarded tool is a copy of the SDK's own ``FunctionTool`` with three fields replaced:

- ``is_enabled`` asks the tool's own setting first, then ``rt.is_visible``: a tool a
  ``tool_visible`` hook hides is never offered to the model;
- ``needs_approval`` runs the fence, the before chain and validation (``rt.adecide``) and, when
  a hook asks for an approval, decides whether the SDK pauses the run (see ``_approval``);
- ``on_invoke_tool`` runs the call through the pipeline (``rt.acall`` / ``rt.aresume``) with the
  original tool as the executor: the final params are written back into the JSON arguments, and
  what the model sees is the Outcome's content (a block reason, a denial, the after hooks' text).

The original invoker runs with the SDK's failure formatter switched off, so an exception in the
tool reaches toolhooks as an error instead of the SDK's generic "An error occurred" string.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from agents import (
    Agent,
    FunctionTool,
    GuardrailFunctionOutput,
    InputGuardrail,
    RunContextWrapper,
)
from agents.tool import set_function_tool_failure_error_function
from agents.tool_context import ToolContext
from toolhooks import Runtime, Sender, ToolCall, ToolSpec

from ._approval import Approvals
from ._calls import CallScope, model_output

_PROPOSED = 4096
"""Calls kept between needs_approval and the tool call; the oldest is dropped past this."""
_UNSUPPORTED = "only FunctionTools run locally, where toolhooks can stand in front of them"


class GuardedTool:
    """The toolhooks side of one guarded FunctionTool."""

    def __init__(
        self, runtime: Runtime, tool: FunctionTool, scope: CallScope, spec: ToolSpec | None = None
    ) -> None:
        self.runtime = runtime
        self.name = tool.name
        self.spec = spec
        self.scope = scope
        self.original = tool
        self._enabled = tool.is_enabled
        self._extractor = tool.custom_data_extractor
        # The original invoker, with the SDK's failure formatter off: exceptions propagate to
        # the pipeline, which records them and shows the model "Tool 'x' failed: ...".
        inner = copy.copy(tool)
        set_function_tool_failure_error_function(inner, None)
        self._inner = inner
        self.approvals = Approvals(runtime, scope)
        # The call made for needs_approval, by call id, for the tool call to use again: the SDK
        # evaluates needs_approval on the very arguments it then invokes the tool with (it
        # checks the invocation is unchanged), so parsing them into a second ToolCall is work
        # that can only give the same call.
        self._proposed: OrderedDict[str, ToolCall] = OrderedDict()

    # -- the three fields the guarded copy replaces --------------------------------------------

    async def is_enabled(self, ctx: RunContextWrapper[Any], agent: Any) -> bool:
        """The tool's own ``is_enabled``, then toolhooks' visibility for this scope."""
        setting = self._enabled
        if callable(setting):
            answer = setting(ctx, agent)
            if inspect.isawaitable(answer):
                answer = await answer
            if not answer:
                return False
        elif not setting:
            return False
        if self.approvals.paused:
            await self.approvals.settle_rejections(ctx)
        scope = self.scope
        return self.runtime.is_visible(
            self.name, sender=scope.sender, agent_id=scope.agent_id, origin="agent"
        )

    async def needs_approval(
        self, ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        call = self.scope.call(self.name, params, call_id, self.spec)
        proposed = self._proposed
        proposed[call_id] = call
        if len(proposed) > _PROPOSED:
            proposed.popitem(last=False)
        return await self.approvals.needs_pause(ctx, call)

    async def invoke(self, ctx: ToolContext[Any], arguments: str) -> Any:
        inner = self._inner

        async def execute(params: dict[str, Any]) -> Any:
            # The final params, exactly as the hooks (and any approver) left them.
            rewritten = json.dumps(params, ensure_ascii=False, separators=(",", ":"))
            return await inner.on_invoke_tool(ctx, rewritten)

        call_id = ctx.tool_call_id
        call = self._proposed.pop(call_id, None) or self.scope.parse(
            self.name, arguments, call_id, self.spec
        )
        outcome = await self.approvals.finish(ctx, call, execute)
        self.approvals.remember_status(ctx.tool_call_id, outcome.status)
        return model_output(outcome)

    async def custom_data(self, data: Any) -> Mapping[str, Any] | None:
        """SDK-only data on the output item: the toolhooks status (never sent to the model)."""
        own: dict[str, Any] | None = None
        extractor = self._extractor
        if extractor is not None:
            found = extractor(data)
            if inspect.isawaitable(found):
                found = await found
            own = dict(found) if found else None
        status = self.approvals.status_of(data.tool_context.tool_call_id)
        if status is None:
            return own
        return {**(own or {}), "toolhooks": {"status": status}}


def guard_tool(
    runtime: Runtime,
    tool: FunctionTool | Any,
    *,
    sender: Sender | Mapping[str, Any] | str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    tags: Iterable[str] = (),
) -> FunctionTool:
    """A copy of ``tool`` whose every call goes through ``runtime``.

    ``tool`` is an SDK ``FunctionTool`` or a plain function (made one with ``function_tool``).
    The tool is registered on the runtime under its SDK name (with ``tags``), so policies and
    ``tool_visible`` hooks see it. ``sender``, ``agent_id`` and ``session_id`` go on every call.
    """
    if not isinstance(tool, FunctionTool):
        if callable(tool) and not isinstance(tool, type):
            from agents import function_tool

            tool = function_tool(tool)
        else:
            raise TypeError(
                f"guard_tool: {type(tool).__name__} is not a FunctionTool; {_UNSUPPORTED}"
            )
    if tool._is_agent_tool or tool._is_codex_tool:
        raise TypeError(
            f"guard_tool: {tool.name!r} runs a nested agent; guard the tools of that agent instead"
        )
    runtime.add_passthrough(asyncio.CancelledError)
    spec = runtime.add_tool(
        ToolSpec(tool.name, tool.description, dict(tool.params_json_schema), frozenset(tags))
    )
    guard = GuardedTool(runtime, tool, CallScope.of(sender, agent_id, session_id), spec)
    guarded = copy.copy(tool)
    guarded.on_invoke_tool = guard.invoke
    guarded.is_enabled = guard.is_enabled
    guarded.needs_approval = guard.needs_approval
    guarded.custom_data_extractor = guard.custom_data
    return guarded


def guard_tools(
    runtime: Runtime,
    tools: Sequence[FunctionTool | Any],
    *,
    sender: Sender | Mapping[str, Any] | str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> list[FunctionTool]:
    """``guard_tool`` for each tool in the list; a tool that cannot be guarded is an error."""
    unsupported = [
        _describe(tool)
        for tool in tools
        if not isinstance(tool, FunctionTool)
        and not (callable(tool) and not isinstance(tool, type))
    ]
    if unsupported:
        raise TypeError(f"guard_tools: cannot guard {', '.join(unsupported)}; {_UNSUPPORTED}")
    return [
        guard_tool(runtime, tool, sender=sender, agent_id=agent_id, session_id=session_id)
        for tool in tools
    ]


def guard_agent(
    runtime: Runtime,
    agent: Agent[Any],
    *,
    sender: Sender | Mapping[str, Any] | str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> Agent[Any]:
    """A clone of ``agent`` whose function tools are guarded; ``agent_id`` defaults to its name.

    An agent with tools that run elsewhere (hosted tools, MCP servers) is refused: toolhooks
    could not see those calls, and an audit trail with holes is worse than an error.
    """
    if agent.mcp_servers:
        raise TypeError(
            f"guard_agent: agent {agent.name!r} has MCP servers; put toolhooks-mcp in front of them"
        )
    tools = guard_tools(
        runtime,
        agent.tools,
        sender=sender,
        agent_id=agent_id if agent_id is not None else agent.name,
        session_id=session_id,
    )
    if session_id is None:
        return agent.clone(tools=cast(list[Any], tools))
    # The user's input is the session's trusted input (``rules``' ``from`` conditions): an input
    # guardrail that trips nothing, run before the model so the first tool call sees it.
    guardrails = [*agent.input_guardrails, trusting_guardrail(runtime, session_id)]
    return agent.clone(tools=cast(list[Any], tools), input_guardrails=guardrails)


def trusting_guardrail(runtime: Runtime, session_id: str) -> InputGuardrail[Any]:
    """An input guardrail that hands the user's input to ``runtime.atrust`` and lets it pass."""

    async def trust(ctx: RunContextWrapper[Any], agent: Any, given: Any) -> GuardrailFunctionOutput:
        text = user_text(given)
        if text:
            await runtime.atrust(session_id, text)
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)

    return InputGuardrail(guardrail_function=trust, name="toolhooks_trust", run_in_parallel=False)


def user_text(given: Any) -> str:
    """The text of a run's input: a string, or the user items of an input list."""
    if isinstance(given, str):
        return given
    parts: list[str] = []
    for item in given if isinstance(given, list) else ():
        if not isinstance(item, Mapping) or item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [
                str(piece.get("text", ""))
                for piece in content
                if isinstance(piece, Mapping) and "text" in piece
            ]
    return "\n".join(parts)


def _describe(tool: Any) -> str:
    name = getattr(tool, "name", None)
    kind = type(tool).__name__
    return f"{kind} {name!r}" if isinstance(name, str) else kind
