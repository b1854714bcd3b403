"""``[[rules]]`` read, checked and compiled; a bad rule is a ConfigError naming the rule, the
key, the file and the line (the ``[[rules]]`` header's n-th table, then the key's own line)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolhooks import ConfigError

from ._defaults import DecisionName
from ._engine import RuleSet
from ._history import History
from ._match import Compiled
from ._records import CompiledRule
from ._tables import RuleTable, checked_rule, rule_of

if TYPE_CHECKING:
    from pydantic import ValidationError

# Patterns, not compiled ones: they are needed only to place an error (re keeps what it compiles).
_HEADER = r"^\s*\[\[\s*(?P<name>[^\]]+?)\s*\]\]"
_TABLE = r"^\s*\[\s*(?P<name>[^\]]+?)\s*\]"


def rule_line(
    source: Path | None, prefix: Sequence[str], index: int, key: str | None
) -> int | None:
    """The line of rule ``index``'s ``key`` (its header without one, or when not found)."""
    if source is None:
        return None
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    wanted = ".".join((*prefix, "rules"))
    seen = -1
    header: int | None = None
    for number, raw in enumerate(lines, 1):
        array = re.match(_HEADER, raw)
        table = None if array else re.match(_TABLE, raw)
        header_match = array or table
        name = None if header_match is None else header_match["name"].replace(" ", "")
        if name is not None:
            if array and name == wanted:
                seen += 1
                if seen == index:
                    header = number
                    continue
            if header is not None and not (name or "").startswith(wanted + "."):
                break  # the next table: the key is not there
            continue
        if header is not None and key is not None:
            stripped = raw.strip()
            if re.match(rf"{re.escape(key)}\s*=", stripped) or re.match(
                rf'"{re.escape(key)}"\s*=', stripped
            ):
                return number
    return header


def _where(data: Any, index: int) -> str:
    rule_id = data.get("id") if isinstance(data, Mapping) else None
    return f"rule {rule_id!r}" if isinstance(rule_id, str) and rule_id else f"rules[{index}]"


def _error(
    message: str,
    *,
    index: int,
    key: str | None,
    file: str | None,
    source: Path | None,
    prefix: Sequence[str],
) -> ConfigError:
    shown = ".".join((*prefix, f"rules[{index}]", *([key] if key else [])))
    return ConfigError(message, file=file, key=shown, line=rule_line(source, prefix, index, key))


def load_rules(
    raw: Any,
    *,
    unmatched: DecisionName,
    opaque: DecisionName,
    project: str,
    home: str,
    groups: Mapping[str, Sequence[str]],
    source: Path | None = None,
    prefix: Sequence[str] = (),
) -> RuleSet:
    """The rule set of a ``rules`` array; every rule checked, its examples run."""
    file = None if source is None else str(source)
    if not isinstance(raw, list):
        raise ConfigError(
            "rules must be an array of tables: write each rule as [[rules]]",
            file=file,
            key="rules",
            line=rule_line(source, prefix, 0, None),
        )
    compiled: list[CompiledRule] = []
    seen: dict[str, int] = {}
    for index, data in enumerate(raw):
        where = _where(data, index)

        def fail(message: str, key: str | None, index: int = index) -> ConfigError:
            return _error(message, index=index, key=key, file=file, source=source, prefix=prefix)

        if not isinstance(data, Mapping):
            raise fail(f"{where}: a rule must be a table ([[rules]])", None)
        config = checked_rule(data)
        if config is None:  # not in the plain shapes: the models decide, and word the error
            config = _validated(data, where, fail)
        if config.id in seen:
            raise fail(f"{where}: the id {config.id!r} is taken by rules[{seen[config.id]}]", "id")
        seen[config.id] = index
        for entry in config.tools:
            if entry.startswith("group:") and entry not in groups:
                known = ", ".join(sorted(groups))
                raise fail(
                    f"{where}: tools: unknown group {entry!r} (known groups: {known})", "tools"
                )
            if entry.startswith("tag:") and not entry.removeprefix("tag:").strip():
                raise fail(f"{where}: tools: {entry!r} names no tag (tag:side_effect)", "tools")
        given = config.given()
        if not given and config.decision is not None:
            raise fail(
                f"{where}: a rule needs a condition (command, flags, args, paths, hosts, "
                "params, session or from): without one it would decide every call of its tools "
                "(a rule with only a label may label every call of its tools)",
                None,
            )
        unless = None
        if config.unless is not None:
            if not config.unless.given():
                raise fail(f"{where}: unless: an empty table excepts nothing", "unless")
            unless = Compiled(config.unless, project=project, home=home)
        compiled.append(
            CompiledRule(
                id=config.id,
                index=index,
                decision=config.decision,
                reason=config.reason,
                tools=tuple(config.tools),
                when=Compiled(
                    config,
                    project=project,
                    home=home,
                    fold_case=config.decision != "allow",
                ),
                unless=unless,
                config=config,
                label=config.label,
                history=History.of(config),
                unless_history=None if config.unless is None else History.of(config.unless),
                narrowed=_narrowed(config),
            )
        )
    rules = RuleSet(
        rules=tuple(compiled),
        unmatched=unmatched,
        opaque=opaque,
        project=project,
        home=home,
        groups=groups,
    )
    for rule in compiled:
        _self_test(rules, rule, file, source, prefix)
    return rules


