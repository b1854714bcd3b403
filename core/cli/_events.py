"""Filtering logged events and printing them for a person: one heading per call, one line each."""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, TextIO

from ._table import clean, cut

ENVELOPE = ("ts", "event", "trace_id", "call_id", "session_id", "tool", "plugin")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
EVENT_WIDTH = 21
PLUGIN_WIDTH = 16
DETAIL_WIDTH = 160


def parse_since(text: str) -> float:
    """``30s``, ``10m``, ``2h``, ``1d``, ``1w`` ago, or an ISO date / date and time, as epoch seconds."""
    value = text.strip().lower()
    match = _DURATION.fullmatch(value)
    if match:
        return time.time() - float(match.group(1)) * UNITS[match.group(2)]
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a duration (30s, 10m, 2h, 1d) nor an ISO date and time"
        ) from None
    return moment.timestamp()


def _pattern(names: Sequence[str]) -> re.Pattern[str] | None:
    parts = [part.strip() for name in names for part in name.split(",") if part.strip()]
    if not parts:
        return None
    alternatives = "|".join(
        ".*".join(re.escape(piece) for piece in part.split("*")) for part in parts
    )
    return re.compile(f"(?:{alternatives})\\Z")


class EventFilter:
    """Keeps events matching every given criterion; ids match exactly or by prefix."""

    def __init__(self, trace: str | None, call: str | None, session: str | None,
                 since: float | None, events: Sequence[str]) -> None:  # fmt: skip
        self.trace = trace
        self.call = call
        self.session = session
        self.since = since
        self.events = _pattern(events)

    def __call__(self, event: dict[str, Any]) -> bool:
        if self.trace and not str(event.get("trace_id") or "").startswith(self.trace):
            return False
        if self.call and not str(event.get("call_id") or "").startswith(self.call):
            return False
        if self.session is not None and event.get("session_id") != self.session:
            return False
        if self.since is not None:
            ts = event.get("ts")
            if not isinstance(ts, (int, float)) or ts < self.since:
                return False
        return self.events is None or self.events.match(str(event.get("event", ""))) is not None


def _short(value: Any, width: int = 100) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return cut(clean(text), width)


def summarize(event: dict[str, Any]) -> str:
    """One line saying what the event means (its stage's fields)."""
    name = event.get("event")
    data = {key: value for key, value in event.items() if key not in ENVELOPE}
    get = data.get
    if name == "tool.proposed":
        extra = [
            f"{key}={get(key)}"
            for key in ("origin", "agent_id", "sender")
            if get(key) not in (None, "agent")
        ]
        return " ".join([f"params={_short(get('params', {}))}", *extra])
    if name == "hook.decision":
        return _decision(data)
    if name == "hook.error":
        return f"{get('hook')} failed: {_short(get('error'))} (on_error={get('on_error')})"
    if name == "params.conflict":
        return f"field {get('field')!r} written by {' then '.join(map(str, get('plugins') or []))}"
    if name == "params.frozen_ignored":
        return f"ignored params {get('fields')} (frozen by {get('approval_plugin')}'s approval)"
    if name == "approval.ignored":
        return f"ignored request {_short(get('title'))!r} ({get('approval_plugin')} asked first)"
    if name == "tool.blocked":
        return f"blocked by {get('by')}: {_short(get('reason'), 140)}"
    if name == "approval.requested":
        return f"{get('severity')}: {_short(get('title'))!r} (id {get('approval_id')})"
    if name == "approval.resolved":
        how = " (remembered)" if get("remembered") else ""
        who = f" by {get('by')}" if get("by") else ""
        why = f": {_short(get('reason'))}" if get("reason") else ""
        return f"{get('decision')}{how}{who}{why}"
    if name == "tool.finished":
        error = f" {_short(get('error'))}" if get("error") else ""
        return f"{get('status')} in {get('duration_ms')} ms{error}"
    if name == "result.trimmed":
        return f"{get('original_chars')} -> {get('kept_chars')} chars ({get('mode')}), artifact {get('artifact')}"
    if name in ("loop.warning", "loop.critical"):
        return f"{get('detector')} count {get('count')}: {_short(get('message'), 140)}"
    if name == "tool.injected":
        trimmed = f", truncated, artifact {get('artifact')}" if get("truncated") else ""
        return f"{get('status')}, {get('chars')} chars{trimmed}"
    if name == "policy.denied":
        return f"rule {get('rule')} ({_short(get('detail'))})"
    return " ".join(f"{key}={_short(value, 60)}" for key, value in data.items())


def _decision(data: dict[str, Any]) -> str:
    hook = "after" if data.get("hook") == "after_tool_call" else "before"
    if "returned" in data:
        said = "no opinion" if data["returned"] is None else str(data["returned"])
    else:
        parts = []
        if data.get("block"):
            parts.append(f"block: {_short(data.get('block_reason'), 120)}")
        if data.get("params"):
            parts.append(f"params {','.join(map(str, data['params']))}")
        if data.get("require_approval"):
            parts.append(f"asks approval {_short(data['require_approval'], 60)!r}")
        for key in ("content", "value", "truncated"):
            if data.get(key) is True:
                parts.append(f"changed {key}" if key != "truncated" else "truncated")
        if data.get("note"):
            parts.append(f"note {_short(data['note'], 80)!r}")
        said = "; ".join(parts) or "no change"
    audit = " (audit: not applied)" if data.get("applied") is False else ""
    return f"{hook}: {said}{audit}"


def stamp(ts: Any, with_date: bool = True) -> str:
    if not isinstance(ts, (int, float)):
        return "?"
    moment = datetime.fromtimestamp(ts)
    text = moment.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")
    return f"{text}.{moment.microsecond // 1000:03d}"


class GroupedPrinter:
    """Prints a heading when the call changes, then one aligned line per event.

    Events of one call logged together print under one heading; when calls interleave (several
    agents share the log, or while following) the heading is repeated for each run.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.current: str | None = None
        self.first_ts: OrderedDict[str, float] = OrderedDict()
        self.count = 0

    def print(self, event: dict[str, Any]) -> None:
        call = str(event.get("call_id") or "-")
        ts = event.get("ts")
        if call != self.current:
            if self.count:
                self.out.write("\n")
            self.out.write(self.heading(event) + "\n")
            self.current = call
        if call not in self.first_ts and isinstance(ts, (int, float)):
            self.first_ts[call] = ts
            if len(self.first_ts) > 4096:
                self.first_ts.popitem(last=False)
        start = self.first_ts.get(call)
        offset = f"+{(ts - start) * 1000:.1f}ms" if isinstance(ts, (int, float)) and start else "?"
        name = clean(str(event.get("event", "?")))
        plugin = clean(str(event.get("plugin") or ""))
        line = f"  {offset:>10}  {name:<{EVENT_WIDTH}} {plugin:<{PLUGIN_WIDTH}} {cut(clean(summarize(event)), DETAIL_WIDTH)}"
        self.out.write(line.rstrip() + "\n")
        self.count += 1

    def heading(self, event: dict[str, Any]) -> str:
        parts = [f"== {stamp(event.get('ts'))}", clean(str(event.get("tool") or "?")),
                 f"call {clean(event.get('call_id') or '-')}"]  # fmt: skip
        if event.get("session_id"):
            parts.append(f"session {clean(str(event['session_id']))}")
        parts.append(f"trace {clean(event.get('trace_id') or '-')}")
        return "  ".join(parts)

    def finish(self) -> None:
        self.out.flush()
