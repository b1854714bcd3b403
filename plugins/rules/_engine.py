"""The rule set: which rules a tool's calls meet, and one call's verdict with its reasons.

Across all matching rules and all the commands of a script the strictest decision wins (deny >
ask > allow); among equals the first in config order (then the first command) names the reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ._argv import Found, Tri, both
from ._calls import EXEC_TOOLS, CallFacts, Subject, call_facts, canonical_tool
from ._defaults import STRICTNESS, DecisionName
from ._history import HistoryView, unless_gate
from ._records import Chosen, Hit, Rule, RuleTrace, Verdict, chosen
from ._tools import names_nothing, selects

NO_VERDICT: Final = Verdict(decision=None, hit=None)
CACHE_SIZE: Final = 4096


@dataclass
class RuleSet:
    """Compiled rules plus the settings; per-tool selection cached."""

    rules: tuple[Rule, ...]
    unmatched: DecisionName
    opaque: DecisionName
    project: str
    home: str
    groups: Mapping[str, Sequence[str]]
    _by_tool: dict[str, Chosen] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def for_tool(self, name: str) -> Chosen:
        """The rules covering tool ``name`` and what they need of a call (cached per name)."""
        found = self._by_tool.get(name)
        if found is None:
            tool = canonical_tool(name)
            found = chosen(r for r in self.rules if selects(r.tools, name, tool, self.groups))
            with self._lock:
                if len(self._by_tool) >= CACHE_SIZE:
                    self._by_tool.clear()
                self._by_tool[name] = found
        return found

    def decide(
        self,
        tool_name: str,
        params: Mapping[str, Any],
        spec: Any = None,
        *,
        trace: bool = False,
        rules: Chosen | None = None,
        history: HistoryView | None = None,
    ) -> Verdict:
        """The call's verdict; ``history`` answers ``session`` / ``from`` conditions (without
        one, as in the config's own examples, they hold)."""
        picked = self.for_tool(tool_name) if rules is None else rules
        if not picked.rules:
            return NO_VERDICT
        # No command, path or host to match: only a rule on params alone can hold, and one
        # that holds takes the whole way below (its unless, its reason).
        if (
            not (trace or picked.need_hosts or picked.has_history)
            and names_nothing(tool_name, params, spec, picked)
            and not any(r.when.params_hold(params) for r in picked.params_only)
        ):
            return NO_VERDICT
        facts = call_facts(
            canonical_tool(tool_name),
            params,
            spec,
            project=self.project,
            home=self.home,
            need_paths=picked.need_paths,
            need_hosts=picked.need_hosts,
        )
        if not facts.exec_call and not trace and not picked.has_params and not picked.has_history:
            subject = facts.subjects[0]
            if not subject.paths and not subject.hosts and not subject.unknown:
                return Verdict(decision=None, hit=None, facts=facts)  # nothing a rule could hold on
        traces: list[RuleTrace] = []
        hits = self._hits(tool_name, params, facts, picked, traces, trace, history)
        if not hits:
            return Verdict(decision=None, hit=None, facts=facts, traces=tuple(traces))
        top = max(hits, key=lambda h: STRICTNESS[h.decision])  # first of the strictest
        return Verdict(
            decision=top.decision, hit=top, hits=tuple(hits), facts=facts, traces=tuple(traces)
        )

    def _hits(
        self,
        tool_name: str,
        params: Mapping[str, Any],
        facts: CallFacts,
        rules: Chosen,
        traces: list[RuleTrace],
        trace: bool,
        history: HistoryView | None,
    ) -> list[Hit]:
        """Every decision the call's subjects got: the script's opacity, each rule that holds
        (or may), and ``unmatched`` for a command no rule matched."""
        hits: list[Hit] = []
        if facts.opaque is not None:
            hits.append(
                Hit(
                    decision=self.opaque,
                    rule=None,
                    kind="opaque",
                    subject=_clip(str(params.get("command", tool_name))),
                    matched=f"the script cannot be seen through: {facts.opaque}",
                )
            )
        for subject in facts.subjects:
            own = [
                h
                for r in (rules.rules if trace else _candidates(rules, subject))
                if (h := self._apply(r, subject, params, traces, trace, history))
            ]
            if not own and facts.exec_call:
                own.append(
                    Hit(
                        decision=self.unmatched,
                        rule=None,
                        kind="unmatched",
                        subject=subject.shown,
                        matched=f"command `{_clip(subject.shown)}` (no rule matches it)",
                    )
                )
            hits += own
        return hits

    def _apply(
        self,
        rule: Rule,
        subject: Subject,
        params: Mapping[str, Any],
        traces: list[RuleTrace],
        trace: bool,
        history: HistoryView | None = None,
    ) -> Hit | None:
        prefix = rule.when.prefix
        if prefix is not None and not trace:
            # Most rules name another program: ruled out before any condition is looked at.
            command = subject.command
            if command is None or (
                command.program is not None and not prefix.first(command.program)
            ):
                return None
        verdict, found = rule.when.holds(subject, params)
        if verdict is not False and rule.history is not None and history is not None:
            past = history.check(rule.history)
            verdict = both(verdict, past.value)
            found = [*found, past]
        missed: Found | None = None
        excepted = False
        gate = unless_gate(rule.unless_history, history, verdict)
        if verdict is not False and rule.unless is not None and gate is not False:
            exception, missed = rule.unless.every(subject, params)
            exception = both(exception, gate)
            if exception is True:
                excepted = True
                verdict = False
            elif exception is None:
                verdict = None
        if trace:
            traces.append(_trace(rule, subject, verdict, found, missed, excepted))
        if verdict is False:
            return None
        matched = _matched(subject, found, missed)
        if verdict is None:
            return Hit(
                decision=self.opaque,
                rule=rule.id,
                kind="uncertain",
                subject=subject.shown,
                matched=matched + " (an unknown word could decide the rule)",
                reason=rule.reason,
            )
        assert rule.decision is not None  # only rules with a decision are chosen to decide
        return Hit(
            decision=rule.decision,
            rule=rule.id,
            kind="rule",
            subject=subject.shown,
            matched=matched,
            reason=rule.reason,
        )

    def holds(
        self,
        rule: Rule,
        tool: str,
        params: Mapping[str, Any],
        *,
        spec: Any = None,
        history: HistoryView | None = None,
    ) -> Tri:
        """Whether ``rule`` alone holds for a call (its ``match`` / ``not_match`` examples, and
        a labelling rule after its call ran)."""
        past: Tri = True
        if rule.history is not None and history is not None:
            past = history.check(rule.history).value
            if past is False:
                return False
        facts = call_facts(
            canonical_tool(tool),
            params,
            spec,
            project=self.project,
            home=self.home,
            need_paths=rule.needs_paths,
            need_hosts=rule.needs_hosts,
        )
        result: Tri = None if facts.opaque is not None else False
        gate = unless_gate(rule.unless_history, history, past)
        for subject in facts.subjects:
            verdict, _ = rule.when.holds(subject, params)
            verdict = both(verdict, past)
            if verdict is not False and rule.unless is not None and gate is not False:
                exception, _ = rule.unless.every(subject, params)
                exception = both(exception, gate)
                if exception is True:
                    verdict = False
                elif exception is None:
                    verdict = None
            if verdict is True:
                return True
            if verdict is None:
                result = None
        return result


