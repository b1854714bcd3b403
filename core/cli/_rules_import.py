"""An agent's own permission rules as toolhooks ``[[rules]]``: Claude Code, Gemini CLI, Codex.

Each reader turns one file into :class:`Imported`: the rules it could translate, and every entry
it could not, with where it stood and why. Nothing is guessed: an entry whose meaning toolhooks
cannot express the same way (a regex over the arguments' JSON, an approval mode, a Starlark
expression) is named and left out, never widened or narrowed in silence. Where the translation
keeps the meaning but not the letter (Gemini's priorities, Claude Code's exact-command rules),
the rule carries a comment saying so.

The three formats, as the agents document them:

- Claude Code ``settings.json``: ``permissions.allow`` / ``ask`` / ``deny``, each a list of
  ``Tool`` or ``Tool(specifier)``; deny wins over ask over allow, as in toolhooks.
- Gemini CLI policy TOML: ``[[rule]]`` with ``toolName``, ``commandPrefix``, ``decision``
  (``allow`` / ``deny`` / ``ask_user``) and ``priority`` (the highest priority wins there).
- Codex ``.rules`` (Starlark): ``prefix_rule(pattern=[...], decision=..., justification=...,
  match=[...], not_match=[...])``; the strictest decision wins, as in toolhooks.

The command prints TOML text and never builds a runtime; each rule it prints is first read back
and compiled by the rules plugin (``_that_load``), so the text always loads and a rule that would
not (a value over a limit, an example it does not match) is named instead. Over 300 lines on
purpose: one concept, three readers sharing one record and one TOML writer.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..agents._names import CLAUDE_CODE, GEMINI, NOT_GOVERNED, double_underscore_mcp
from ..kit._toml import toml_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 fallback
    import tomli as tomllib

Agent = Literal["claude-code", "gemini", "codex"]
AGENTS: tuple[Agent, ...] = ("claude-code", "gemini", "codex")

_MAX_FILE_BYTES = 4 * 1024 * 1024
_MAX_ENTRIES = 10_000


class UnreadableRules(Exception):
    """The file cannot be read as the agent's format at all (a usage error, exit 2)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One ``[[rules]]`` table, in the order its keys are printed."""

    id: str
    decision: str
    tools: tuple[str, ...] = ()
    command: tuple[str | tuple[str, ...], ...] = ()
    paths: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    reason: str | None = None
    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()
    source: str = ""
    comments: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    """An entry left out: where it stood (``file:line`` or ``file: allow[3]``) and why."""

    where: str
    entry: str
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Imported:
    agent: Agent
    path: Path
    rules: tuple[Rule, ...]
    skipped: tuple[Skipped, ...] = field(default=())


def import_rules(agent: Agent, path: Path) -> Imported:
    """Read ``path`` as ``agent``'s permission rules; :class:`UnreadableRules` when it cannot be."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableRules(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > _MAX_FILE_BYTES:
        raise UnreadableRules(f"{path}: {len(raw)} bytes, more than a rules file can hold (4 MiB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableRules(f"{path}: not UTF-8 text (byte {exc.start})") from None
    readers = {"claude-code": _claude_code, "gemini": _gemini, "codex": _codex}
    rules, skipped = readers[agent](text, path)
    rules = [dataclasses.replace(r, reason=_cut(r.reason, REASON_LIMIT)) for r in rules]
    loading, refused = _that_load(
        rules, _claude_base(path) if agent == "claude-code" else path.parent
    )
    return Imported(agent=agent, path=path, rules=tuple(loading), skipped=(*skipped, *refused))


REASON_LIMIT = 400
"""A rule's ``reason`` is at most this long (``RuleConfig``): a longer one is cut, with "..."."""


def _that_load(rules: list[Rule], project: Path) -> tuple[list[Rule], list[Skipped]]:
    """The rules that load as printed, and each one that does not, named with the loader's own
    words (a value over a length limit, a ``match`` example the rule does not match, ...): the
    printed text always loads. Each rule is read back from its own printed TOML and compiled by
    the rules plugin, all at once first (the common case), one by one when that fails."""
    if not rules:
        return [], []
    if _load_error(rules, project) is None:
        return rules, []
    loading: list[Rule] = []
    refused: list[Skipped] = []
    for rule in rules:
        problem = _load_error([rule], project)
        if problem is None:
            loading.append(rule)
        else:
            entry = rule.reason or rule.id
            refused.append(Skipped(where=rule.source, entry=entry, why=f"does not load: {problem}"))
    return loading, refused


