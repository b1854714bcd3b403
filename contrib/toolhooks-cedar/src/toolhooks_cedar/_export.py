"""``toolhooks rules export --cedar``: the ``[[rules]]`` Cedar can express with the same meaning,
as Cedar policies over the facts this plugin puts in ``context`` (docs/decisions/cedar.md).

A rule exports when each of its conditions has a Cedar reading that decides the same:

- ``tools``: names (aliases included: ``exec`` is also ``bash``), ``*`` and groups of names;
- ``command``: a program, or a program and its first argument (``context.exec.programs``,
  ``subcommands``), each word literal;
- ``flags`` under such a command (``context.exec.flags``; a long option's unambiguous prefixes
  are listed, as the rules plugin reads ``--forc`` as ``--force``);
- ``params``: a top-level param against globs whose only wildcard is ``*`` (``like``);
- ``session`` and ``from`` (with its ``params`` named): ``containsAny`` over labels;
- ``unless`` of ``params``, ``session`` and ``from`` (Cedar's ``unless``).

The rest is named with why: an ``allow`` (a rule allows one command of a script; a Cedar Allow
is no opinion), a ``label``, globs over sets (``args``, ``paths``, ``hosts``: Cedar's ``like``
tests one string, and nothing ranges over a set), an ``unless`` on the command (it must hold for
the same command, which per-call facts cannot tie), tool patterns.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolhooks.plugins.policy import TOOL_ALIASES

EXEC_TOOL: Final = "exec"
SHORTEST_LONG_PREFIX: Final = 3
"""``--f``: the shortest prefix of a long option the rules plugin reads as it."""
SETTINGS_THAT_ALLOW: Final = {"unmatched": "allow", "opaque": "allow"}
WIDTH: Final = 100


@dataclass(frozen=True, slots=True, kw_only=True)
class RulesExport:
    """The Cedar text, the ids of the rules it holds, and what was left out (name, why)."""

    text: str
    exported: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]


class NotExpressible(Exception):
    """A rule's condition Cedar cannot say with the same meaning (the message says why)."""


def export_rules(
    rules: Sequence[Any],
    *,
    settings: Any = None,
    groups: Mapping[str, Sequence[str]] | None = None,
) -> RulesExport:
    """``rules`` (validated rule tables with ``RuleConfig``'s fields, in order) as Cedar;
    ``settings`` the ``[plugins.rules]`` table (``RulesSettings``' fields), ``groups`` the tool
    groups (built-in and ``[tools.groups]``)."""
    lines = [
        "// Cedar policies exported from [[rules]] by `toolhooks rules export --cedar`,",
        "// for the toolhooks cedar plugin ([plugins.cedar] policies). A rule Cedar cannot",
        "// express with the same meaning is named below with why: keep it in [[rules]].",
    ]
    exported: list[str] = []
    skipped: list[tuple[str, str]] = []
    for name, why in _settings(settings):
        skipped.append((name, why))
        lines += _comment(f"not exported: {name}: {why}")
    for rule in rules:
        try:
            policy = _policy(rule, groups or {})
        except NotExpressible as exc:
            skipped.append((f"rule {rule.id!r}", str(exc)))
            lines += ["", *_comment(f"not exported: rule {rule.id!r}: {exc}")]
            continue
        exported.append(rule.id)
        lines += ["", *policy]
    return RulesExport(
        text="\n".join(lines) + "\n", exported=tuple(exported), skipped=tuple(skipped)
    )


def _comment(text: str) -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent="// ", subsequent_indent="//   ", break_on_hyphens=False
    )


def _settings(settings: Any) -> Iterable[tuple[str, str]]:
    if settings is None:
        return
    for key, allows in SETTINGS_THAT_ALLOW.items():
        value = getattr(settings, key)
        if value != allows:
            yield (
                f"[plugins.rules] {key} = {value!r}",
                _SETTING_WHY[key],
            )
    if settings.protect_own_state:
        yield (
            "[plugins.rules] protect_own_state",
            "toolhooks' own state (its config, keys, hook settings) is found by the rules "
            "plugin's own checks, not by a rule: keep the rules plugin for it",
        )


_SETTING_WHY: Final = {
    "unmatched": "it decides each command of a script that no rule names; the Cedar request "
    "is the whole call, and its facts do not say which command a policy matched",
    "opaque": "the rules plugin decides a script it cannot see through, or a rule an unknown "
    "word could decide, per rule; context.exec.opaque and unknown are per call "
    "(write a forbid on them by hand if that is what you want)",
}


