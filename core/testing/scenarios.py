"""The scenario list every framework adapter runs.

The same tool calls, plugins and human answers are driven through each framework's own agent loop,
with the framework's own scripted model, so "the LangChain adapter blocks with the reason" means the
same thing as "the PydanticAI adapter blocks with the reason". An adapter's test suite supplies a
:class:`Driver` and parametrizes over :data:`SCENARIOS`::

    @pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
    def test_scenario(scenario, tmp_path):
        check(scenario, MyFrameworkDriver(), workdir=tmp_path)

Each proposal is one model turn that asks for one tool call; after the last tool result the model
answers with plain text and the run ends. :func:`check` builds a fresh runtime for the scenario,
runs the driver, and asserts what the tools received, what the model saw, what a human was asked,
and that every call has exactly one ``tool.proposed`` and one ``tool.injected`` (across a pause
too).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..records._frozen import thaw
from ..records._models import ToolCall, ToolSpec
from ..records._results import ApprovalDecision, PendingApproval, ToolResult
from ..registry._hookimpl import hookimpl
from ..runtime._runtime import Runtime
from ._fixtures import EventRecorder

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
class Transcript:
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
    ) -> Transcript:
        """Run the agent to the end, resuming every framework pause with ``answer(view)``."""
        ...

    async def arun(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> Transcript:
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


# -- the tools -----------------------------------------------------------------------------------


def make_tools(ran: list[tuple[str, dict[str, Any]]]) -> list[Callable[..., Any]]:
    """The plain functions the scenarios call; each records its arguments in ``ran`` when it runs."""

    def write_file(path: str, content: str) -> str:
        """Write a text file in the workspace."""
        ran.append(("write_file", {"path": path, "content": content}))
        return f"wrote {len(content)} chars to {path}"

    def delete_branch(name: str) -> str:
        """Delete a git branch."""
        ran.append(("delete_branch", {"name": name}))
        return f"deleted {name}"

    def read_secret(name: str) -> str:
        """Read a value from the deployment's secret store."""
        ran.append(("read_secret", {"name": name}))
        return f"{name}=sk-live-4f9a8b7c6d5e"

    def dump_log(lines: int) -> str:
        """Print the last lines of the build log."""
        ran.append(("dump_log", {"lines": lines}))
        return "\n".join(f"step {i:04d}: compiled module_{i}.py" for i in range(lines))

    def search(query: str) -> str:
        """Search the project documentation."""
        ran.append(("search", {"query": query}))
        return f"no results for {query!r}"

    def crash(step: str) -> str:
        """Run a deployment step."""
        ran.append(("crash", {"step": step}))
        raise RuntimeError(f"disk full while {step}")

    return [write_file, delete_branch, read_secret, dump_log, search, crash]


# -- the plugins (throwaway: each scenario builds fresh ones) -------------------------------------


class WorkspacePaths:
    """Rewrites relative paths into the workspace."""

    name = "workspace_paths"

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        path = call.params.get("path", "")
        if isinstance(path, str) and not path.startswith("/"):
            return {"params": {"path": f"/workspace/{path}"}}
        return None


class NoSystemWrites:
    name = "no_system_writes"

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        if str(call.params.get("path", "")).startswith("/etc/"):
            return {"block": True, "block_reason": "writes under /etc are not allowed"}
        return None


class AskBeforeWrites:
    name = "ask_before_writes"

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {
            "require_approval": {
                "title": "Write a file?",
                "description": f"write {call.params.get('path')}",
                "allowed_decisions": ["allow-once", "deny", "edit"],
            }
        }


class HideBranchDeletes:
    name = "hide_branch_deletes"

    @hookimpl
    def tool_visible(self, tool: ToolSpec) -> bool | None:
        return False if tool.name == "delete_branch" else None


class RedactSecrets:
    name = "redact_secrets"

    @hookimpl
    def after_tool_call(self, result: ToolResult) -> dict[str, Any] | None:
        redacted = re.sub(r"sk-live-\w+", "[REDACTED]", result.content)
        return {"content": redacted} if redacted != result.content else None


def _builtin(module: str, cls: str) -> Any:
    import importlib

    return getattr(importlib.import_module(module), cls)


