"""``ToolhooksCapability``: every tool call of a PydanticAI agent goes through a toolhooks Runtime."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pydantic_ai import CallToolsNode, ModelRequestNode, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, ModelRetry, ToolFailed
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset
from toolhooks import Outcome, Runtime, Sender, ToolCall, ToolError, ToolSpec

from ._approvals import DEFAULT_DENIAL, METADATA_KEY, resume_decision
from ._outcome import deliver
from ._params import ArgumentsUnreadable, json_params, revalidate

TRUSTED_LIMIT = 4096

SenderLike: TypeAlias = Sender | Mapping[str, Any] | str | None
PASSTHROUGH: tuple[type[BaseException], ...] = (ApprovalRequired, CallDeferred, ModelRetry)
"""What a PydanticAI tool raises to steer the run, not to fail: recorded, then re-raised as is."""


@dataclass
class ToolhooksCapability(AbstractCapability[Any]):
    """Put a toolhooks :class:`~toolhooks.Runtime` in front of an agent's tools.

    ``Agent(model, tools=[...], capabilities=[ToolhooksCapability(runtime)])``. Tools the runtime
    hides are not offered to the model; every call runs the runtime's pipeline with
    JSON-compatible params; a block, deny or failure is a failed tool result carrying the reason;
    an approval the runtime's approver defers becomes PydanticAI's own ``ApprovalRequired`` and is
    resumed by ``DeferredToolResults``.

    ``sender`` and ``session_id`` may be values or functions of the ``RunContext`` (to read them
    from ``ctx.deps``); the session defaults to the run's ``conversation_id``, which stays the same
    across a pause and its resume. The run's user prompt is the session's trusted input
    (``Runtime.trust``): a value the user typed is never "from" a tool result for ``rules``.
    """

    runtime: Runtime
    sender: SenderLike | Callable[[RunContext[Any]], SenderLike] = None
    agent_id: str | None = None
    session_id: str | Callable[[RunContext[Any]], str | None] | None = None
    hide_tools: bool = True

    _known: set[str] = dataclasses.field(default_factory=set, init=False, repr=False)
    _specs: dict[str, ToolSpec] = dataclasses.field(default_factory=dict, init=False, repr=False)
    _trusted: OrderedDict[tuple[str, str], None] = dataclasses.field(
        default_factory=OrderedDict, init=False, repr=False
    )
    """(session, prompt) already handed to ``Runtime.atrust`` (bounded)."""
    """The runtime's spec of each tool, by name: put on the call, the runtime does not attach it
    to a copy. A stale one is replaced by the runtime as before."""

    def __post_init__(self) -> None:
        self.runtime.add_passthrough(*PASSTHROUGH)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a live Runtime: not spec-serializable

    # -- the scope of a call ----------------------------------------------------------------

    def sender_for(self, ctx: RunContext[Any]) -> SenderLike:
        return self.sender(ctx) if callable(self.sender) else self.sender

    def session_for(self, ctx: RunContext[Any]) -> str | None:
        if callable(self.session_id):
            return self.session_id(ctx)
        return self.session_id if self.session_id is not None else ctx.conversation_id

    def call_fields(
        self, ctx: RunContext[Any], name: str, params: Any, call_id: str
    ) -> dict[str, Any]:
        """The toolhooks call for a PydanticAI tool call, as ``ToolCall`` fields."""
        return {
            "name": name,
            "params": params,
            "id": call_id,
            "session_id": self.session_for(ctx),
            "run_id": ctx.run_id,
            "agent_id": self.agent_id,
            "sender": Sender.coerce(self.sender_for(ctx)),
        }

    # -- PydanticAI hooks -------------------------------------------------------------------

    async def prepare_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        self._register(tool_defs)
        await self._trust(ctx)
        if not self.hide_tools:
            return tool_defs
        sender = Sender.coerce(self.sender_for(ctx))
        is_visible = self.runtime.is_visible
        return [
            tool_def
            for tool_def in tool_defs
            if is_visible(tool_def.name, sender=sender, agent_id=self.agent_id)
        ]

    async def _trust(self, ctx: RunContext[Any]) -> None:
        """The run's user prompt, once per session, as its trusted input (``rules``' ``from``)."""
        prompt = ctx.prompt
        if isinstance(prompt, str):
            text = prompt
        else:
            text = "\n".join(part for part in prompt or () if isinstance(part, str))
        session = self.session_for(ctx)
        if not text or not session or (session, text) in self._trusted:
            return
        await self.runtime.atrust(session, text)
        self._trusted[(session, text)] = None
        while len(self._trusted) > TRUSTED_LIMIT:
            self._trusted.popitem(last=False)

    def _register(self, tool_defs: list[ToolDefinition]) -> None:
        """Tools the runtime does not know yet, registered as specs (name, description, schema).

        ``tool_visible`` hooks and the policy then judge them by more than a name, and an
        approval carries the tool's JSON Schema for an editor. Tags come from the tool's
        metadata, ``{"toolhooks": {"tags": [...]}}``. A tool registered on the runtime first
        keeps that registration.
        """
        new = [tool_def for tool_def in tool_defs if tool_def.name not in self._known]
        if not new:
            return
        registered = {spec.name for spec in self.runtime.tool_specs()}
        for tool_def in new:
            if tool_def.name not in registered:
                self.runtime.add_tool(
                    ToolSpec(
                        tool_def.name,
                        tool_def.description or "",
                        tool_def.parameters_json_schema,
                        frozenset(_tags(tool_def)),
                    )
                )
            self._known.add(tool_def.name)
        self._specs = {spec.name: spec for spec in self.runtime.tool_specs()}

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
        return GuardedToolset(toolset, guard=self)

    async def after_node_run(self, ctx: RunContext[Any], *, node: Any, result: Any) -> Any:
        if isinstance(node, CallToolsNode) and isinstance(result, ModelRequestNode):
            await self._settle_unrun_calls(ctx, node, result.request)
        return result

    # -- execution --------------------------------------------------------------------------

    async def run_tool(
        self,
        ctx: RunContext[Any],
        name: str,
        tool_args: dict[str, Any],
        tool: ToolsetTool[Any],
        inner: AbstractToolset[Any],
    ) -> Any:
        """One call through the runtime; the tool itself runs inside, with the decided params."""
        call_id = ctx.tool_call_id or ""
        readable = True
        try:
            params: Any = json_params(tool_args)
        except ArgumentsUnreadable:
            params, readable = tool_args, False
        raw: list[Any] = []

        async def execute(final: dict[str, Any]) -> Any:
            if final == params:
                args = tool_args  # unchanged: keep PydanticAI's own validated objects
            else:
                try:
                    args = await revalidate(tool, name, final, ctx)
                except ValueError as exc:
                    raise ToolError(str(exc)) from None
            try:
                value = await inner.call_tool(name, args, ctx, tool)
            except ToolFailed as exc:
                raise ToolError(exc.message) from None
            raw.append(value)
            return value

        outcome = None
        if ctx.tool_call_approved:
            outcome = await self._resume(ctx, call_id, params, execute)
        if outcome is None:
            fields = self.call_fields(ctx, name, params, call_id)
            # Unreadable arguments go in as a plain mapping: the runtime refuses the call with
            # its own reason and records it, as it does any proposal it cannot read.
            call = ToolCall(**fields, spec=self._specs.get(name)) if readable else fields
            outcome = await self.runtime.acall(call, execute)
        return deliver(outcome, raw)

    async def _resume(
        self, ctx: RunContext[Any], call_id: str, params: Any, execute: Callable[..., Any]
    ) -> Outcome | None:
        """Finish the toolhooks approval PydanticAI's approval answers, if this call has one."""
        stored = self.runtime.approvals.for_call(call_id)
        if stored is None or stored.state not in ("pending", "decided"):
            return None
        decision, edited, by, reason = resume_decision(
            ctx.tool_call_metadata, params, stored.params, stored.proposed_params
        )
        return await self.runtime.aresume(
            stored.id, decision, params=edited, execute=execute, by=by, reason=reason
        )

    async def _settle_unrun_calls(
        self, ctx: RunContext[Any], node: CallToolsNode[Any, Any], request: ModelRequest
    ) -> None:
        """Calls PydanticAI answered without running a tool, settled in toolhooks too.

        A ``ToolDenied`` answer to a toolhooks approval resumes it as a deny; a call to a tool
        toolhooks hid (PydanticAI's "unknown tool") runs the pipeline, which blocks it. Either way
        the model sees the toolhooks outcome, and the call gets its ``tool.injected``.
        """
        if not any(
            isinstance(part, ToolReturnPart) and part.outcome in ("denied", "retried")
            for part in request.parts
        ):
            return  # the usual step: every call ran through the guarded toolset
        calls = {call.tool_call_id: call for call in node.model_response.tool_calls}
        parts = list(request.parts)
        changed = False
        for index, part in enumerate(parts):
            if not isinstance(part, ToolReturnPart) or part.tool_call_id not in calls:
                continue
            if part.outcome == "denied":
                outcome = await self._settle_denied(part)
            elif part.outcome == "retried" and self._hidden(ctx, part.tool_name):
                args = calls[part.tool_call_id].args_as_dict()
                fields = self.call_fields(ctx, part.tool_name, args, part.tool_call_id)
                outcome = await self.runtime.acall(fields, _not_offered)
                if ctx.tool_manager is not None:
                    # A block is a failure the model sees, not a retry: like ToolFailed, it must
                    # not use up the retries PydanticAI counts for an unknown tool name.
                    ctx.tool_manager.failed_tools.discard(part.tool_name)
            else:
                continue
            if outcome is None:
                continue
            status: Literal["denied", "failed"] = "denied" if part.outcome == "denied" else "failed"
            parts[index] = ToolReturnPart(
                part.tool_name,
                outcome.content,
                part.tool_call_id,
                tool_kind=part.tool_kind,
                metadata=part.metadata,
                timestamp=part.timestamp,
                outcome=status,
            )
            changed = True
        if changed:
            request.parts = parts

    async def _settle_denied(self, part: ToolReturnPart) -> Outcome | None:
        stored = self.runtime.approvals.for_call(part.tool_call_id)
        if stored is None or stored.state not in ("pending", "decided"):
            return None
        message = part.content if isinstance(part.content, str) else None
        reason = message if message and message != DEFAULT_DENIAL else None
        # A deny never runs the tool; the executor only tells the runtime the tool exists here.
        return await self.runtime.aresume(stored.id, "deny", reason=reason, execute=_not_offered)

    def _hidden(self, ctx: RunContext[Any], name: str) -> bool:
        manager = ctx.tool_manager
        if manager is not None and manager.tools is not None and name in manager.tools:
            return False  # offered this step: PydanticAI retried it for its own reasons
        sender = Sender.coerce(self.sender_for(ctx))
        return not self.runtime.is_visible(name, sender=sender, agent_id=self.agent_id)


@dataclass
class GuardedToolset(WrapperToolset[Any]):
    """The agent's toolset with every call going through the capability's runtime.

    It wraps the innermost point, the tool itself: other capabilities' hooks run before toolhooks
    decides (so what runs is what the hooks saw) and see the content toolhooks lets through.
    """

    guard: ToolhooksCapability = dataclasses.field(kw_only=True)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        return await self.guard.run_tool(ctx, name, tool_args, tool, self.wrapped)


def _not_offered(_params: dict[str, Any]) -> Any:
    raise ToolError("this tool was not offered to the agent")


def _tags(tool_def: ToolDefinition) -> list[str]:
    options = (tool_def.metadata or {}).get(METADATA_KEY)
    tags = options.get("tags") if isinstance(options, Mapping) else None
    if tags is None:
        return []
    if isinstance(tags, str) or not all(isinstance(tag, str) and tag for tag in tags):
        raise ValueError(
            f"tool {tool_def.name!r}: metadata['toolhooks']['tags'] must be a list of strings"
        )
    return list(tags)
