"""One line saying what a logged event means, for ``toolhooks logs`` and a call's timeline: each
event's own fields in words, every caller-controlled value escaped and cut to fit."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..events._names import (
    APPROVAL_IGNORED,
    APPROVAL_REQUESTED,
    APPROVAL_RESOLVED,
    HOOK_DECISION,
    HOOK_ERROR,
    LOOP_CRITICAL,
    LOOP_WARNING,
    PARAMS_CONFLICT,
    PARAMS_FROZEN_IGNORED,
    POLICY_DENIED,
    RESULT_TRIMMED,
    TOOL_BLOCKED,
    TOOL_FINISHED,
    TOOL_INJECTED,
    TOOL_PROPOSED,
)
from ._table import clean, cut

ENVELOPE = ("ts", "event", "trace_id", "call_id", "session_id", "tool", "plugin")
"""The fields every event has; a summary shows the rest."""


def _short(value: Any, width: int = 100, full: bool = False) -> str:
    """One field of a summary, cut to ``width`` cells unless ``full``."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return clean(text) if full else cut(clean(text), width)


def summarize(event: dict[str, Any], full: bool = False) -> str:
    """One line saying what the event means (its stage's fields); ``full``: no field is cut."""

    def short(value: Any, width: int = 100) -> str:
        return _short(value, width, full)

    data = {key: value for key, value in event.items() if key not in ENVELOPE}
    line = _LINES.get(str(event.get("event")))
    if line is None:
        return " ".join(f"{key}={short(value, 60)}" for key, value in data.items())
    return line(data, short)


_Short = Callable[..., str]


def _proposed(data: dict[str, Any], short: _Short) -> str:
    extra = [
        f"{key}={data.get(key)}"
        for key in ("origin", "agent_id", "sender")
        if data.get(key) not in (None, "agent")
    ]
    return " ".join([f"params={short(data.get('params', {}))}", *extra])


def _resolved(data: dict[str, Any], short: _Short) -> str:
    get = data.get
    how = " (remembered)" if get("remembered") else ""
    who = f" by {get('by')}" if get("by") else ""
    why = f": {short(get('reason'))}" if get("reason") else ""
    return f"{get('decision')}{how}{who}{why}"


def _finished(data: dict[str, Any], short: _Short) -> str:
    error = f" {short(data.get('error'))}" if data.get("error") else ""
    return f"{data.get('status')} in {data.get('duration_ms')} ms{error}"


def _injected(data: dict[str, Any], short: _Short) -> str:
    get = data.get
    trimmed = f", truncated, artifact {get('artifact')}" if get("truncated") else ""
    return f"{get('status')}, {get('chars')} chars{trimmed}{_quiet(get('quiet'), short)}"


def _conflict(data: dict[str, Any], short: _Short) -> str:
    return f"field {data.get('field')!r} written by {' then '.join(map(str, data.get('plugins') or []))}"


def _loop(data: dict[str, Any], short: _Short) -> str:
    return f"{data.get('detector')} count {data.get('count')}: {short(data.get('message'), 140)}"


def _quiet(quiet: Any, short: Callable[..., str] = _short) -> str:
    """tool.injected's handlers that had no opinion, in chain order: ``; quiet: a (before ...)``."""
    if not isinstance(quiet, list) or not quiet:
        return ""
    shown = []
    for entry in quiet:
        if not isinstance(entry, dict):
            continue
        hook = "after" if entry.get("hook") == "after_tool_call" else "before"
        shown.append(
            f"{short(entry.get('plugin'), 60)} ({hook} {short(entry.get('latency_ms'), 20)} ms)"
        )
    return f"; quiet: {', '.join(shown)}" if shown else ""


def _decision(data: dict[str, Any], short: Callable[..., str] = _short) -> str:
    hook = "after" if data.get("hook") == "after_tool_call" else "before"
    if "returned" in data:
        said = "no opinion" if data["returned"] is None else str(data["returned"])
    else:
        parts = []
        if data.get("block"):
            parts.append(f"block: {short(data.get('block_reason'), 120)}")
        if data.get("params"):
            parts.append(f"params {','.join(map(str, data['params']))}")
        if data.get("require_approval"):
            parts.append(f"asks approval {short(data['require_approval'], 60)!r}")
        for key in ("content", "value", "truncated"):
            if data.get(key) is True:
                parts.append(f"changed {key}" if key != "truncated" else "truncated")
        if data.get("note"):
            parts.append(f"note {short(data['note'], 80)!r}")
        if data.get("labels"):
            parts.append(f"labels {', '.join(map(str, data['labels']))}")
        said = "; ".join(parts) or "no change"
    audit = " (audit: not applied)" if data.get("applied") is False else ""
    return f"{hook}: {said}{audit}"


_LINES: dict[str, Callable[[dict[str, Any], _Short], str]] = {
    TOOL_PROPOSED: _proposed,
    HOOK_DECISION: _decision,
    HOOK_ERROR: lambda data, short: (
        f"{data.get('hook')} failed: {short(data.get('error'))} (on_error={data.get('on_error')})"
    ),
    PARAMS_CONFLICT: _conflict,
    PARAMS_FROZEN_IGNORED: lambda data, short: (
        f"ignored params {data.get('fields')} (frozen by {data.get('approval_plugin')}'s approval)"
    ),
    APPROVAL_IGNORED: lambda data, short: (
        f"ignored request {short(data.get('title'))!r} ({data.get('approval_plugin')} asked first)"
    ),
    TOOL_BLOCKED: lambda data, short: (
        f"blocked by {data.get('by')}: {short(data.get('reason'), 140)}"
    ),
    APPROVAL_REQUESTED: lambda data, short: (
        f"{data.get('severity')}: {short(data.get('title'))!r} (id {data.get('approval_id')})"
    ),
    APPROVAL_RESOLVED: _resolved,
    TOOL_FINISHED: _finished,
    RESULT_TRIMMED: lambda data, short: (
        f"{data.get('original_chars')} -> {data.get('kept_chars')} chars ({data.get('mode')}), "
        f"artifact {data.get('artifact')}"
    ),
    LOOP_WARNING: _loop,
    LOOP_CRITICAL: _loop,
    TOOL_INJECTED: _injected,
    POLICY_DENIED: lambda data, short: f"rule {data.get('rule')} ({short(data.get('detail'))})",
}
"""Each event kind's line (an event of another kind shows its fields as ``key=value``)."""