def _load_error(rules: list[Rule], project: Path) -> str | None:
    from toolhooks.plugins.rules import RulesPlugin

    text = "\n".join(_table(rule) for rule in rules)
    try:
        tables = tomllib.loads(text)["rules"]
        RulesPlugin(rules=tables, project=str(project))
    except Exception as exc:  # the loader's ConfigError, or anything a hostile value provokes
        return _first_line(exc)
    return None


# -- Claude Code ---------------------------------------------------------------------------------

_CLAUDE_DECISIONS = {"deny": "deny", "ask": "ask", "allow": "allow"}
_CLAUDE_RULE = re.compile(r"^(?P<tool>[A-Za-z0-9_\-]+)(?:\((?P<spec>.*)\))?$", re.DOTALL)
# Claude Code applies a Read rule to every tool that reads files, an Edit rule to every tool that
# edits them; toolhooks' names for those tools (core/agents/_names.py).
_CLAUDE_FILE_TOOLS = {
    "Read": ("read",),
    "Edit": ("write", "edit", "apply_patch"),
    "Write": ("write",),
    "MultiEdit": ("edit",),
    "NotebookEdit": ("edit",),
}


def _claude_code(text: str, path: Path) -> tuple[list[Rule], list[Skipped]]:
    try:
        settings = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise UnreadableRules(f"{path}: not JSON: {_first_line(exc)}") from None
    if not isinstance(settings, Mapping):
        raise UnreadableRules(f"{path}: the top level is not a JSON object")
    permissions = settings.get("permissions")
    if permissions is None:
        raise UnreadableRules(f'{path}: no "permissions" object (Claude Code\'s settings.json)')
    if not isinstance(permissions, Mapping):
        raise UnreadableRules(f'{path}: "permissions" is not a JSON object')
    base = _claude_base(path)
    rules: list[Rule] = []
    skipped: list[Skipped] = []
    for key in ("deny", "ask", "allow"):
        entries = permissions.get(key, [])
        if not isinstance(entries, list):
            raise UnreadableRules(f"{path}: permissions.{key} is not a list")
        for index, entry in enumerate(entries[:_MAX_ENTRIES]):
            where = f"{path.name}: permissions.{key}[{index}]"
            if not isinstance(entry, str):
                skipped.append(Skipped(where=where, entry=repr(entry), why="not a string"))
                continue
            made = _claude_entry(entry, key, base)
            if isinstance(made, str):
                skipped.append(Skipped(where=where, entry=entry, why=made))
            else:
                rules.append(_with_source(made, f"claude-{key}-{index + 1}", where))
    for key in sorted(set(permissions) - {"allow", "ask", "deny"}):
        skipped.append(
            Skipped(
                where=f"{path.name}: permissions.{key}",
                entry=key,
                why="not a rule (a mode or a folder list): toolhooks has no equivalent",
            )
        )
    return rules, skipped


def _claude_base(path: Path) -> Path:
    """The folder a ``/path`` rule is relative to: the project of ``.claude/settings*.json``."""
    folder = path.resolve().parent
    return folder.parent if folder.name == ".claude" else folder


def _claude_entry(entry: str, key: str, base: Path) -> Rule | str:
    found = _CLAUDE_RULE.match(entry.strip())
    if found is None:
        return "not of the form Tool or Tool(specifier)"
    tool, spec = found.group("tool"), found.group("spec")
    decision = _CLAUDE_DECISIONS[key]
    reason = f"Claude Code permissions.{key}: {entry}"
    mcp = double_underscore_mcp(tool)
    if tool.startswith("mcp__"):
        if spec is not None:
            return "an MCP rule with a specifier"
        # mcp__server (every tool of a server) or mcp__server__tool.
        name = mcp if mcp is not None else f"{tool[5:]}__*"
        return _whole_tool(decision, (name,))
    mapped = CLAUDE_CODE.get(tool)
    if mapped is None:
        return f"unknown Claude Code tool {tool!r}"
    if mapped == NOT_GOVERNED:
        return f"{tool} only talks to the user: toolhooks does not govern it"
    tools = _CLAUDE_FILE_TOOLS.get(tool, (mapped,))
    if spec is None or spec.strip() in ("", "*"):
        return _whole_tool(decision, tools)
    if tool == "Bash":
        return _claude_bash(spec, decision, reason)
    if tool in _CLAUDE_FILE_TOOLS:
        return _claude_path(spec, decision, tools, reason, base)
    if tool == "WebFetch":
        if not spec.startswith("domain:") or not spec[7:].strip():
            return "a WebFetch specifier other than domain:HOST"
        return Rule(id="", decision=decision, tools=tools, hosts=(spec[7:].strip(),), reason=reason)
    return f"a specifier on {tool}: toolhooks has no condition for it"


