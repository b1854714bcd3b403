"""What the policy decided about one call, read from its events, and how two decisions differ.

The same reading serves both sides: the recorded events (lines of the log) and the events of the
call run again (``Event`` objects, as the same dicts). So a config that did not change gives the
same decision, whatever the events spell.

A decision is about the call *as proposed*: the before chain's first pass. What a person did
after an approval was asked (allowed, denied, edited and had the chain run again) is their
answer, not the policy's, and is not compared. It is:

- the verdict: ``ok``, ``blocked`` (by a plugin, or ``toolhooks`` for the core's own checks) or
  ``approval`` (a plugin asked for one);
- the fields plugins rewrote, with the plugin that wrote each last (and the value, when the call
  ran: then the log has the params that ran);
- the warnings emitted (``loop.warning`` is the ``loop`` warning of loop_detection).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..events._names import (
    APPROVAL_DEFERRED,
    APPROVAL_EDITED,
    APPROVAL_REQUESTED,
    APPROVAL_RESOLVED,
    HOOK_DECISION,
    TOOL_BLOCKED,
    TOOL_FINISHED,
    TOOL_INJECTED,
    TOOL_STARTED,
)

CORE = "toolhooks"
"""The name the core's own checks block with (an invalid call, invalid params)."""
_FIRST_PASS_ENDS = ("approval.", TOOL_STARTED)
EVENTS = frozenset(
    {
        HOOK_DECISION,
        TOOL_BLOCKED,
        TOOL_STARTED,
        TOOL_FINISHED,
        TOOL_INJECTED,
        APPROVAL_REQUESTED,
        APPROVAL_RESOLVED,
        APPROVAL_DEFERRED,
        APPROVAL_EDITED,
    }
)
"""The events a decision (and the stand-in for the tool) is read from, besides ``*.warning``."""


def wanted(name: str) -> bool:
    """An event the reading needs (the rest of a call's events are not kept)."""
    return name in EVENTS or name.endswith(".warning")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainAnswer:
    """The policy's answer to one proposed call."""

    verdict: str
    """``ok``, ``blocked`` or ``approval``."""
    by: str | None = None
    """The plugin that blocked it or asked for the approval."""
    rewritten: tuple[tuple[str, str], ...] = ()
    """(field, plugin) for every field a plugin rewrote, sorted."""
    values: Mapping[str, Any] | None = None
    """The rewritten fields' values as they ran; None when the call did not run unasked."""
    warnings: tuple[tuple[str, str], ...] = ()
    """(kind, plugin) for every ``<kind>.warning`` event, sorted."""

    @property
    def label(self) -> str:
        """``ok``, ``blocked by X``, ``needs approval from X``, then ``+ rewritten F`` and
        ``+ loop warning`` when there are any."""
        if self.verdict == "blocked":
            parts = [f"blocked by {self.by or '?'}"]
        elif self.verdict == "approval":
            parts = [f"needs approval from {self.by or '?'}"]
        else:
            parts = ["ok"]
        if self.rewritten:
            parts.append("rewritten " + ", ".join(field for field, _ in self.rewritten))
        parts += [f"{kind} warning" for kind, _ in self.warnings]
        return " + ".join(parts)


def decision_of(events: Iterable[Mapping[str, Any]]) -> ChainAnswer:
    """The decision the events of one call show (events as log lines: ``event``, ``plugin`` and
    the data's keys at the top)."""
    reading = _FirstPass()
    for event in events:
        name = event.get("event")
        if isinstance(name, str):
            reading.read(name, event)
    return reading.decision()