def _narrowed(config: RuleTable) -> frozenset[str]:
    """The kinds of item (``arg``, ``path``, ``host``) the rule and its unless table both name
    (``CompiledRule.narrowed``)."""
    unless = config.unless
    if unless is None:
        return frozenset()
    both = {
        "arg": (config.args, unless.args),
        "path": (config.paths, unless.paths),
        "host": (config.hosts, unless.hosts),
    }
    return frozenset(kind for kind, (own, other) in both.items() if own and other)


def _validated(data: Any, where: str, fail: Callable[[str, str | None], ConfigError]) -> RuleTable:
    """The rule as ``RuleConfig`` reads it (pydantic is imported only here), or its first
    problem as a ConfigError."""
    from pydantic import ValidationError

    from ._config import RuleConfig

    try:
        return rule_of(RuleConfig.model_validate(data))
    except ValidationError as exc:
        raise _problem(exc, where, fail) from None


def _problem(
    exc: ValidationError, where: str, fail: Callable[[str, str | None], ConfigError]
) -> ConfigError:
    problem = exc.errors()[0]
    loc = [str(part) for part in problem["loc"]]
    key = loc[0] if loc else None
    shown = ".".join(loc)
    if problem["type"] == "extra_forbidden":
        import difflib  # only for a mistake in the config

        from ._config import Conditions, RuleConfig

        fields = RuleConfig.model_fields if len(loc) == 1 else Conditions.model_fields
        close = difflib.get_close_matches(loc[-1], sorted(fields), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return fail(f"{where}: unknown key {shown!r}{hint}", key)
    message = str(problem["msg"]).removeprefix("Value error, ")
    return fail(f"{where}: {shown + ': ' if shown else ''}{message}", key)


def example_call(
    rule: CompiledRule, example: str | Mapping[str, Any]
) -> tuple[str, Mapping[str, Any]]:
    """The tool and params an example stands for: a string is an exec command; a table is the
    params of the rule's first named tool (``exec`` when the table has a ``command``, else
    ``read`` for path-like tables, else the first tool the rule names)."""
    if isinstance(example, str):
        return "exec", {"command": example}
    named = [t for t in rule.tools if "*" not in t and not t.startswith(("group:", "tag:"))]
    if "command" in example or "cmd" in example:
        return "exec", example
    if named:
        return named[0], example
    return "call", example


def _self_test(
    rules: RuleSet, rule: CompiledRule, file: str | None, source: Path | None, prefix: Sequence[str]
) -> None:
    for key, examples, wanted in (("match", rule.config.match, True),
                                  ("not_match", rule.config.not_match, False)):  # fmt: skip
        for example in examples:
            tool, params = example_call(rule, example)
            got = rules.holds(rule, tool, params)
            if got is wanted:
                continue
            said = "does not match" if wanted else "matches"
            if got is None:
                said = "cannot be decided on (an unknown word or an opaque script) for"
            raise _error(
                f"rule {rule.id!r}: {key} example {example!r}: the rule {said} it",
                index=rule.index,
                key=key,
                file=file,
                source=source,
                prefix=prefix,
            )
