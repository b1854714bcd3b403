"""The records of the adapter scenarios: a scenario, what it expects, and what a driver reports."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..records._frozen import thaw
from ..records._results import PendingApproval
from ..runtime._runtime import Runtime

Answer = Callable[[Mapping[str, Any]], Mapping[str, Any]]
"""What a driver calls at each framework pause: the approval shown to the human (see
:func:`approval_view`) in, the human's answer out (``{"decision": ..., "params": ...}``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolMessage:
    """One tool result as the model saw it."""

    tool: str
    content: str
    is_error: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentRun:
    """What a driver reports after running an agent to the end."""

    messages: tuple[ToolMessage, ...]
    """Every tool result the model was given, in order."""
    offered: tuple[frozenset[str], ...]
    """The tool names the model was shown, one set per model turn."""


class Driver(Protocol):
    """Runs one agent of a framework with its own scripted model, through the adapter under test."""

    name: str

    def approver(self) -> Any:
        """The approver that turns a toolhooks approval into this framework's own pause."""
        ...

    def run(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        """Run the agent to the end, resuming every framework pause with ``answer(view)``."""
        ...

    async def arun(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        """The same, through the framework's async entry point."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Expect:
    ran: tuple[tuple[str, dict[str, Any]], ...]
    """Each tool the framework really executed, with the arguments it received, in order."""
    seen: tuple[str, ...]
    """A text each tool message must contain, one per proposal."""
    errors: tuple[bool, ...]
    """Whether each tool message is an error to the model, one per proposal."""
    never_seen: tuple[str, ...] = ()
    """Texts no tool message may contain (what a redaction or a trim removed)."""
    hidden: frozenset[str] = frozenset()
    """Tools the model must never be shown."""
    asked: tuple[dict[str, Any], ...] = ()
    """The params each approval showed the human, in order."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    name: str
    proposals: tuple[dict[str, Any], ...]
    expect: Expect
    plugins: Callable[[], list[Any]] = list
    config: Callable[[Path], dict[str, Any]] = field(default=lambda _workdir: {})
    answers: tuple[dict[str, Any], ...] = ()
    pauses: bool = False
    """True: the runtime's approver defers, so an approval becomes the framework's own pause.
    False: approvals are answered inline, inside the tool call."""


def approval_view(pending: PendingApproval) -> dict[str, Any]:
    """The approval as a driver shows it to the human: plain, JSON-compatible values."""
    request = pending.request
    return {
        "approval_id": pending.id,
        "tool": pending.call.name,
        "params": thaw(pending.call.params),
        "digest": pending.digest,
        "title": request.title,
        "description": request.description,
        "allowed_decisions": list(request.allowed_decisions),
    }
