"""What happened to one call, in words: the decision kinds the demo and replay print.

Kinds (``CallReport.kinds``, in this order): ``resumed`` (a paused call finished by a later line),
``blocked_by_policy``, ``approval_requested_then_blocked``, ``loop_critical``, ``blocked`` (any
other hook, or the core), ``approval_pending`` (deferred: the call waits for a decision),
``approval_denied``, ``approval_granted``, ``approval_edited`` (a person edited the params and
the chain ran again on them), ``rewritten``, ``loop_warning``, ``truncated``, ``result_changed``,
``error`` (the tool failed), ``labelled`` (the session gained labels: the scanners' findings and
the rules' labels), ``allowed`` (ran, nothing else to say). A call the rules plugin decided also
says how its command reads once parsed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..events._events import Event
from ..events._names import RULES_MATCHED, SCAN_FINDING
from ..records._results import Outcome

LABELS = {
    "resumed": "resumed",
    "blocked_by_policy": "blocked by policy",
    "approval_requested_then_blocked": "approval requested, then blocked",
    "loop_critical": "loop critical (blocked)",
    "blocked": "blocked",
    "approval_pending": "approval pending",
    "approval_denied": "approval denied",
    "approval_granted": "approval granted",
    "approval_edited": "approval edited",
    "rewritten": "rewritten",
    "loop_warning": "loop warning",
    "truncated": "truncated",
    "result_changed": "result changed",
    "labelled": "labelled",
    "error": "tool error",
    "allowed": "allowed",
}
ACTIONS = ("blocked", "rewrote", "asked_approval", "warned", "truncated", "changed_result")
_QUIET_AFTER = ("loop_detection", "result_budget")


@dataclass
class CallReport:
    """One call's fate: status, decision kinds, the plugins involved and a sentence per kind."""

    index: int
    line: int
    tool: str
    params: dict[str, Any]
    status: str
    call_id: str
    kinds: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    by: list[str] = field(default_factory=list)
    actions: list[tuple[str, str]] = field(default_factory=list)
    artifact: str | None = None
    note: str | None = None

    @property
    def label(self) -> str:
        return " + ".join(
            f"blocked by {self.by[0]}" if kind == "blocked" and self.by else LABELS[kind]
            for kind in self.kinds
        )

    @property
    def detail(self) -> str:
        return "; ".join(self.details)

    @property
    def detail_lines(self) -> str:
        """The details one per line (what the demo prints under each call)."""
        return "\n".join(self.details)

    def add(
        self, kind: str, detail: str | None, plugin: str | None = None, action: str | None = None
    ) -> None:
        self.kinds.append(kind)
        if detail:
            self.details.append(detail)
        if plugin and plugin not in self.by:
            self.by.append(plugin)
        if plugin and action:
            self.actions.append((plugin, action))

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.line,
            "tool": self.tool,
            "status": self.status,
            "decision": self.label,
            "kinds": list(self.kinds),
            "by": list(self.by),
            "detail": self.detail,
            "call_id": self.call_id,
            "artifact": self.artifact,
            "params": self.params,
        }


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= limit else text[: limit - 3] + "..."


def classify(
    index: int,
    line: int,
    proposed: dict[str, Any],
    outcome: Outcome,
    events: list[Event],
    resumed: int | None = None,
    labels: list[str] | None = None,
    resumed_index: int | None = None,
) -> CallReport:
    """Explain ``outcome`` with the events recorded for its call (``resumed``: the number of the
    line whose paused call this line finished, ``resumed_index`` that call's row number in the
    table, when it has one; ``labels``: what the session gained with it)."""
    decision = CallReport(
        index, line, outcome.tool, dict(outcome.params or proposed), outcome.status, outcome.call_id
    )
    if resumed is not None:
        deferred = _first(events, "approval.deferred")
        which = f" (approval {deferred.data.get('short_id')})" if deferred is not None else ""
        # The table numbers calls, the transcript numbers lines (a user's prompt is a line
        # too): name both, so a reader can find the call in either.
        row = f"#{resumed_index}, " if resumed_index is not None else ""
        decision.add(
            "resumed",
            f"finishes the call of {row}line {resumed} of the transcript{which}, under its call id",
        )
    asked = _approval_asked(events)
    asked_text = f"{asked.plugin} asked {_shown(asked.data['require_approval'])}" if asked else ""
    if outcome.status == "blocked":
        _blocked(decision, outcome, events, asked, asked_text)
    elif outcome.status == "pending" and outcome.pending is not None:
        waiting = f"deferred: approval {outcome.pending.short_id} waits for a decision"
        shown = f"{asked_text}; {waiting}" if asked else waiting
        decision.add("approval_pending", shown, outcome.pending.plugin, "asked_approval")
    elif outcome.status == "denied":
        plugin = asked.plugin if asked else None
        text = f"{asked_text}; {outcome.reason}" if asked else outcome.reason
        decision.add("approval_denied", text, plugin, "asked_approval")
    else:
        _ran(decision, proposed, outcome, events, asked_text, asked.plugin if asked else None)
    _rules_reading(decision, proposed, events)
    _labelled(decision, events, labels or [])
    return decision


