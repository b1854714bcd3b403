"""Recorded tool calls (a transcript) fed through a real runtime without running any tool.

A transcript is JSON Lines: one object per call, in the order the agent made them::

    {"name": "exec", "params": {"command": "rm -rf build"}, "session_id": "s1",
     "result": "removed 12 files", "approve": "allow-once"}

Keys: ``name`` (required), ``params``, and the other :class:`~toolhooks.ToolCall` fields
(``id``, ``session_id``, ``run_id``, ``trace_id``, ``agent_id``, ``sender``, ``origin``,
``context_window_tokens``); ``result`` (any JSON: what the tool returned) or ``error`` (a string:
the tool failed with it); ``approve`` (``allow-once`` / ``allow-always`` / ``deny`` / ``edit`` /
``defer``: the answer when a hook asks for an approval); ``edit`` (with ``"approve": "edit"``:
the whole params the person wants to run instead); ``note`` (free text, ignored). Other keys are
errors, so a typo never silently changes a call. Blank lines are skipped.

What the user said is a line of its own, the session's trusted input (``Runtime.trust``)::

    {"user": "Pay the bill in bill.txt", "session_id": "s1"}

with ``user`` (the text), ``session_id`` and ``note``, nothing else.

A call answered ``defer`` pauses (its outcome is "pending"). A later line resumes it::

    {"resume": 3, "approve": "allow-once"}

``resume`` is the number of the paused call's line; ``approve`` (and ``edit``) the decision it is
resumed with, ``note`` optional, nothing else: the call, its result and its id are the paused
line's.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..events._events import Event
from ..events._names import (
    APPROVAL_DEFERRED,
    APPROVAL_EDITED,
    APPROVAL_REQUESTED,
    APPROVAL_RESOLVED,
    HOOK_DECISION,
    HOOK_ERROR,
    LOOP_CRITICAL,
    LOOP_WARNING,
    PARAMS_CONFLICT,
    POLICY_DENIED,
    RESULT_TRIMMED,
    RULES_MATCHED,
    SCAN_FINDING,
    TOOL_BLOCKED,
)
from ..records._call_fields import MAPPING_FIELDS
from ..records._decisions import ApprovalDecision
from ..records._results import DECISIONS, PendingApproval
from ..registry._hookimpl import hookimpl

CALL_KEYS = MAPPING_FIELDS
EXTRA_KEYS = ("result", "error", "approve", "edit", "note")
RESUME_KEYS = ("resume", "approve", "edit", "note")
USER_KEYS = ("user", "session_id", "note")
KEPT_EVENTS = frozenset(
    {
        HOOK_DECISION,
        HOOK_ERROR,
        PARAMS_CONFLICT,
        TOOL_BLOCKED,
        APPROVAL_REQUESTED,
        APPROVAL_DEFERRED,
        APPROVAL_RESOLVED,
        APPROVAL_EDITED,
        RESULT_TRIMMED,
        LOOP_WARNING,
        LOOP_CRITICAL,
        POLICY_DENIED,
        RULES_MATCHED,
        SCAN_FINDING,
    }
)


class RecordedFailure(Exception):
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
    edit: dict[str, Any] | None = None
    """With ``approve`` "edit": the params the person runs instead."""
    resume: int | None = None
    """A resume line: the number of the line whose paused call it finishes."""
    user: str | None = None
    """A user line: what the user said in session ``call["session_id"]`` (trusted input)."""

    def execute(self, _params: dict[str, Any]) -> Any:
        """Stands in for the tool: returns the recorded result or raises the recorded error."""
        if self.error is not None:
            raise RecordedFailure(self.error)
        return self.result


@dataclass
class Transcript:
    lines: list[Line] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)


def _answer(data: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """A line's ``approve`` and ``edit``, checked together."""
    approve, edit = data.get("approve"), data.get("edit")
    if approve is not None and approve not in DECISIONS:
        raise ValueError(f"'approve' must be one of {', '.join(DECISIONS)}, got {approve!r}")
    if approve == "edit" and not isinstance(edit, dict):
        raise ValueError("'approve': 'edit' needs 'edit': the params to run, as an object")
    if "edit" in data and approve != "edit":
        raise ValueError("'edit' goes with 'approve': 'edit'")
    return approve, edit


