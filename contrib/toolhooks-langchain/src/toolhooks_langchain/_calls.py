"""Between LangChain's records and toolhooks': tool calls in, tool messages out, tool specs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command
from pydantic_core import to_jsonable_python
from toolhooks import Outcome, Runtime, Sender, ToolCall, ToolSpec


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON values. pydantic-core's own walk, even for arguments that already
    are (the usual case): cheaper than checking them in Python first (BENCHMARKS.md, choices made for speed)."""
    return to_jsonable_python(value, fallback=repr)


def same_json(a: Any, b: Any) -> bool:
    """Equal JSON values of the same types all the way down (``1`` is not ``1.0`` nor ``True``)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        return a.keys() == b.keys() and all(same_json(value, b[key]) for key, value in a.items())
    if kind is list:
        return len(a) == len(b) and all(map(same_json, a, b))
    return bool(a == b)


def session_of(request: ToolCallRequest) -> str | None:
    """The LangGraph thread is the session: loop detection and approval grants follow it."""
    config = getattr(request.runtime, "config", None) or {}
    thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


def tool_call(
    request: ToolCallRequest,
    sender: Sender | Mapping[str, Any] | str | None,
    agent_id: str | None,
    spec: ToolSpec | None = None,
) -> ToolCall | dict[str, Any]:
    """The toolhooks call for a LangChain tool call; the LangChain call id is the toolhooks id.

    A proposal that is not a valid ToolCall is handed to the runtime as a plain mapping, which
    records and rejects it with a reason (never an exception out of the middleware). ``spec``:
    the tool's registered spec, which the runtime would otherwise attach to a copy of the call;
    a stale one is replaced by the runtime as before.
    """
    proposed = request.tool_call
    params = jsonable(proposed.get("args") or {})
    name, call_id, session = proposed.get("name"), proposed.get("id") or None, session_of(request)
    try:
        return ToolCall(
            name=name,
            params=params,
            id=call_id,
            session_id=session,
            agent_id=agent_id,
            sender=sender,
            spec=spec,
        )
    except ValueError:
        return {
            "name": name,
            "params": params,
            "id": call_id,
            "session_id": session,
            "agent_id": agent_id,
            "sender": sender,
        }


def spec_of(tool: BaseTool) -> ToolSpec:
    """A LangChain tool as toolhooks sees it: name, description, and its arguments' JSON Schema."""
    try:  # what the model is shown: the schema without injected arguments (state, runtime)
        parameters = dict(convert_to_openai_tool(tool)["function"].get("parameters") or {})
    except Exception:  # an exotic schema: the tool is still guarded, only described less
        parameters = {"type": "object"}
    parameters.pop("title", None)
    return ToolSpec(tool.name, tool.description or "", parameters)


def register_tools(runtime: Runtime, tools: list[Any]) -> None:
    """Give the runtime a spec for each LangChain tool it does not know yet.

    ``tool_visible`` handlers and the policy need a spec to judge a tool; a tool the user already
    registered (with tags, say) keeps its registration.
    """
    known = {spec.name for spec in runtime.tool_specs()}
    for tool in tools:
        if isinstance(tool, BaseTool) and tool.name not in known:
            runtime.add_tool(spec_of(tool))
            known.add(tool.name)


def text_of(content: Any) -> str:
    """A message's content as the text toolhooks' after-hooks work on."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            item if isinstance(item, str) else str(item.get("text", ""))
            for item in content
            if isinstance(item, str) or (isinstance(item, Mapping) and item.get("type") == "text")
        ]
        return "".join(parts)
    return str(content)


def find_message(result: ToolMessage | Command[Any], call_id: str) -> ToolMessage | None:
    """The tool's own message: the result itself, or the one a Command adds for this call."""
    if isinstance(result, ToolMessage):
        return result
    update = result.update
    messages = update.get("messages", []) if isinstance(update, Mapping) else []
    for message in messages:
        if isinstance(message, ToolMessage) and message.tool_call_id == call_id:
            return message
    return None


def error_message(outcome: Outcome, request: ToolCallRequest) -> ToolMessage:
    """A call that did not run (blocked, denied, failed): the reason, as an error the model reads."""
    proposed = request.tool_call
    return ToolMessage(
        content=outcome.content,
        name=proposed.get("name"),
        tool_call_id=proposed.get("id") or outcome.call_id,
        status="error",
        response_metadata={"toolhooks": summary(outcome)},
    )


def summary(outcome: Outcome) -> dict[str, Any]:
    """What a host may want to know about the decision (never sent to the model)."""
    return {
        "status": outcome.status,
        "call_id": outcome.call_id,
        "trace_id": outcome.trace_id,
        "blocked_by": outcome.blocked_by,
        "reason": outcome.reason,
        "truncated": outcome.truncated,
        "artifact": outcome.artifact,
    }


def final_result(
    outcome: Outcome, request: ToolCallRequest, result: ToolMessage | Command[Any] | None
) -> ToolMessage | Command[Any]:
    """The framework's answer for a finished Outcome: the tool's own message, with after-hook
    changes (redaction, trimming, notes) written into its content."""
    if not outcome.ok or result is None:
        return error_message(outcome, request)
    call_id = request.tool_call.get("id") or outcome.call_id
    message = find_message(result, call_id)
    if message is None:  # a Command without a message for this call: nothing to rewrite
        return result
    if outcome.content == text_of(message.content):  # no after-hook changed it: keep it whole
        return result
    rewritten = message.model_copy(
        update={
            "content": outcome.content,
            "response_metadata": {**message.response_metadata, "toolhooks": summary(outcome)},
        }
    )
    if isinstance(result, ToolMessage):
        return rewritten
    update = dict(result.update) if isinstance(result.update, Mapping) else {}
    update["messages"] = [rewritten if m is message else m for m in update.get("messages", [])]
    return Command(graph=result.graph, update=update, resume=result.resume, goto=result.goto)
