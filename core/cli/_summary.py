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

    name = event.get("event")
    data = {key: value for key, value in event.items() if key not in ENVELOPE}
    get = data.get
    if name == TOOL_PROPOSED:
        extra = [
            f"{key}={get(key)}"
            for key in ("origin", "agent_id", "sender")
            if get(key) not in (None, "agent")
        ]
        return " ".join([f"params={short(get('params', {}))}", *extra])
    if name == HOOK_DECISION:
        return _decision(data, short)
    if name == HOOK_ERROR:
        return f"{get('hook')} failed: {short(get('error'))} (on_error={get('on_error')})"
    if name == PARAMS_CONFLICT:
        return f"field {get('field')!r} written by {' then '.join(map(str, get('plugins') or []))}"
    if name == PARAMS_FROZEN_IGNORED:
        return f"ignored params {get('fields')} (frozen by {get('approval_plugin')}'s approval)"
    if name == APPROVAL_IGNORED:
        return f"ignored request {short(get('title'))!r} ({get('approval_plugin')} asked first)"
    if name == TOOL_BLOCKED:
        return f"blocked by {get('by')}: {short(get('reason'), 140)}"
    if name == APPROVAL_REQUESTED:
        return f"{get('severity')}: {short(get('title'))!r} (id {get('approval_id')})"
    if name == APPROVAL_RESOLVED:
        how = " (remembered)" if get("remembered") else ""
        who = f" by {get('by')}" if get("by") else ""
        why = f": {short(get('reason'))}" if get("reason") else ""
        return f"{get('decision')}{how}{who}{why}"
    if name == TOOL_FINISHED:
        error = f" {short(get('error'))}" if get("error") else ""
        return f"{get('status')} in {get('duration_ms')} ms{error}"
    if name == RESULT_TRIMMED:
        return f"{get('original_chars')} -> {get('kept_chars')} chars ({get('mode')}), artifact {get('artifact')}"
    if name in (LOOP_WARNING, LOOP_CRITICAL):
        return f"{get('detector')} count {get('count')}: {short(get('message'), 140)}"
    if name == TOOL_INJECTED:
        trimmed = f", truncated, artifact {get('artifact')}" if get("truncated") else ""
        return f"{get('status')}, {get('chars')} chars{trimmed}{_quiet(get('quiet'), short)}"
    if name == POLICY_DENIED:
        return f"rule {get('rule')} ({short(get('detail'))})"
    return " ".join(f"{key}={short(value, 60)}" for key, value in data.items())


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
        said = "; ".join(parts) or "no change"
    audit = " (audit: not applied)" if data.get("applied") is False else ""
    return f"{hook}: {said}{audit}"