def _candidates(picked: Chosen, subject: Subject) -> tuple[Rule, ...]:
    """The rules that could hold for ``subject``: those whose command names the subject's
    (known) program, or no literal program (explain still traces every rule)."""
    command = subject.command
    if command is None or command.program is None:
        return picked.rules  # each rule answers for itself (False, or unknown)
    return picked.by_program.get(command.program, picked.any_program)


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _matched(subject: Subject, found: list[Found], missed: Found | None) -> str:
    """The part of the call that made the rule hold: the command (for exec), and the path, host
    or param that decided it."""
    item = ""
    for kind in ("path", "host", "param"):
        hit = next((one for one in found if one.kind == kind and one.item), None)
        if missed is not None and missed.kind == kind and missed.item:
            hit = missed  # the item outside the unless table's list says more than any item
        if hit is not None:
            item = f"{kind} {hit.item}"
            break
    past = next((one.item for one in found if one.kind == "history" and one.item), None)
    if subject.command is not None:
        command = f"command `{_clip(subject.shown)}`"
        shown = f"{command}: {item}" if item else command
    else:
        shown = item or f"tool {subject.shown}"
    return f"{shown}; {past}" if past else shown


def _trace(
    rule: Rule,
    subject: Subject,
    verdict: Tri,
    found: list[Found],
    missed: Found | None,
    excepted: bool,
) -> RuleTrace:
    if excepted:
        state, detail = "excepted", "its unless table holds"
    elif verdict is True:
        state, detail = "matched", _matched(subject, found, missed)
    elif verdict is None:
        state, detail = "uncertain", "an unknown word could decide it"
    else:
        state, detail = "no match", ""
    return RuleTrace(rule=rule.id, subject=subject.shown, verdict=state, detail=detail)


def default_project(source: Any) -> str:
    """The project folder: the config file's folder, else the working directory."""
    if source is not None:
        return os.path.dirname(os.path.abspath(str(source)))
    return os.getcwd()


def is_exec(tool: str) -> bool:
    return canonical_tool(tool) in EXEC_TOOLS