def _claude_bash(spec: str, decision: str, reason: str) -> Rule | str:
    comments: list[str] = []
    # ``npm run test:*`` (the legacy form) and ``npm run test *`` are prefixes.
    if spec.endswith(":*") or (spec.endswith(" *") and spec.count("*") == 1):
        prefix = spec[:-2]
    else:
        prefix = spec
        if "*" not in spec:
            comments.append(
                "Claude Code matches this command exactly; a toolhooks command is a prefix"
            )
    try:
        words = shlex.split(prefix)
    except ValueError as exc:
        return f"the command does not split into words ({exc})"
    if not words:
        return "an empty command"
    # ``*`` inside a word is a word glob in both; only a bare ``*`` between words differs.
    if "*" in words:
        return "a '*' between words matches any run of text in Claude Code, one word in toolhooks"
    if decision == "allow" and comments:
        comments.append("an allow that is a prefix allows more than it did")
    return Rule(
        id="",
        decision=decision,
        tools=("exec",),
        command=tuple(words),
        reason=reason,
        comments=tuple(comments),
    )


def _claude_path(
    spec: str, decision: str, tools: tuple[str, ...], reason: str, base: Path
) -> Rule | str:
    comments: list[str] = []
    if spec.startswith("//"):
        pattern = spec[1:]
    elif spec.startswith("~/") or spec == "~":
        pattern = spec
    elif spec.startswith("/"):
        pattern = str(base) + spec
    else:
        # Relative to the agent's working folder, which toolhooks' relative patterns take to be
        # the project (the config's folder): the same when the agent runs in the project.
        pattern = spec[2:] if spec.startswith("./") else spec
        comments.append("relative to the project folder (Claude Code: the working folder)")
    if not pattern:
        return "an empty path"
    return Rule(
        id="",
        decision=decision,
        tools=tools,
        paths=(pattern,),
        reason=reason,
        comments=tuple(comments),
    )


# -- Gemini CLI ----------------------------------------------------------------------------------

_GEMINI_DECISIONS = {"allow": "allow", "deny": "deny", "ask_user": "ask"}
_GEMINI_KNOWN = {"toolName", "commandPrefix", "decision", "priority", "mcpName", "denyMessage"}


def _gemini(text: str, path: Path) -> tuple[list[Rule], list[Skipped]]:
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise UnreadableRules(f"{path}: not TOML: {_first_line(exc)}") from None
    tables = document.get("rule")
    if tables is None:
        raise UnreadableRules(f"{path}: no [[rule]] tables (a Gemini CLI policy file)")
    if not isinstance(tables, list):
        raise UnreadableRules(f'{path}: "rule" is not an array of tables')
    lines = _table_lines(text, "rule")
    rules: list[Rule] = []
    skipped: list[Skipped] = []
    priorities: set[Any] = set()
    for index, table in enumerate(tables[:_MAX_ENTRIES]):
        line = lines[index] if index < len(lines) else None
        where = f"{path.name}:{line}" if line else f"{path.name}: rule[{index}]"
        if not isinstance(table, Mapping):
            skipped.append(Skipped(where=where, entry=repr(table), why="not a table"))
            continue
        made = _gemini_rule(table)
        if isinstance(made, str):
            skipped.append(Skipped(where=where, entry=_inline(table), why=made))
            continue
        priorities.add(table.get("priority"))
        rules.append(_with_source(made, f"gemini-{index + 1}", where))
    if len(priorities) > 1:
        note = "Gemini CLI lets the highest priority win; toolhooks lets the strictest decision win"
        rules = [_with_comment(rule, note) for rule in rules]
    return rules, skipped


