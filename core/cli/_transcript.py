"""Recorded tool calls (a transcript) fed through a real runtime without running any tool.

A transcript is JSON Lines: one object per call, in the order the agent made them::

    {"name": "exec", "params": {"command": "rm -rf build"}, "session_id": "s1",
     "result": "removed 12 files", "approve": "allow-once"}

Keys: ``name`` (required), ``params``, and the other :class:`~toolhooks.ToolCall` fields
(``id``, ``session_id``, ``run_id``, ``trace_id``, ``agent_id``, ``sender``, ``origin``,
``context_window_tokens``); ``result`` (any JSON: what the tool returned) or ``error`` (a string:
the tool failed with it); ``approve`` (``allow-once`` / ``allow-always`` / ``deny``: the answer
when a hook asks for an approval); ``note`` (free text, ignored). Other keys are errors, so a
typo never silently changes a call. Blank lines are skipped.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._events import Event
from .._hookimpl import hookimpl
from .._results import DECISIONS, ApprovalDecision, PendingApproval

CALL_KEYS = (
    "name",
    "params",
    "id",
    "session_id",
    "run_id",
    "trace_id",
    "agent_id",
    "sender",
    "origin",
    "context_window_tokens",
)
EXTRA_KEYS = ("result", "error", "approve", "note")
KEPT_EVENTS = frozenset(
    {
        "hook.decision",
        "hook.error",
        "params.conflict",
        "tool.blocked",
        "approval.requested",
        "approval.resolved",
        "result.trimmed",
        "loop.warning",
        "loop.critical",
        "policy.denied",
    }
)


class ToolError(Exception):
    """The recorded failure of a tool (a transcript line's ``error``)."""


@dataclass
class Line:
    """One valid transcript line: the call to make and what the tool answered."""

    number: int
    call: dict[str, Any]
    result: Any = None
    error: str | None = None
    approve: str | None = None
    note: str | None = None

    def execute(self, _params: dict[str, Any]) -> Any:
        """Stands in for the tool: returns the recorded result or raises the recorded error."""
        if self.error is not None:
            raise ToolError(self.error)
        return self.result


@dataclass
class Transcript:
    lines: list[Line] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)


def parse_line(number: int, text: str, prefix: str) -> Line:
    """One line of a transcript; ValueError says what is wrong with it."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    unknown = [key for key in data if key not in CALL_KEYS and key not in EXTRA_KEYS]
    if unknown:
        raise ValueError(
            f"unknown key {unknown[0]!r} (expected {', '.join(CALL_KEYS + EXTRA_KEYS)})"
        )
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise ValueError("'name' must be a non-empty string")
    if "params" in data and not isinstance(data["params"], dict):
        raise ValueError("'params' must be an object")
    error, approve, note = data.get("error"), data.get("approve"), data.get("note")
    if error is not None and not isinstance(error, str):
        raise ValueError("'error' must be a string")
    if "error" in data and "result" in data:
        raise ValueError("give 'result' or 'error', not both")
    if approve is not None and approve not in DECISIONS:
        raise ValueError(f"'approve' must be one of {', '.join(DECISIONS)}, got {approve!r}")
    call = {key: data[key] for key in CALL_KEYS if key in data}
    call.setdefault("id", f"{prefix}-{number:04d}")
    return Line(
        number, call, data.get("result"), error, approve, note if isinstance(note, str) else None
    )


def read_transcript(lines: Iterable[str], prefix: str | None = None) -> Transcript:
    """Every line parsed; bad lines are collected as (line number, problem), not raised."""
    prefix = prefix or f"replay-{secrets.token_hex(3)}"
    transcript = Transcript()
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            transcript.lines.append(parse_line(number, text, prefix))
        except ValueError as exc:
            transcript.errors.append((number, str(exc)))
    return transcript


def load_transcript(path: Path, prefix: str | None = None) -> Transcript:
    """Read a transcript file; OSError and UnicodeDecodeError are the caller's to report."""
    with path.open(encoding="utf-8") as handle:
        return read_transcript(handle, prefix)


class Answers:
    """The approver: answers each approval with the ``approve`` of the call's transcript line."""

    def __init__(self, default: str = "deny", by: str = "transcript") -> None:
        self.default = default
        self.by = by
        self.by_call: dict[str, str] = {}
        self.asked: list[str] = []

    def expect(self, line: Line) -> None:
        if line.approve is not None:
            self.by_call[str(line.call["id"])] = line.approve

    def __call__(self, pending: PendingApproval) -> ApprovalDecision:
        self.asked.append(pending.call.id)
        decision = self.by_call.pop(pending.call.id, None)
        if decision is None:
            return ApprovalDecision(self.default, by=f"{self.by} (default answer)")
        return ApprovalDecision(decision, by=self.by)


class Recorder:
    """An ``on_event`` plugin keeping the events a decision is explained by, per call."""

    name = "toolhooks-cli-recorder"

    def __init__(self) -> None:
        self.events: dict[str, list[Event]] = {}
        self.total = 0

    @hookimpl
    def on_event(self, event: Event) -> None:
        self.total += 1
        if event.event in KEPT_EVENTS:
            self.events.setdefault(event.call_id, []).append(event)

    def take(self, call_id: str) -> list[Event]:
        return self.events.pop(call_id, [])


def run_lines(
    runtime: Any,
    lines: Iterable[Line],
    answers: Answers,
    recorder: Recorder,
    on_result: Callable[[Line, Any, list[Event]], None],
) -> None:
    """Each line through ``runtime.call`` with its recorded result standing in for the tool."""
    for line in lines:
        answers.expect(line)
        outcome = runtime.call(line.call, execute=line.execute)
        on_result(line, outcome, recorder.take(outcome.call_id))