def _policy(rule: Any, groups: Mapping[str, Sequence[str]]) -> list[str]:
    if rule.decision is None or rule.label is not None:
        raise NotExpressible(
            f"it labels the call's session and result ({rule.label!r}); a Cedar policy decides "
            "and labels nothing"
        )
    if rule.decision == "allow":
        raise NotExpressible(
            "an allow lets one command of a script run where the rest of the policy would not; "
            "in the cedar plugin an Allow is no opinion, and a permit covers the whole call"
        )
    actions = _actions(rule.tools, groups)
    conditions = _conditions(rule, actions, unless=False)
    exceptions = [] if rule.unless is None else _conditions(rule.unless, actions, unless=True)
    if not conditions:
        raise NotExpressible("no condition Cedar can express")
    lines = [f"@id({_string(rule.id)})"]
    if rule.reason is not None:
        lines.append(f"@reason({_string(rule.reason)})")
    if rule.decision == "ask":
        lines.append('@decision("ask")')
    lines += [f"// {kind}: {json.dumps(example)}" for kind, example in _examples(rule, actions)]
    scope = "action" if actions is None else _scope(actions, wrap=False)
    head = f"forbid (principal, {scope}, resource)"
    if len(head) > WIDTH and actions is not None:
        head = f"forbid (\n  principal,\n  {_scope(actions, wrap=True)},\n  resource\n)"
    lines.append(head)
    lines.append(_clause("when", conditions))
    if exceptions:
        lines.append(_clause("unless", exceptions))
    lines[-1] += ";"
    return lines


def _clause(word: str, conditions: Sequence[str]) -> str:
    """``when { a && b }``, a condition a line when it does not fit on one."""
    line = f"{word} {{ " + " && ".join(conditions) + " }"
    if len(line) <= WIDTH and "\n" not in line:
        return line
    return f"{word} {{\n  " + "\n  && ".join(conditions) + "\n}"


def _actions(tools: Sequence[str], groups: Mapping[str, Sequence[str]]) -> list[str] | None:
    """The action names a rule's ``tools`` select, aliases included; None for every tool."""
    if "*" in tools:
        return None
    names: dict[str, None] = {}
    for entry in tools:
        for name in _members(entry, groups, set()):
            if "*" in name:
                raise NotExpressible(
                    f"tools: {name!r} is a pattern; Cedar names each action (list the tools)"
                )
            canonical = TOOL_ALIASES.get(name, name)
            names[canonical] = None
            names.update((alias, None) for alias, to in TOOL_ALIASES.items() if to == canonical)
            names[name] = None
    return list(names)


def _members(entry: str, groups: Mapping[str, Sequence[str]], seen: set[str]) -> list[str]:
    if not entry.startswith("group:"):
        return [entry]
    if entry in seen:
        return []
    seen.add(entry)
    found: list[str] = []
    for member in groups.get(entry, ()):
        found += _members(member, groups, seen)
    return found


def _scope(actions: Sequence[str], *, wrap: bool) -> str:
    if len(actions) == 1:
        return f"action == Action::{_string(actions[0])}"
    names = [f"Action::{_string(name)}" for name in actions]
    if wrap:
        return "action in [\n    " + ",\n    ".join(names) + "\n  ]"
    return "action in [" + ", ".join(names) + "]"


def _conditions(conditions: Any, actions: Sequence[str] | None, *, unless: bool) -> list[str]:
    found: list[str] = []
    where = "unless: " if unless else ""
    for kind in ("args", "paths", "hosts"):
        if getattr(conditions, kind) is not None:
            raise NotExpressible(f"{where}{kind}: {_SET_GLOBS[kind]}")
    if conditions.command is not None:
        if unless:
            raise NotExpressible(
                "unless: command: the exception must hold for the same command the rule "
                "matched, and the call's facts do not tie a command to its flags across commands"
            )
        if actions is None or set(actions) - _exec_actions():
            raise NotExpressible(
                "command on tools other than exec: the cedar plugin reads the shell command "
                "of exec calls only"
            )
        found.append(_command(conditions.command, conditions.flags))
    elif conditions.flags is not None:
        raise NotExpressible(f"{where}flags without a command: Cedar's flag facts name a program")
    if conditions.params is not None:
        found += [_param(name, globs, where) for name, globs in conditions.params.items()]
    if conditions.session is not None:
        found.append(f"context.session.labels.containsAny({_set(conditions.session)})")
    if conditions.from_ is not None:
        found.append(_from(conditions.from_, where))
    return found


_SET_GLOBS: Final = {
    "args": "globs on one command's arguments; context.exec.args holds every argument of the "
    "script as exact strings, and Cedar's like tests one string, never the elements of a set",
    "paths": "gitignore-style globs on every path the call touches; Cedar's like tests one "
    "string, never the elements of a set (context.exec.names holds exact file names)",
    "hosts": "globs on every host the call reaches; Cedar's like tests one string, never the "
    "elements of a set",
}


def _exec_actions() -> set[str]:
    return {EXEC_TOOL, *(alias for alias, to in TOOL_ALIASES.items() if to == EXEC_TOOL)}


