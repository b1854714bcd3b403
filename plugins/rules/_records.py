"""The rule set's records: a compiled rule, the rules covering one tool, what one rule made of one
subject (``Evaluation``, shown by explain as a ``RuleTrace``), a decision a subject got
(``Hit``), and what the rules made of a whole call (``Ruling``).

Words: a rule *holds* (three values: True, False, None for "an unknown word could decide it");
its *verdict* on a subject is what explain shows (``matched``, ``uncertain``, ``excepted``,
``no match``); a *decision* is ``allow`` / ``ask`` / ``deny``; the *ruling* is the call's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from toolhooks.kit import Record

from ._argv import Found, Tri
from ._calls import CallFacts
from ._defaults import DecisionName
from ._history import History
from ._match import Compiled
from ._tables import RuleTable


class CompiledRule(Record):
    """One compiled ``[[rules]]`` entry."""

    __slots__ = (
        "config",
        "decision",
        "history",
        "id",
        "index",
        "label",
        "narrowed",
        "reason",
        "tools",
        "unless",
        "unless_history",
        "when",
    )
    id: str
    index: int
    decision: DecisionName | None
    """None for a rule that only labels."""
    reason: str | None
    tools: tuple[str, ...]
    when: Compiled
    unless: Compiled | None
    config: RuleTable
    label: str | None
    history: History | None
    """The rule's ``session`` / ``from`` conditions (None: it has none)."""
    unless_history: History | None
    narrowed: frozenset[str]
    """The kinds of item (``arg``, ``path``, ``host``) that both the rule and its unless table name: its
    unless table is read over the items that made the rule hold, not over all of the call's."""

    def __init__(
        self,
        *,
        id: str,
        index: int,
        decision: DecisionName | None,
        reason: str | None,
        tools: tuple[str, ...],
        when: Compiled,
        unless: Compiled | None,
        config: RuleTable,
        label: str | None = None,
        history: History | None = None,
        unless_history: History | None = None,
        narrowed: frozenset[str] = frozenset(),
    ) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "when", when)
        object.__setattr__(self, "unless", unless)
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "history", history)
        object.__setattr__(self, "unless_history", unless_history)
        object.__setattr__(self, "narrowed", narrowed)

    @property
    def needs_paths(self) -> bool:
        return self.when.needs_paths or (self.unless is not None and self.unless.needs_paths)

    @property
    def has_params(self) -> bool:
        return self.when.params is not None

    @property
    def needs_hosts(self) -> bool:
        return self.when.needs_hosts or (self.unless is not None and self.unless.needs_hosts)


class Evaluation(Record):
    """What one rule made of one subject: whether it holds, with what each condition found."""

    __slots__ = ("excepted", "found", "holds", "missed")
    holds: Tri
    found: tuple[Found, ...]
    """Each condition's answer and the item that decided it (for the reason)."""
    missed: Found | None
    """The unless table's first item outside its lists (it kept the rule from being excepted)."""
    excepted: bool
    """The rule's own conditions held, and its unless table held too."""

    def __init__(
        self,
        *,
        holds: Tri,
        found: tuple[Found, ...] = (),
        missed: Found | None = None,
        excepted: bool = False,
    ) -> None:
        object.__setattr__(self, "holds", holds)
        object.__setattr__(self, "found", found)
        object.__setattr__(self, "missed", missed)
        object.__setattr__(self, "excepted", excepted)

    @property
    def verdict(self) -> str:
        """What explain shows: ``matched``, ``uncertain``, ``excepted`` or ``no match``."""
        if self.excepted:
            return "excepted"
        if self.holds is None:
            return "uncertain"
        return "matched" if self.holds else "no match"


NO_MATCH: Final = Evaluation(holds=False)


class Hit(Record):
    """A decision one subject got: from a rule, from uncertainty, from ``unmatched`` or
    ``opaque``."""

    __slots__ = ("decision", "kind", "matched", "reason", "rule", "subject")
    decision: DecisionName
    rule: str | None
    kind: str
    """``rule`` | ``uncertain`` (an unknown word could decide the rule) | ``unmatched`` |
    ``opaque``."""
    subject: str
    matched: str
    """What matched, for the reason: ``command `rm -rf /```, ``path /home/u/.ssh/id_rsa``."""
    reason: str | None

    def __init__(
        self,
        *,
        decision: DecisionName,
        rule: str | None,
        kind: str,
        subject: str,
        matched: str,
        reason: str | None = None,
    ) -> None:
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "subject", subject)
        object.__setattr__(self, "matched", matched)
        object.__setattr__(self, "reason", reason)