_GEMINI_UNTRANSLATABLE = {
    "argsPattern": "argsPattern is a regex over the arguments' JSON text",
    "commandRegex": "commandRegex is a regex over the whole command text",
    "modes": "modes (the rule holds only in some approval modes)",
    "toolAnnotations": "toolAnnotations (the tool's hints)",
    "subagent": "subagent (the rule holds only for one sub-agent)",
}


def _gemini_rule(table: Mapping[str, Any]) -> Rule | str:
    unknown = sorted(set(table) - _GEMINI_KNOWN)
    if unknown:
        why = "; ".join(_GEMINI_UNTRANSLATABLE.get(key, f"unknown key {key!r}") for key in unknown)
        regex = {"argsPattern", "commandRegex"} & set(unknown)
        return why + (
            ": toolhooks matches each param and each parsed command, never a regex over text"
            if regex
            else ": toolhooks has no equivalent"
        )
    decision = _GEMINI_DECISIONS.get(str(table.get("decision")))
    if decision is None:
        return f"decision {table.get('decision')!r} is not allow, deny or ask_user"
    try:
        tools = _gemini_tools(table)
        prefixes = _gemini_prefixes(table)
    except _Untranslatable as exc:
        return str(exc)
    reason = table.get("denyMessage") if isinstance(table.get("denyMessage"), str) else None
    if not prefixes:
        return _whole_tool(decision, tuple(tools or ("*",)))
    if tools and tools != ["exec"]:
        return "commandPrefix on a tool other than run_shell_command"
    if len(prefixes) > 1:
        return _gemini_alternatives(prefixes, decision, reason)
    return Rule(
        id="",
        decision=decision,
        tools=("exec",),
        command=prefixes[0],
        reason=reason or f"Gemini CLI policy: {_first(table['commandPrefix'])}",
    )


class _Untranslatable(Exception):
    """Why one entry cannot be translated (the reader names it and goes on)."""


def _gemini_tools(table: Mapping[str, Any]) -> list[str]:
    """toolhooks' names for ``toolName`` (an MCP server's tools when ``mcpName`` is given)."""
    names = _strings(table.get("toolName"))
    if names is None:
        raise _Untranslatable("toolName is not a string or a list of strings")
    server = table.get("mcpName")
    if isinstance(server, str) and server:
        return [f"{server}__{name}" for name in names] or [f"{server}__*"]
    tools = [GEMINI.get(name, name) for name in names]
    for name, mapped in zip(names, tools, strict=True):
        if mapped == NOT_GOVERNED:
            raise _Untranslatable(f"{name} only talks to the user: toolhooks does not govern it")
    return tools


def _gemini_prefixes(table: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """Each ``commandPrefix`` as words; a text prefix's last word becomes a glob ("rm -r"
    holds "rm -rf" in Gemini CLI) unless the prefix ends in a space."""
    prefixes = _strings(table.get("commandPrefix"))
    if prefixes is None:
        raise _Untranslatable("commandPrefix is not a string or a list of strings")
    each: list[tuple[str, ...]] = []
    for prefix in prefixes:
        try:
            words = shlex.split(prefix)
        except ValueError as exc:
            raise _Untranslatable(
                f"commandPrefix {prefix!r} does not split into words ({exc})"
            ) from None
        if not words:
            raise _Untranslatable("an empty commandPrefix")
        if not prefix[-1:].isspace():
            words[-1] += "*"
        each.append(tuple(words))
    return each


def _gemini_alternatives(
    words_each: list[tuple[str, ...]], decision: str, reason: str | None
) -> Rule | str:
    """Several prefixes are one toolhooks rule only when they differ in one word position."""
    lengths = {len(words) for words in words_each}
    if len(lengths) != 1:
        return "several commandPrefix values of different lengths: write one rule per prefix"
    columns = list(zip(*words_each, strict=True))
    differing = [i for i, column in enumerate(columns) if len(set(column)) > 1]
    if len(differing) > 1:
        return "several commandPrefix values that differ in more than one word"
    command: list[str | tuple[str, ...]] = [column[0] for column in columns]
    for i in differing:
        command[i] = tuple(dict.fromkeys(columns[i]))
    return Rule(
        id="",
        decision=decision,
        tools=("exec",),
        command=tuple(command),
        reason=reason or "Gemini CLI policy: " + " | ".join(" ".join(w) for w in words_each),
    )


# -- Codex ---------------------------------------------------------------------------------------

_CODEX_DECISIONS = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}
_CODEX_KEYS = {"pattern", "decision", "justification", "match", "not_match"}


