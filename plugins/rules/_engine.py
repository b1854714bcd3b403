"""The rule set: which rules a tool's calls meet, one evaluation of a rule on a subject
(``evaluate``), and the two routes through it: ``decide`` (the hook) and ``explain``.

Across all matching rules and all the commands of a script the strictest decision wins (deny >
ask > allow); among equals the first in config order (then the first command) names the reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._argv import Tri, both
from ._calls import EXEC_TOOLS, CallFacts, CallMemo, Subject, call_facts, canonical_tool
from ._defaults import STRICTNESS, DecisionName
from ._history import HistoryView, unless_gate
from ._records import NO_MATCH, Chosen, CompiledRule, Evaluation, Hit, RuleTrace, Ruling, chosen
from ._tools import NO_TAGS, names_nothing, selects, tags_of, uses_tags

NO_RULING: Final = Ruling(decision=None, hit=None)
CACHE_SIZE: Final = 4096


class RuleSet:
    """Compiled rules plus the settings; per-tool selection cached (a plain class, not a
    dataclass: its generated methods would be compiled at every start)."""

    __slots__ = (
        "_by_tags",
        "_by_tool",
        "_lock",
        "groups",
        "home",
        "opaque",
        "project",
        "rules",
        "unmatched",
    )

    def __init__(
        self,
        *,
        rules: tuple[CompiledRule, ...],
        unmatched: DecisionName,
        opaque: DecisionName,
        project: str,
        home: str,
        groups: Mapping[str, Sequence[str]],
    ) -> None:
        self.rules = rules
        self.unmatched = unmatched
        self.opaque = opaque
        self.project = project
        self.home = home
        self.groups = groups
        self._by_tool: dict[str | tuple[str, frozenset[str]], Chosen] = {}
        self._lock = threading.Lock()
        self._by_tags = any(uses_tags(r.tools, groups) for r in rules)

    def for_tool(self, name: str, tags: frozenset[str] = NO_TAGS) -> Chosen:
        """The rules covering tool ``name`` (tagged ``tags``) and what they need of a call
        (cached per name, and per name and tags when a rule selects tools by ``tag:``)."""
        key: str | tuple[str, frozenset[str]] = (name, tags) if self._by_tags else name
        found = self._by_tool.get(key)
        if found is None:
            tool = canonical_tool(name)
            found = chosen(r for r in self.rules if selects(r.tools, name, tool, self.groups, tags))
            with self._lock:
                if len(self._by_tool) >= CACHE_SIZE:
                    self._by_tool.clear()
                self._by_tool[key] = found
        return found

    def decide(
        self,
        tool_name: str,
        params: Mapping[str, Any],
        spec: Any = None,
        *,
        rules: Chosen | None = None,
        history: HistoryView | None = None,
        memo: CallMemo | None = None,
    ) -> Ruling:
        """The call's ruling; ``history`` answers ``session`` / ``from`` conditions (without
        one, as in the config's own examples, they hold); ``memo``: what this call's other
        readings found (the own-state guard's), never one of another call. Skips what cannot change it: a call
        naming nothing a rule could hold on, the paths and hosts no rule reads, the rules whose
        program is another (``explain`` looks at everything and must agree)."""
        picked = self.for_tool(tool_name, tags_of(spec)) if rules is None else rules
        if not picked.rules:
            return NO_RULING
        # No command, path or host to match: only a rule on params alone can hold, and one
        # that holds takes the whole way below (its unless, its reason).
        if not (picked.need_hosts or picked.has_history) and names_nothing(
            tool_name, params, spec, picked
        ):
            for rule in picked.params_only:
                if rule.when.params_hold(params):
                    break
            else:
                return NO_RULING
        facts = call_facts(
            canonical_tool(tool_name),
            params,
            spec,
            project=self.project,
            home=self.home,
            need_paths=picked.need_paths,
            need_hosts=picked.need_hosts,
            programs=picked.by_program,
            memo=memo,
        )
        if not facts.exec_call and not picked.has_params and not picked.has_history:
            subject = facts.subjects[0]
            if not subject.paths and not subject.hosts and not subject.unknown:
                return Ruling(decision=None, hit=None, facts=facts)  # nothing a rule could hold on
        return self._ruling(self._hits(tool_name, params, facts, picked, history, None), facts, ())

    def explain(
        self,
        tool_name: str,
        params: Mapping[str, Any],
        spec: Any = None,
        *,
        history: HistoryView | None = None,
    ) -> Ruling:
        """``decide``'s ruling with every rule's verdict on every subject (``traces``), and the
        call's paths and hosts found whether a rule needs them or not."""
        picked = self.for_tool(tool_name, tags_of(spec))
        facts = call_facts(
            canonical_tool(tool_name),
            params,
            spec,
            project=self.project,
            home=self.home,
            need_paths=True,
            need_hosts=True,
            programs=picked.by_program,
        )
        if not picked.rules:
            return Ruling(decision=None, hit=None, facts=facts)
        traces: list[RuleTrace] = []
        hits = self._hits(tool_name, params, facts, picked, history, traces)
        return self._ruling(hits, facts, tuple(traces))

    @staticmethod
    def _ruling(hits: list[Hit], facts: CallFacts, traces: tuple[RuleTrace, ...]) -> Ruling:
        if not hits:
            return Ruling(decision=None, hit=None, facts=facts, traces=traces)
        top = max(hits, key=lambda h: STRICTNESS[h.decision])  # first of the strictest
        return Ruling(decision=top.decision, hit=top, hits=tuple(hits), facts=facts, traces=traces)

    def _hits(
        self,
        tool_name: str,
        params: Mapping[str, Any],
        facts: CallFacts,
        rules: Chosen,
        history: HistoryView | None,
        traces: list[RuleTrace] | None,
    ) -> list[Hit]:
        """Every decision the call's subjects got: the script's opacity, each rule that holds
        (or may), and ``unmatched`` for a command no rule matched. With ``traces``, every rule
        is evaluated on every subject and its verdict kept (the program index only skips rules
        that would not hold)."""
        hits: list[Hit] = []
        unmatched = False
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
            own: list[Hit] = []
            for rule in rules.rules if traces is not None else _candidates(rules, subject):
                found = evaluate(rule, subject, params, history)
                if traces is not None:
                    traces.append(_trace(rule, subject, found))
                if found.holds is not False:
                    own.append(self._hit(rule, subject, found))
            if not own and facts.exec_call and not unmatched:
                # only the first: a later command's `unmatched` hit can never be the first of
                # the strictest, which is what the ruling takes (and nothing reads the others)
                unmatched = True
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

    def _hit(self, rule: CompiledRule, subject: Subject, found: Evaluation) -> Hit:
        matched = _matched(subject, found)
        if found.holds is None:
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
        rule: CompiledRule,
        tool: str,
        params: Mapping[str, Any],
        *,
        spec: Any = None,
        history: HistoryView | None = None,
    ) -> Tri:
        """Whether ``rule`` alone holds for a call (its ``match`` / ``not_match`` examples, and
        a labelling rule after its call ran): True when it holds for a subject, None when it
        may (or the script is opaque), else False."""
        facts = call_facts(
            canonical_tool(tool),
            params,
            spec,
            project=self.project,
            home=self.home,
            need_paths=rule.needs_paths,
            need_hosts=rule.needs_hosts,
            programs=(rule.when.prefix.programs or ()) if rule.when.prefix else (),
        )
        result: Tri = None if facts.opaque is not None else False
        for subject in facts.subjects:
            found = evaluate(rule, subject, params, history).holds
            if found is True:
                return True
            if found is None:
                result = None
        return result