class RuleTrace(Record):
    """For explain: a rule's verdict on one subject."""

    __slots__ = ("detail", "rule", "subject", "verdict")
    rule: str
    subject: str
    verdict: str
    """``matched``, ``uncertain``, ``excepted`` (its unless held), ``no match``."""
    detail: str

    def __init__(self, *, rule: str, subject: str, verdict: str, detail: str) -> None:
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "subject", subject)
        object.__setattr__(self, "verdict", verdict)
        object.__setattr__(self, "detail", detail)


class Ruling(Record):
    """What the rules made of one call: its decision, the hit that names the reason, every hit,
    the call's facts and (for explain) every rule's verdict on every subject."""

    __slots__ = ("decision", "facts", "hit", "hits", "traces")
    decision: DecisionName | None
    """None: no rule covers the call (the rules have no opinion)."""
    hit: Hit | None
    hits: tuple[Hit, ...]
    """Every rule's hit, and the first command's ``unmatched`` one (a later one never decides)."""
    facts: CallFacts | None
    traces: tuple[RuleTrace, ...]

    def __init__(
        self,
        *,
        decision: DecisionName | None,
        hit: Hit | None,
        hits: tuple[Hit, ...] = (),
        facts: CallFacts | None = None,
        traces: tuple[RuleTrace, ...] = (),
    ) -> None:
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "hit", hit)
        object.__setattr__(self, "hits", hits)
        object.__setattr__(self, "facts", facts)
        object.__setattr__(self, "traces", traces)


class Chosen(Record):
    """The rules that cover one tool, in config order, and what they need of its calls."""

    __slots__ = (
        "any_program",
        "by_program",
        "has_history",
        "has_params",
        "labelling",
        "need_hosts",
        "need_paths",
        "params_only",
        "rules",
    )
    rules: tuple[CompiledRule, ...]
    """The rules with a decision."""
    need_paths: bool
    need_hosts: bool
    has_params: bool
    has_history: bool
    """A rule reads the session's history: the call is never decided without looking."""
    labelling: tuple[CompiledRule, ...]
    """The rules with a label (they label the calls they match, once they ran)."""
    params_only: tuple[CompiledRule, ...]
    """The rules whose only condition is ``params``: all that can hold on a call that names
    no path, host or command."""
    by_program: Mapping[str, tuple[CompiledRule, ...]]
    """For a command whose program is known: the rules that could hold for it, in config
    order (a rule whose ``command`` starts with other literal programs fails at once)."""
    any_program: tuple[CompiledRule, ...]
    """The rules that could hold for a command whose program is in no key of ``by_program``
    (rules whose command is a glob or absent)."""

    def __init__(
        self,
        *,
        rules: tuple[CompiledRule, ...],
        need_paths: bool,
        need_hosts: bool,
        has_params: bool,
        has_history: bool = False,
        labelling: tuple[CompiledRule, ...] = (),
        params_only: tuple[CompiledRule, ...] = (),
        by_program: Mapping[str, tuple[CompiledRule, ...]] | None = None,
        any_program: tuple[CompiledRule, ...] = (),
    ) -> None:
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "need_paths", need_paths)
        object.__setattr__(self, "need_hosts", need_hosts)
        object.__setattr__(self, "has_params", has_params)
        object.__setattr__(self, "has_history", has_history)
        object.__setattr__(self, "labelling", labelling)
        object.__setattr__(self, "params_only", params_only)
        object.__setattr__(self, "by_program", {} if by_program is None else by_program)
        object.__setattr__(self, "any_program", any_program)


def _programs(rule: CompiledRule) -> frozenset[str] | None:
    """The programs a rule's command can match (None: any)."""
    prefix = rule.when.prefix
    return None if prefix is None else prefix.programs


def chosen(rules: Iterable[CompiledRule]) -> Chosen:
    every = tuple(rules)
    picked = tuple(r for r in every if r.decision is not None)
    return Chosen(
        by_program=_by_program(picked),
        any_program=tuple(r for r in picked if _programs(r) is None),
        rules=picked,
        need_paths=any(r.needs_paths for r in picked),
        need_hosts=any(r.needs_hosts for r in picked),
        has_params=any(r.has_params for r in picked),
        has_history=any(r.history is not None or r.unless_history is not None for r in picked),
        labelling=tuple(r for r in every if r.label is not None),
        params_only=tuple(r for r in picked if r.when.params_only),
    )


def _by_program(picked: tuple[CompiledRule, ...]) -> dict[str, tuple[CompiledRule, ...]]:
    """Each literal program a rule names, with the rules that name it or name no program."""
    names = {name for r in picked for name in _programs(r) or ()}
    return {name: tuple(r for r in picked if name in (_programs(r) or (name,))) for name in names}