def _codex(text: str, path: Path) -> tuple[list[Rule], list[Skipped]]:
    # Starlark's call syntax is Python's: parse, never evaluate, and take literals only.
    try:
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        at = f":{line}" if line else ""
        raise UnreadableRules(f"{path}{at}: not a Codex .rules file: {_first_line(exc)}") from None
    rules: list[Rule] = []
    skipped: list[Skipped] = []
    for statement in tree.body[:_MAX_ENTRIES]:
        where = f"{path.name}:{statement.lineno}"
        source = _source_line(text, statement.lineno)
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call) or not _called(call, "prefix_rule"):
            skipped.append(Skipped(where=where, entry=source, why="not a prefix_rule(...) call"))
            continue
        made = _codex_rule(call)
        if isinstance(made, str):
            skipped.append(Skipped(where=where, entry=source, why=made))
        else:
            rules.append(_with_source(made, f"codex-{len(rules) + 1}", where))
    return rules, skipped


def _called(call: ast.Call, name: str) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == name


def _codex_rule(call: ast.Call) -> Rule | str:
    try:
        values = _codex_arguments(call)
        command = _codex_command(values.get("pattern"))
        examples = {
            key: _codex_examples(key, values.get(key, [])) for key in ("match", "not_match")
        }
    except _Untranslatable as exc:
        return str(exc)
    decision = _CODEX_DECISIONS.get(values.get("decision", "allow"))
    if decision is None:
        return f"decision {values.get('decision')!r} is not allow, prompt or forbidden"
    justification = values.get("justification")
    return Rule(
        id="",
        decision=decision,
        tools=("exec",),
        command=command,
        reason=justification if isinstance(justification, str) else None,
        match=examples["match"],
        not_match=examples["not_match"],
    )