def _rules_reading(decision: CallReport, proposed: dict[str, Any], events: list[Event]) -> None:
    """How the rules read a command they decided: a script they cannot see through says why,
    and a command that parses to something else than it was written says what it is
    (``bash -c "r''m -rf src"`` is ``rm -rf src``; ``cd config && cat .env`` reads in config/)."""
    matched = _first(events, RULES_MATCHED)
    command = proposed.get("command")
    if matched is None or not isinstance(command, str):
        return
    if matched.data.get("kind") == "opaque":
        decision.details.append(f"rules: {matched.data.get('matched')}")
        return
    from ..analysis import analyse_script

    given = proposed.get("cwd")
    cwd = given if isinstance(given, str) else "/"
    script = analyse_script(command, cwd=cwd, home="~")
    if script.opaque is not None or not script.commands:
        return
    last = script.commands[-1]
    read = " ".join(word.source if word.text is None else word.text for word in last.argv)
    where = [f"inside {', '.join(last.via)}"] if last.via else []
    where += [f"in {last.cwd}"] if last.cwd != cwd else []
    if read != command:
        shown = f"{read} ({'; '.join(where)})" if where else read
        decision.details.append(f"rules read it as: {shown}")


def _labelled(decision: CallReport, events: list[Event], labels: list[str]) -> None:
    """The scanners' findings on the call, and the labels its session gained."""
    found: dict[str, list[str]] = {}
    for event in events:
        if event.event == SCAN_FINDING:
            kinds = found.setdefault(str(event.data.get("detector")), [])
            if event.data.get("kind") not in kinds:
                kinds.append(str(event.data.get("kind")))
    for detector, kinds in found.items():
        decision.details.append(f"scanners: {detector} found {', '.join(kinds)}")
    if labels:
        if decision.kinds == ["allowed"]:
            decision.kinds.clear()
        decision.add("labelled", f"the session now carries {', '.join(labels)}")


def _first(events: list[Event], name: str) -> Event | None:
    return next((e for e in events if e.event == name), None)


def _approval_asked(events: list[Event]) -> Event | None:
    """The hook decision that asked for approval and was applied, if one did."""
    for event in events:
        data = event.data
        if (
            event.event == "hook.decision"
            and data.get("require_approval")
            and data.get("applied", True)
        ):
            return event
    return None


def _blocked(
    decision: CallReport,
    outcome: Outcome,
    events: list[Event],
    asked: Event | None,
    asked_text: str,
) -> None:
    """Who blocked the call: the policy's rule, a block after an approval request, a loop."""
    by = outcome.blocked_by or "?"
    reason = outcome.reason or outcome.content
    denied = _first(events, "policy.denied")
    critical = _first(events, "loop.critical")
    if by == "policy" and denied is not None:
        rule = f"rule {denied.data.get('rule')}: {denied.data.get('detail')}"
        decision.add("blocked_by_policy", rule, by, "blocked")
    elif asked is not None and asked.plugin != by:
        decision.add(
            "approval_requested_then_blocked",
            f"{asked_text}; {by} blocked it: {reason}",
            asked.plugin,
            "asked_approval",
        )
        decision.by.append(by)
        decision.actions.append((by, "blocked"))
    elif critical is not None and by == critical.plugin:
        decision.add("loop_critical", reason, by, "blocked")
    else:
        decision.add("blocked", reason, by, "blocked")