def parse_line(number: int, text: str, prefix: str) -> Line:
    """One line of a transcript; ValueError says what is wrong with it."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    if "resume" in data:
        return _resume_line(number, data)
    if "user" in data:
        return _user_line(number, data)
    unknown = [key for key in data if key not in CALL_KEYS and key not in EXTRA_KEYS]
    if unknown:
        raise ValueError(
            f"unknown key {unknown[0]!r} (expected {', '.join(CALL_KEYS + EXTRA_KEYS)})"
        )
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise ValueError("'name' must be a non-empty string")
    if "params" in data and not isinstance(data["params"], dict):
        raise ValueError("'params' must be an object")
    error, note = data.get("error"), data.get("note")
    if error is not None and not isinstance(error, str):
        raise ValueError("'error' must be a string")
    if "error" in data and "result" in data:
        raise ValueError("give 'result' or 'error', not both")
    approve, edit = _answer(data)
    call = {key: data[key] for key in CALL_KEYS if key in data}
    call.setdefault("id", f"{prefix}-{number:04d}")
    note = note if isinstance(note, str) else None
    return Line(number, call, data.get("result"), error, approve, note, edit)


def _resume_line(number: int, data: dict[str, Any]) -> Line:
    unknown = [key for key in data if key not in RESUME_KEYS]
    if unknown:
        raise ValueError(
            f"unknown key {unknown[0]!r} in a resume line (expected {', '.join(RESUME_KEYS)})"
        )
    target = data["resume"]
    if type(target) is not int or not 0 < target < number:
        raise ValueError("'resume' must be the number of an earlier line")
    approve, edit = _answer(data)
    if approve is None or approve == "defer":
        raise ValueError("a resume line needs 'approve': the decision to resume the call with")
    note = data.get("note")
    note = note if isinstance(note, str) else None
    return Line(number, {}, approve=approve, note=note, edit=edit, resume=target)


def _user_line(number: int, data: dict[str, Any]) -> Line:
    unknown = [key for key in data if key not in USER_KEYS]
    if unknown:
        raise ValueError(
            f"unknown key {unknown[0]!r} in a user line (expected {', '.join(USER_KEYS)})"
        )
    text, session = data["user"], data.get("session_id")
    if not isinstance(text, str) or not text:
        raise ValueError("'user' must be a non-empty string: what the user said")
    if session is not None and not isinstance(session, str):
        raise ValueError("'session_id' must be a string")
    call = {} if session is None else {"session_id": session}
    return Line(number, call, user=text)


def read_transcript(lines: Iterable[str], prefix: str | None = None) -> Transcript:
    """Every line parsed; bad lines are collected as (line number, problem), not raised."""
    prefix = prefix or f"replay-{secrets.token_hex(3)}"
    transcript = Transcript()
    deferred: set[int] = set()  # lines answered "defer"
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            line = parse_line(number, text, prefix)
            if line.resume is not None:
                if line.resume not in deferred:
                    raise ValueError(f"'resume': line {line.resume} is not a call answered 'defer'")
            elif line.approve == "defer":
                deferred.add(number)
            transcript.lines.append(line)
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
        self.by_call: dict[str, Line] = {}
        self.asked: list[str] = []

    def expect(self, line: Line) -> None:
        if line.approve is not None:
            self.by_call[str(line.call["id"])] = line

    def __call__(self, pending: PendingApproval) -> ApprovalDecision:
        self.asked.append(pending.call.id)
        line = self.by_call.pop(pending.call.id, None)
        if line is None or line.approve is None:
            return ApprovalDecision(self.default, by=f"{self.by} (default answer)")
        return ApprovalDecision(line.approve, by=self.by, params=line.edit)


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
    errors: list[tuple[int, str]],
) -> None:
    """Each line through ``runtime.call`` with its recorded result standing in for the tool.

    A resume line finishes its paused call with ``runtime.resume``. A paused call's events stay
    with the recorder until then, so the final decision is explained by the whole story. A
    resume line whose call is not paused (a hook blocked it first, or an earlier resume line
    finished it) is added to ``errors``.
    """
    paused: dict[int, tuple[Line, str]] = {}
    for line in lines:
        if line.user is not None:
            runtime.trust(line.call.get("session_id"), line.user)
            continue
        if line.resume is not None:
            held = paused.pop(line.resume, None)
            if held is None:
                errors.append((line.number, f"'resume': line {line.resume}'s call is not paused"))
                continue
            source, approval_id = held
            outcome = runtime.resume(
                approval_id,
                line.approve,
                params=line.edit,
                execute=source.execute,
                by=answers.by,
            )
        else:
            source = line
            answers.expect(line)
            outcome = runtime.call(line.call, execute=line.execute)
        if outcome.pending is not None:  # an edit may lead to another approval: still paused
            paused[source.number] = (source, outcome.pending.id)
            on_result(line, outcome, list(recorder.events.get(outcome.call_id, ())))
        else:
            on_result(line, outcome, recorder.take(outcome.call_id))