def _codex_arguments(call: ast.Call) -> dict[str, Any]:
    """``prefix_rule``'s keyword arguments, each a literal (nothing is evaluated)."""
    if call.args:
        raise _Untranslatable("positional arguments (prefix_rule takes keywords)")
    values: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise _Untranslatable("a **kwargs argument")
        if keyword.arg not in _CODEX_KEYS:
            raise _Untranslatable(f"unknown argument {keyword.arg!r}")
        try:
            values[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            raise _Untranslatable(
                f"{keyword.arg} is not a literal (a Starlark expression)"
            ) from None
    return values


def _codex_command(pattern: Any) -> tuple[str | tuple[str, ...], ...]:
    """A ``pattern`` as command words: a word, or a list of alternative words."""
    if not isinstance(pattern, list) or not pattern:
        raise _Untranslatable("pattern is not a non-empty list")
    command: list[str | tuple[str, ...]] = []
    for element in pattern:
        if isinstance(element, str) and element:
            command.append(element)
        elif isinstance(element, list) and element and all(_word_ok(e) for e in element):
            command.append(tuple(element))
        else:
            raise _Untranslatable("a pattern element that is not a word or a list of words")
    return tuple(command)


def _word_ok(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _codex_examples(key: str, found: Any) -> tuple[str, ...]:
    """``match`` / ``not_match`` examples as command strings (token lists joined for a shell)."""
    if not isinstance(found, list):
        raise _Untranslatable(f"{key} is not a list")
    made: list[str] = []
    for example in found:
        if isinstance(example, str):
            made.append(example)
        elif isinstance(example, list) and all(isinstance(e, str) for e in example):
            made.append(shlex.join(example))
        else:
            raise _Untranslatable(f"a {key} example that is not a command")
    return tuple(made)


# -- Output --------------------------------------------------------------------------------------


def render(imported: Imported) -> str:
    """The TOML text: a header, each rule, and every entry left out as a comment."""
    out = [
        f"# toolhooks [[rules]] from {imported.agent} rules in {comment_text(imported.path.name)}:",
        f"# {len(imported.rules)} translated, {len(imported.skipped)} left out (listed at the end).",
        "# Review before use: a rule only narrows what the policy fence allows.",
    ]
    for rule in imported.rules:
        out.append("")
        out.extend(f"# {comment_text(comment)}" for comment in rule.comments)
        out.append(f"# from {comment_text(rule.source)}")
        out.append(_table(rule))
    if imported.skipped:
        out.append("")
        out.append("# Not translated:")
        for skip in imported.skipped:
            out.append(f"# - {skipped_line(skip)}")
    return "\n".join(out) + "\n"


def _table(rule: Rule) -> str:
    """One rule's ``[[rules]]`` table: every value a TOML string (``toml_value``), every key ours."""
    out = ["[[rules]]", f"id = {toml_value(rule.id)}"]
    if rule.tools:
        out.append(f"tools = {toml_value(list(rule.tools))}")
    out.append(f"decision = {toml_value(rule.decision)}")
    if rule.reason:
        out.append(f"reason = {toml_value(rule.reason)}")
    if rule.command:
        out.append(f"command = {toml_value([_word(w) for w in rule.command])}")
    if rule.paths:
        out.append(f"paths = {toml_value(list(rule.paths))}")
    if rule.hosts:
        out.append(f"hosts = {toml_value(list(rule.hosts))}")
    if rule.match:
        out.append(f"match = {toml_value(list(rule.match))}")
    if rule.not_match:
        out.append(f"not_match = {toml_value(list(rule.not_match))}")
    return "\n".join(out)


def _cut(text: str | None, limit: int) -> str | None:
    return text if text is None or len(text) <= limit else text[: limit - 3] + "..."


def _word(word: str | tuple[str, ...]) -> str | list[str]:
    return list(word) if isinstance(word, tuple) else word


# -- Small helpers -------------------------------------------------------------------------------


def _whole_tool(decision: str, tools: tuple[str, ...]) -> str:
    """Why a rule over whole tools is not a ``[[rules]]`` table (a rule needs a condition: one
    without would decide every call of its tools), and what says the same in toolhooks."""
    names = toml_value(list(tools))
    if decision == "allow":
        return (
            f"a whole-tool allow: toolhooks already lets {names} through unless the policy "
            "fence or a rule stops a call (a [tools] allow list must name them)"
        )
    if decision == "deny":
        return f"a whole-tool deny: add {names} to [tools] deny (the policy fence)"
    return f"a whole-tool ask: a rule needs a condition; ask for {names} with [tools] or a plugin"


_UNSAFE_IN_COMMENT = re.compile(r"[^\x20-\x7e]")


def comment_text(text: str) -> str:
    """``text`` for a TOML comment or a terminal line: printable ASCII only, anything else
    (a newline above all, which would end the comment and make the rest live TOML) escaped as
    in a TOML string. Every text from the agent's file that is not a TOML value goes through
    this: its keys, its file's name, the reasons that quote it."""
    return _UNSAFE_IN_COMMENT.sub(_escaped, text)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def skipped_line(skip: Skipped) -> str:
    """One line naming an entry left out: where, the entry (as a TOML string) and why."""
    return f"{comment_text(skip.where)}: {toml_value(skip.entry)}: {comment_text(skip.why)}"


def _with_source(rule: Rule, rule_id: str, where: str) -> Rule:
    return dataclasses.replace(rule, id=rule_id, source=where)


def _with_comment(rule: Rule, comment: str) -> Rule:
    return dataclasses.replace(rule, comments=(*rule.comments, comment))


def _first(value: str | list[str]) -> str:
    return value if isinstance(value, str) else value[0]


def _strings(value: Any) -> list[str] | None:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _table_lines(text: str, name: str) -> list[int]:
    header = re.compile(rf"^\s*\[\[\s*{re.escape(name)}\s*\]\]")
    return [n for n, line in enumerate(text.splitlines(), start=1) if header.match(line)]


def _source_line(text: str, line: int) -> str:
    lines = text.splitlines()
    found = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return found if len(found) <= 120 else found[:117] + "..."


def _inline(table: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{key} = {value!r}" for key, value in table.items())
    return shown if len(shown) <= 120 else shown[:117] + "..."


def _first_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