def _command(words: Sequence[Any], flags: Sequence[str] | None) -> str:
    if len(words) > 2:
        raise NotExpressible(
            f"command has {len(words)} words; context.exec names a program and its first "
            "argument only"
        )
    alternatives = [[word] if isinstance(word, str) else list(word) for word in words]
    for options in alternatives:
        for word in options:
            if "*" in word:
                raise NotExpressible(
                    f"command: the word {word!r} is a glob; Cedar's sets are exact"
                )
            if " " in word or "/" in word:
                raise NotExpressible(f"command: the word {word!r} is not one program or argument")
    if len(alternatives) == 2 and any(w.startswith("-") for w in alternatives[1]):
        raise NotExpressible(
            "command: the second word is an option; context.exec.subcommands pairs a program "
            "with its first argument that is not an option"
        )
    heads = [" ".join(pair) for pair in _product(alternatives)]
    if flags is None:
        fact = "programs" if len(alternatives) == 1 else "subcommands"
        return f"context.exec.{fact}.containsAny({_set(heads)})"
    spelled = [form for flag in flags for form in _flag_forms(flag)]
    return f"context.exec.flags.containsAny({_set(f'{h} {f}' for h in heads for f in spelled)})"


def _product(alternatives: Sequence[Sequence[str]]) -> list[list[str]]:
    combos: list[list[str]] = [[]]
    for options in alternatives:
        combos = [[*combo, word] for combo in combos for word in options]
    return combos


def _flag_forms(flag: str) -> list[str]:
    """A listed option as the facts may hold it: a long option also as each of its prefixes
    (``--forc``), which the rules plugin reads as the option they begin."""
    if not flag.startswith("--"):
        return [flag]
    return [flag[:end] for end in range(SHORTEST_LONG_PREFIX, len(flag) + 1)]


def _param(name: str, globs: str | Sequence[str], where: str) -> str:
    if "." in name:
        raise NotExpressible(
            f"{where}params: {name!r} is nested; a list on its way is each of its elements, "
            "and Cedar cannot range over a set"
        )
    patterns = [globs] if isinstance(globs, str) else list(globs)
    for pattern in patterns:
        if any(char in pattern for char in "?[\\"):
            raise NotExpressible(
                f"{where}params: {name}: the glob {pattern!r} uses ? [ or \\; Cedar's like has "
                "only *"
            )
    value = f"context.input{_attr(name)}"
    tests = " || ".join(f"{value} like {_string(pattern)}" for pattern in patterns)
    return f"(context.input has {_key(name)} && ({tests}))"


def _from(table: Any, where: str) -> str:
    if table.only is not None:
        raise NotExpressible(
            f'{where}from: only = "{table.only}" counts host-like tokens only; context.from '
            "holds every label of a param's value"
        )
    if table.params is None:
        raise NotExpressible(
            f"{where}from: without params it counts every param, and Cedar cannot range over "
            "a record's keys (name the params in the from table)"
        )
    tests = []
    for name in table.params:
        if "." in name:
            raise NotExpressible(
                f"{where}from: params: {name!r} is nested; context.from is keyed by top-level param"
            )
        tests.append(
            f"(context.from has {_key(name)} && "
            f"context.from{_attr(name)}.containsAny({_set(table.labels)}))"
        )
    if len(tests) == 1:
        return tests[0]
    return "(\n    " + "\n    || ".join(tests) + "\n  )"


def _examples(rule: Any, actions: Sequence[str] | None) -> list[tuple[str, Any]]:
    """The rule's examples as the cedar plugin's ``// match:`` lines: a string is an exec
    command; a table is the params of the rule's one tool (left out when it has several)."""
    found: list[tuple[str, Any]] = []
    single = actions[0] if actions is not None and len(set(map(_canonical, actions))) == 1 else None
    for kind, examples in (("match", rule.match), ("not_match", rule.not_match)):
        for example in examples:
            if isinstance(example, str):
                found.append((kind, example))
            elif single is not None:
                found.append((kind, {"name": _canonical(single), "params": example}))
    return found


def _canonical(name: str) -> str:
    return TOOL_ALIASES.get(name, name)


_RESERVED: Final = frozenset(
    {"true", "false", "if", "then", "else", "in", "like", "has", "is", "__cedar"}
)


def _attr(name: str) -> str:
    if name.isidentifier() and name.isascii() and name not in _RESERVED:
        return f".{name}"
    return f"[{_string(name)}]"


def _key(name: str) -> str:
    return name if _attr(name).startswith(".") else _string(name)


def _set(items: Iterable[str]) -> str:
    """A Cedar set literal; a long one an item a line (a flag's prefixes make it long)."""
    literals = [_string(item) for item in dict.fromkeys(items)]
    joined = ", ".join(literals)
    if len(joined) <= WIDTH // 2:
        return f"[{joined}]"
    return "[\n    " + ",\n    ".join(literals) + "\n  ]"


def _string(text: str) -> str:
    """A Cedar string literal (Cedar's escapes: quote, backslash, controls as ``\\u{..}``)."""
    out = []
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