def _loop_detection() -> list[Any]:
    return [_builtin("toolhooks.plugins.loop_detection", "LoopDetectionPlugin")]


def _result_budget() -> list[Any]:
    return [_builtin("toolhooks.plugins.result_budget", "ResultBudgetPlugin")]


# -- the list ------------------------------------------------------------------------------------

_WRITE = {"name": "write_file", "params": {"path": "notes.txt", "content": "hello"}}
_WRITTEN = {"path": "/workspace/notes.txt", "content": "hello"}
_EDITED = {"path": "/workspace/draft.txt", "content": "hello"}

SCENARIOS: list[Scenario] = [
    Scenario(
        name="params rewrite",
        plugins=lambda: [WorkspacePaths()],
        proposals=(_WRITE,),
        expect=Expect(
            ran=(("write_file", _WRITTEN),),
            seen=("wrote 5 chars to /workspace/notes.txt",),
            errors=(False,),
        ),
    ),
    Scenario(
        name="block with reason",
        plugins=lambda: [NoSystemWrites()],
        proposals=({"name": "write_file", "params": {"path": "/etc/passwd", "content": "x"}},),
        expect=Expect(ran=(), seen=("writes under /etc are not allowed",), errors=(True,)),
    ),
    Scenario(
        name="hidden tool",
        plugins=lambda: [HideBranchDeletes()],
        proposals=({"name": "delete_branch", "params": {"name": "main"}},),
        expect=Expect(
            ran=(), seen=("delete_branch",), errors=(True,), hidden=frozenset({"delete_branch"})
        ),
    ),
    Scenario(
        name="approval answered inline",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "allow-once"},),
        expect=Expect(
            ran=(("write_file", _WRITTEN),),
            seen=("wrote 5 chars",),
            errors=(False,),
            asked=(_WRITTEN,),
        ),
    ),
    Scenario(
        name="approval allowed across the pause",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "allow-once"},),
        pauses=True,
        expect=Expect(
            ran=(("write_file", _WRITTEN),),
            seen=("wrote 5 chars",),
            errors=(False,),
            asked=(_WRITTEN,),
        ),
    ),
    Scenario(
        name="approval denied across the pause",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "deny"},),
        pauses=True,
        expect=Expect(ran=(), seen=("Denied by user",), errors=(True,), asked=(_WRITTEN,)),
    ),
    Scenario(
        name="approval edited across the pause",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "edit", "params": _EDITED},),
        pauses=True,
        expect=Expect(
            ran=(("write_file", _EDITED),),
            seen=("wrote 5 chars to /workspace/draft.txt",),
            errors=(False,),
            asked=(_WRITTEN,),
        ),
    ),
    Scenario(
        name="after-hook redaction",
        plugins=lambda: [RedactSecrets()],
        proposals=({"name": "read_secret", "params": {"name": "API_KEY"}},),
        expect=Expect(
            ran=(("read_secret", {"name": "API_KEY"}),),
            seen=("API_KEY=[REDACTED]",),
            errors=(False,),
            never_seen=("sk-live",),
        ),
    ),
    Scenario(
        name="result trimmed",
        plugins=_result_budget,
        config=lambda workdir: {
            "plugins": {
                "result_budget": {
                    "tiers": [{"min_tokens": 0, "max_chars": 2_000}],
                    "floor": 1_000,
                    "artifact_dir": str(workdir / "artifacts"),
                }
            }
        },
        proposals=({"name": "dump_log", "params": {"lines": 400}},),
        expect=Expect(
            ran=(("dump_log", {"lines": 400}),),
            seen=("more characters truncated",),
            errors=(False,),
            never_seen=("step 0399",),
        ),
    ),
    Scenario(
        name="loop warning reaches the model",
        plugins=_loop_detection,
        config=lambda _workdir: {
            "plugins": {
                "loop_detection": {"warning_threshold": 2, "critical_threshold": 4, "window": 10}
            }
        },
        proposals=({"name": "search", "params": {"query": "flaky test"}},) * 2,
        expect=Expect(
            ran=(("search", {"query": "flaky test"}),) * 2,
            seen=("no results for 'flaky test'", "WARNING"),
            errors=(False, False),
        ),
    ),
    Scenario(
        name="tool exception",
        proposals=({"name": "crash", "params": {"step": "deploy"}},),
        expect=Expect(
            ran=(("crash", {"step": "deploy"}),), seen=("disk full while deploy",), errors=(True,)
        ),
    ),
]