def evaluate(
    rule: CompiledRule, subject: Subject, params: Mapping[str, Any], history: HistoryView | None
) -> Evaluation:
    """The one evaluation of a rule on a subject (``decide``, ``explain`` and ``holds`` all call
    it): its own conditions (``when``), its history conditions, then its ``unless`` table over
    the items that made the conditions hold."""
    prefix = rule.when.prefix
    if prefix is not None:
        # Most rules name another program: ruled out before any condition is looked at.
        command = subject.command
        if command is None or (command.program is not None and not prefix.first(command.program)):
            return NO_MATCH
    holds, found = rule.when.holds(subject, params, collect=rule.narrowed)
    if holds is not False and rule.history is not None and history is not None:
        past = history.check(rule.history)
        holds = both(holds, past.value)
        found = [*found, past]
    if holds is False:
        return NO_MATCH
    if rule.unless is None:
        return Evaluation(holds=holds, found=tuple(found))
    gate = unless_gate(rule.unless_history, history, holds)
    if gate is False:
        return Evaluation(holds=holds, found=tuple(found))
    exception, missed = rule.unless.every(subject, params, within=found)
    exception = both(exception, gate)
    if exception is True:
        return Evaluation(holds=False, found=tuple(found), excepted=True)
    return Evaluation(holds=None if exception is None else holds, found=tuple(found), missed=missed)


def _candidates(picked: Chosen, subject: Subject) -> tuple[CompiledRule, ...]:
    """The rules that could hold for ``subject``: those whose command names the subject's
    (known) program, or no literal program (explain still traces every rule)."""
    command = subject.command
    if command is None or command.program is None:
        return picked.rules  # each rule answers for itself (False, or unknown)
    return picked.by_program.get(command.program, picked.any_program)


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _matched(subject: Subject, found: Evaluation) -> str:
    """The part of the call that made the rule hold: the command (for exec), and the path, host
    or param that decided it (the first outside the unless table's lists, when it has one)."""
    item = ""
    missed = found.missed
    for kind in ("path", "host", "param"):
        hit = next((one for one in found.found if one.kind == kind and one.item), None)
        if missed is not None and missed.kind == kind and missed.item:
            hit = missed  # among the items that held, the one the unless table does not list
        if hit is not None:
            item = f"{kind} {hit.item}"
            break
    past = next((one.item for one in found.found if one.kind == "history" and one.item), None)
    if subject.command is not None:
        command = f"command `{_clip(subject.shown)}`"
        shown = f"{command}: {item}" if item else command
    else:
        shown = item or f"tool {subject.shown}"
    return f"{shown}; {past}" if past else shown


def _trace(rule: CompiledRule, subject: Subject, found: Evaluation) -> RuleTrace:
    verdict = found.verdict
    detail = {
        "excepted": "its unless table holds",
        "matched": _matched(subject, found) if verdict == "matched" else "",
        "uncertain": "an unknown word could decide it",
    }.get(verdict, "")
    return RuleTrace(rule=rule.id, subject=subject.shown, verdict=verdict, detail=detail)


def default_project(source: Any) -> str:
    """The project folder: the config file's folder, else the working directory."""
    if source is not None:
        return os.path.dirname(os.path.abspath(str(source)))
    return os.getcwd()


def is_exec(tool: str) -> bool:
    return canonical_tool(tool) in EXEC_TOOLS