class _FirstPass:
    """What the before chain's first pass over one call showed, read event by event."""

    __slots__ = ("approver", "blocked_by", "fields", "open", "ran", "warnings")

    def __init__(self) -> None:
        self.blocked_by: str | None = None
        self.approver: str | None = None
        self.fields: dict[str, str] = {}
        self.warnings: set[tuple[str, str]] = set()
        self.ran: Mapping[str, Any] | None = None
        self.open = True
        """False once the first pass ended (a block, an approval's events, the tool starting)."""

    def read(self, name: str, event: Mapping[str, Any]) -> None:
        if name == TOOL_STARTED and self.open:
            params = event.get("params")
            self.ran = params if isinstance(params, Mapping) else None
        if name.startswith(_FIRST_PASS_ENDS):
            self.open = False
        if not self.open:
            return
        plugin = str(event.get("plugin") or "?")
        if name == TOOL_BLOCKED:
            self.blocked_by = str(event.get("by") or plugin)
            self.open = False
        elif name == HOOK_DECISION:
            self._hook_decision(event, plugin)
        elif name.endswith(".warning"):
            self.warnings.add((name[: -len(".warning")], plugin))

    def _hook_decision(self, event: Mapping[str, Any], plugin: str) -> None:
        if event.get("applied") is False or event.get("hook", "before_tool_call") != (
            "before_tool_call"
        ):
            return  # audit mode, or an after hook: not a decision about the proposal
        if event.get("require_approval") and self.approver is None:
            self.approver = plugin
        changed = event.get("params")
        if isinstance(changed, (list, tuple)):
            self.fields.update((str(field), plugin) for field in changed)

    def decision(self) -> ChainAnswer:
        if self.blocked_by is not None:
            verdict, by = "blocked", self.blocked_by
        elif self.approver is not None:
            verdict, by = "approval", self.approver
        else:
            verdict, by = "ok", None
        values = None
        if self.ran is not None and verdict == "ok":
            values = {field: self.ran.get(field) for field in self.fields}
        return ChainAnswer(
            verdict=verdict,
            by=by,
            rewritten=tuple(sorted(self.fields.items())),
            values=values,
            warnings=tuple(sorted(self.warnings)),
        )


def core_checks_stand(before: ChainAnswer, after: ChainAnswer) -> ChainAnswer:
    """``after``, unless the core blocked the recorded call and the new chain lets it through:
    the core's own checks (the tool's schema above all) are not in the log, and they did not
    change with the config, so that block stands."""
    if before.verdict == "blocked" and before.by == CORE and after.verdict == "ok":
        return ChainAnswer(
            verdict="blocked",
            by=CORE,
            rewritten=after.rewritten,
            values=None,
            warnings=after.warnings,
        )
    return after


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One way a decision changed, and the plugins it is about."""

    kind: str
    plugins: tuple[str, ...]
    detail: str = ""


def changes(before: ChainAnswer, after: ChainAnswer) -> list[Change]:
    """How ``after`` differs from ``before``; empty when the policy answers the same.

    Kinds: ``<verdict> -> <verdict>`` (``ok -> blocked``, ``blocked -> approval``, ...),
    ``blocked by another plugin``, ``approval from another plugin``, ``rewrite added``,
    ``rewrite removed``, ``rewrite changed`` (another plugin, or another value),
    ``<kind> warning added`` and ``<kind> warning removed``.
    """
    found: list[Change] = []
    if before.verdict != after.verdict:
        plugins = _names(before.by, after.by)
        found.append(Change(kind=f"{before.verdict} -> {after.verdict}", plugins=plugins))
    elif before.by != after.by:
        kind = (
            "blocked by another plugin"
            if after.verdict == "blocked"
            else ("approval from another plugin")
        )
        found.append(Change(kind=kind, plugins=_names(before.by, after.by)))
    old, new = dict(before.rewritten), dict(after.rewritten)
    for field in sorted(old.keys() | new.keys()):
        if field not in old:
            found.append(Change(kind="rewrite added", plugins=(new[field],), detail=field))
        elif field not in new:
            found.append(Change(kind="rewrite removed", plugins=(old[field],), detail=field))
        elif old[field] != new[field]:
            plugins = _names(old[field], new[field])
            found.append(Change(kind="rewrite changed", plugins=plugins, detail=field))
        elif (
            before.values is not None
            and after.values is not None
            and before.values.get(field) != after.values.get(field)
        ):
            detail = (
                f"{field}: {_short(before.values.get(field))} -> {_short(after.values.get(field))}"
            )
            found.append(Change(kind="rewrite changed", plugins=(new[field],), detail=detail))
    old_warnings, new_warnings = set(before.warnings), set(after.warnings)
    for kind, plugin in sorted(new_warnings - old_warnings):
        found.append(Change(kind=f"{kind} warning added", plugins=(plugin,)))
    for kind, plugin in sorted(old_warnings - new_warnings):
        found.append(Change(kind=f"{kind} warning removed", plugins=(plugin,)))
    return found


def _names(*names: str | None) -> tuple[str, ...]:
    return tuple(sorted({name for name in names if name}))


def _short(value: Any, limit: int = 40) -> str:
    text = f'"{value}"' if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