# -- the check -----------------------------------------------------------------------------------


def check(scenario: Scenario, driver: Driver, *, workdir: Path, is_async: bool = False) -> None:
    """Run ``scenario`` through ``driver`` on a fresh runtime and assert everything it expects."""
    ran: list[tuple[str, dict[str, Any]]] = []
    asked: list[dict[str, Any]] = []
    answers = list(scenario.answers)

    def next_answer(view: Mapping[str, Any]) -> Mapping[str, Any]:
        asked.append(dict(view["params"]))
        assert answers, f"{scenario.name}: asked a human more often than the scenario answers"
        return answers.pop(0)

    def inline_approver(pending: PendingApproval) -> ApprovalDecision:
        answer = next_answer(approval_view(pending))
        return ApprovalDecision(**answer)

    recorder = EventRecorder()
    runtime = Runtime(
        plugins=[*scenario.plugins(), recorder],
        config=scenario.config(workdir),
        approver=driver.approver() if scenario.pauses else inline_approver,
        load_entrypoints=False,
    )
    try:
        tools = make_tools(ran)
        proposals = [dict(p) for p in scenario.proposals]
        if is_async:
            transcript = asyncio.run(driver.arun(runtime, tools, proposals, next_answer))
        else:
            transcript = driver.run(runtime, tools, proposals, next_answer)
    finally:
        runtime.close()
    _assert_transcript(scenario, transcript, ran, asked, answers)
    _assert_one_call_each(scenario, recorder)


def _assert_transcript(
    scenario: Scenario,
    transcript: Transcript,
    ran: list[tuple[str, dict[str, Any]]],
    asked: list[dict[str, Any]],
    unused_answers: list[dict[str, Any]],
) -> None:
    expect, name = scenario.expect, scenario.name
    messages = transcript.messages
    assert len(expect.seen) == len(expect.errors) == len(scenario.proposals), name
    assert [m.tool for m in messages] == [p["name"] for p in scenario.proposals], (
        f"{name}: the model was given results for {[m.tool for m in messages]}"
    )
    for message, text, is_error in zip(messages, expect.seen, expect.errors, strict=True):
        assert text in message.content, f"{name}: {text!r} not in {message.content!r}"
        assert message.is_error is is_error, f"{name}: is_error={message.is_error} for {message}"
    for message in messages:
        for secret in expect.never_seen:
            assert secret not in message.content, f"{name}: the model saw {secret!r}"
    assert ran == list(expect.ran), f"{name}: the tools ran as {ran}"
    assert asked == list(expect.asked), f"{name}: the human was shown {asked}"
    assert not unused_answers, f"{name}: answers never asked for: {unused_answers}"
    assert transcript.offered, f"{name}: the driver reported no model turn"
    for offered in transcript.offered:
        assert not (offered & expect.hidden), f"{name}: the model was shown {offered}"


def _assert_one_call_each(scenario: Scenario, recorder: EventRecorder) -> None:
    by_call: dict[str | None, list[str]] = {}
    for event in recorder.events:
        by_call.setdefault(event.call_id, []).append(event.event)
    assert len(by_call) == len(scenario.proposals), (
        f"{scenario.name}: {len(by_call)} call ids for {len(scenario.proposals)} proposals"
    )
    for call_id, names in by_call.items():
        assert names.count("tool.proposed") == 1, f"{scenario.name}: {call_id}: {names}"
        assert names.count("tool.injected") == 1, f"{scenario.name}: {call_id}: {names}"
        assert names[-1] == "tool.injected", f"{scenario.name}: {call_id}: {names}"


__all__ = [
    "SCENARIOS",
    "Answer",
    "AskBeforeWrites",
    "Driver",
    "Expect",
    "HideBranchDeletes",
    "NoSystemWrites",
    "RedactSecrets",
    "Scenario",
    "ToolMessage",
    "Transcript",
    "WorkspacePaths",
    "approval_view",
    "check",
    "make_tools",
]