def _ran(
    decision: CallReport,
    proposed: dict[str, Any],
    outcome: Outcome,
    events: list[Event],
    asked_text: str,
    asked_by: str | None,
) -> None:
    """A call that ran: its approval, rewrites, loop warnings, truncation, changed result."""
    if outcome.approval in ("allow-once", "allow-always"):
        resolved = _first(events, "approval.resolved")
        remembered = resolved is not None and resolved.data.get("remembered")
        how = " (remembered allow-always)" if remembered else ""
        text = f"{asked_text}; answered {outcome.approval}{how}"
        decision.add("approval_granted", text, asked_by, "asked_approval")
    elif outcome.approval == "edit":
        text = _edited(asked_text, proposed, outcome, events)
        decision.add("approval_edited", text, asked_by, "asked_approval")
    final = outcome.params or {}
    for name, plugin in outcome.rewritten_by.items():
        before = _shown(proposed[name]) if name in proposed else "(absent)"
        after = _shown(final[name]) if name in final else "(removed)"
        decision.add(
            "rewritten", f"{plugin} changed {name}: {before} -> {after}", plugin, "rewrote"
        )
    for event in events:
        if event.event == "loop.warning":
            decision.add("loop_warning", str(event.data.get("message", "")), event.plugin, "warned")
    if outcome.truncated:
        _truncated(decision, outcome, _first(events, "result.trimmed"))
    _results_changed(decision, events)
    if outcome.status == "error":
        decision.kinds.insert(0, "error")
        decision.details.insert(0, outcome.content)
    elif not decision.kinds:
        decision.add("allowed", None)


def _truncated(decision: CallReport, outcome: Outcome, trimmed: Event | None) -> None:
    decision.artifact = outcome.artifact
    if trimmed is not None:
        data = trimmed.data
        size = f"{data.get('original_chars'):,} chars, {data.get('kept_chars'):,} kept"
    else:
        size = "trimmed"
    where = f"full result: {outcome.artifact}" if outcome.artifact else "full result not stored"
    decision.add("truncated", size, trimmed.plugin if trimmed else None, "truncated")
    decision.details.append(where)


def _results_changed(decision: CallReport, events: list[Event]) -> None:
    """After-hooks that changed the result (the built-ins that trim or warn say so elsewhere)."""
    for event in events:
        data = event.data
        if (
            event.event == "hook.decision"
            and data.get("hook") == "after_tool_call"
            and event.plugin not in _QUIET_AFTER
            and (data.get("content") or data.get("note"))
        ):
            decision.add(
                "result_changed",
                str(data.get("note") or f"{event.plugin} changed the result"),
                event.plugin,
                "changed_result",
            )


def _edited(
    asked_text: str, proposed: dict[str, Any], outcome: Outcome, events: list[Event]
) -> str:
    """What the person changed, and that the chain ran again on it."""
    edited = next((e for e in events if e.event == "approval.edited"), None)
    who = (edited.data.get("by") if edited is not None else None) or "a person"
    final = outcome.params or {}
    changes = [
        f"{name}: {_shown(proposed[name]) if name in proposed else '(absent)'} -> "
        f"{_shown(final[name]) if name in final else '(removed)'}"
        for name in (edited.data.get("fields", []) if edited is not None else [])
    ]
    said = f"{who} edited " + ", ".join(changes) if changes else f"{who} approved it unchanged"
    parts = [asked_text] if asked_text else []
    return "; ".join([*parts, said, "the chain ran again on the edited params"])


def summarize(decisions: list[CallReport]) -> dict[str, Any]:
    """Counts by status (each call's last decision: a paused call may be finished by a later
    line), by decision kind, and by plugin and action (once per call)."""
    last = {d.call_id: d for d in decisions}
    by_status = Counter(d.status for d in last.values())
    by_kind = Counter(kind for d in decisions for kind in d.kinds)
    actions: dict[str, dict[tuple[str, str], None]] = {}
    for d in decisions:
        actions.setdefault(d.call_id, {}).update(dict.fromkeys(d.actions))
    by_plugin: dict[str, Counter[str]] = {}
    for done in actions.values():
        for plugin, action in done:
            by_plugin.setdefault(plugin, Counter())[action] += 1
    return {
        "calls": len(last),
        "by_status": {
            s: by_status[s] for s in ("ok", "error", "blocked", "denied", "pending") if by_status[s]
        },
        "by_kind": {k: by_kind[k] for k in LABELS if by_kind[k]},
        "by_plugin": {p: {a: c[a] for a in ACTIONS if c[a]} for p, c in sorted(by_plugin.items())},
    }
