"""The walk over a bash syntax tree: every simple command, with what it runs seen through.

Over 300 lines on purpose: one walker over bash's statements (lists, pipelines, compounds,
loops, redirections, simple commands) whose handlers share the walk's state and bounds; split up
they would pass that state around instead.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ._astral import TooManyCharacters, shield
from ._grammar import parse
from ._hidden import hidden_commands, hidden_in_assignment, ssh_remote_command
from ._interpreters import interpreter, program_source
from ._limits import Budget, Limit
from ._links import MAX_LINKS, symlinks_made
from ._listed import list_sources, read_list
from ._listed import stdin_file as this_stdin
from ._network import options_from_file
from ._options import read_options
from ._programs import MAX_URL_GLOBS, PROGRAMS, carried, every_option, url_globs
from ._readings import reads_as_wrapper
from ._records import Command, Word, new_command
from ._scope import MAX_CWDS, Scope
from ._text import join_continued_lines, plain_program_name
from ._words import GLOB_CHARS, build, expand
from ._wrappers import SHELLS, WRAPPERS, Seen, see_through

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_SOURCE = 100_000
"""A script longer than this (characters) is opaque."""
MAX_NODES = 200_000
"""A walk visits at most this many syntax nodes (loops and functions are walked again)."""
MAX_DEPTH = 50
"""Statements, substitutions and wrappers nest at most this deep."""
MAX_REPARSE = 6
"""``bash -c`` inside ``bash -c`` ... at most this deep."""
MAX_COMMANDS = 5_000
MAX_LOOP_WORDS = 16
"""A ``for`` loop over more words than this leaves its variable unknown."""

_ASSIGNING = frozenset(
    {
        "read",
        "mapfile",
        "readarray",
        "getopts",
        "printf",
        "let",
        "select",
        "wait",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
    }
)
"""Builtins that set the variables they name."""
_BACKQUOTED = re.compile(r"\\([$`\\\"])")
_RESERVED = frozenset(
    {
        "{",
        "}",
        "(",
        ")",
        "then",
        "do",
        "done",
        "fi",
        "esac",
        "in",
        "elif",
        "else",
        "if",
        "for",
        "while",
        "until",
        "case",
        "select",
        "function",
        "[[",
        "]]",
        "!",
    }
)
"""Reserved words: as a program they mean tree-sitter-bash misread the line (``time { ...;
}``, ``coproc NAME { ...; }``)."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_REDIRECT_NODES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_FD_DUPLICATES = frozenset({">&", "<&", ">&-", "<&-"})
_STDIN_NAMES = {"pipe": "a pipe", "heredoc": "a here-doc", "herestring": "a here-string"}


class _Ctx(NamedTuple):
    """What a statement inherits from around it (a NamedTuple: copied with ``_replace`` on
    the hot path, where ``dataclasses.replace`` costs several times more)."""

    stdin: str | None = None
    """Where stdin comes from: "pipe", "heredoc", "herestring", "file", or None (inherited)."""
    redirects: tuple[Word, ...] = ()
    read_redirects: tuple[int, ...] = ()
    """Indexes of ``redirects`` opened for reading only (``< file``)."""
    via: tuple[str, ...] = ()
    reparse: int = 0
    calls: frozenset[str] = frozenset()
    wrapped: bool = False
    """Inside a wrapper (``sudo cd`` changes no folder of this shell; ``bash -c 'cd x'`` does,
    within its own script)."""


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _groups(nodes: Sequence[Node]) -> list[list[Node]]:
    """Nodes that touch (no blank between them) are one word."""
    groups: list[list[Node]] = []
    for node in nodes:
        if groups and groups[-1][-1].end_byte == node.start_byte:
            groups[-1].append(node)
        else:
            groups.append([node])
    return groups


class Walker:
    """Collects a script's commands; ``opaque`` keeps the first reason it cannot see through."""

    def __init__(self, *, cwd: str, home: str) -> None:
        self.commands: list[Command] = []
        self.opaque: str | None = None
        self.cwd = cwd
        self.home = home
        self.budget = MAX_NODES
        self.bounds = Budget()
        """The bounds every scope of this walk shares (expansions, globs, time)."""
        self.depth = 0
        self.used_files = False
        self.repeated = False
        """Whether a part was walked twice (loops, function calls): commands may repeat."""
        self.links: list[tuple[str, str]] = []
        """Symlinks the script makes (link, target), absolute (see _links.py)."""
        self.astral: dict[int, str] = {}
        """Stand-ins for characters beyond the BMP (see _astral.py), restored at the end."""

    def fail(self, reason: str) -> None:
        if self.opaque is None:
            self.opaque = reason

    # ---- scripts -------------------------------------------------------------------------

    def script(self, text: str, scope: Scope, ctx: _Ctx) -> None:
        if len(text) > MAX_SOURCE:
            raise Limit(f"the script is longer than {MAX_SOURCE} characters")
        # Compiled when a text is first not ASCII (re's cache keeps it): 2.5 M instructions.
        if not text.isascii() and re.search("[\ud800-\udfff]", text):
            raise Limit("the script holds a lone surrogate (not text a shell can run)")
        try:
            text = shield(join_continued_lines(text), self.astral)
        except TooManyCharacters:
            raise Limit("the script holds too many characters beyond the BMP") from None
        root = parse(text.encode("utf-8"))
        if root.has_error:
            where = _first_error(root)
            self.fail(f"the script does not parse ({where})")
        self.walk(root, scope, ctx)

    def reparse(self, script: Word, via: tuple[str, ...], cwds: tuple[str, ...], ctx: _Ctx) -> None:
        if script.text is None:
            self.fail(f"{via[-1]} runs a script that is not literal: {script.source}")
            return
        if ctx.reparse >= MAX_REPARSE:
            self.fail(f"scripts inside scripts nest deeper than {MAX_REPARSE}")
            return
        scope = Scope(cwd=cwds[0] if cwds else self.cwd, home=self.home, bounds=self.bounds)
        scope.cwds = cwds
        self.script(script.text, scope, _Ctx(stdin=ctx.stdin, via=via, reparse=ctx.reparse + 1))

    def inline(self, text: str, scope: Scope, ctx: _Ctx, name: str) -> None:
        """Parse ``text`` in the current shell (an alias's expansion)."""
        if ctx.reparse >= MAX_REPARSE:
            self.fail(f"aliases nest deeper than {MAX_REPARSE}")
            return
        self.script(
            text, scope, ctx._replace(via=(*ctx.via, f"alias {name}"), reparse=ctx.reparse + 1)
        )

    # ---- statements ----------------------------------------------------------------------

    def walk(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        self.budget -= 1
        if not self.budget & 127:
            if self.budget < 0:
                raise Limit(f"the script has more than {MAX_NODES} parts to walk")
            self.bounds.clock()
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Limit(f"the script nests deeper than {MAX_DEPTH}")
            handler = _HANDLERS.get(node.type)
            if handler is not None:
                handler(self, node, scope, ctx)
            elif node.child_count:
                for child in node.children:
                    self.walk(child, scope, ctx)
        finally:
            self.depth -= 1

    def sequence(self, nodes: Sequence[Node], scope: Scope, ctx: _Ctx) -> None:
        for index, child in enumerate(nodes):
            if not child.is_named:
                continue
            background = index + 1 < len(nodes) and nodes[index + 1].type == "&"
            self.walk(child, scope.copy() if background else scope, ctx)

    def _block(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        self.sequence(node.children, scope, ctx)

    def _subshell(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        self.sequence(node.children, scope.copy(), ctx)

    def substitution(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        # >(cmd) reads what the outer command writes: its stdin is a pipe.
        opener = node.children[0].type if node.child_count else ""
        stdin = "pipe" if opener == ">(" else ctx.stdin
        if opener == "`":
            body = _text(node)[1:-1]
            if "\\" in body:
                # Inside backquotes bash drops the backslash before $, ` and \ first, then
                # parses: "`echo \`rm x\``" runs rm. tree-sitter parses the raw text.
                if ctx.reparse >= MAX_REPARSE:
                    self.fail(f"backquotes nest deeper than {MAX_REPARSE}")
                    return
                unescaped = _BACKQUOTED.sub(r"\1", body)
                self.script(
                    unescaped, scope.copy(), ctx._replace(redirects=(), reparse=ctx.reparse + 1)
                )
                return
        self.sequence(node.children, scope.copy(), ctx._replace(redirects=(), stdin=stdin))

    def _list(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        for index, child in enumerate(named):
            if index == 0:
                self.walk(child, scope, ctx)
            else:
                self.maybe(lambda s, c=child: self.walk(c, s, ctx), scope)  # type: ignore[misc]

    def maybe(self, run: Callable[[Scope], None], scope: Scope) -> None:
        """Run a part that may not run: afterwards ``scope`` is what either outcome leaves."""
        branch = scope.copy()
        run(branch)
        scope.merge(branch)

    def _pipeline(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        first = True
        for child in node.children:
            if not child.is_named or child.type == "comment":
                continue
            self.walk(child, scope.copy(), ctx if first else ctx._replace(stdin="pipe"))
            first = False

    def _redirected(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        body = node.child_by_field_name("body")
        spill: list[list[Node]] = []
        words, stdin, after, reads = self.redirections(
            [c for c in node.children if c.type in _REDIRECT_NODES], scope, ctx, spill
        )
        inner = _redirected_ctx(ctx, words, reads, stdin)
        if body is not None and body.type == "command":
            starts = {c.start_byte for c in node.children if c.type in _REDIRECT_NODES}
            self.simple(body, scope, inner, spill, starts)
        elif body is not None:
            if spill:
                self.fail("words after the redirection of a compound command")
            self.walk(body, scope, inner)
        elif words:  # ``> file`` alone at the start of a line: tree-sitter gives it no body
            self.emit(
                Command(
                    program="",
                    argv=(),
                    redirects=inner.redirects,
                    cwd=self._cwd(scope.cwds),
                    via=ctx.via,
                    text=_text(node),
                    cwds=scope.cwds,
                    read_redirects=inner.read_redirects,
                )
            )
        for child in node.children:
            if child != body and child.type not in _REDIRECT_NODES and child.is_named:
                self.walk(child, scope, ctx)
        for operator, statement in after:
            if operator in ("|", "|&"):
                self.walk(statement, scope.copy(), ctx._replace(stdin="pipe"))
            elif operator in ("&&", "||"):
                self.maybe(lambda s, st=statement: self.walk(st, s, ctx), scope)  # type: ignore[misc]
            else:
                self.walk(statement, scope, ctx)

    def redirections(
        self, nodes: Sequence[Node], scope: Scope, ctx: _Ctx, spill: list[list[Node]]
    ) -> tuple[list[Word], str | None, list[tuple[str, Node]], list[int]]:
        """Redirection targets, where stdin then comes from, the statements tree-sitter hangs
        under a here-doc (``cat <<EOF | sh``), and the indexes of the targets only read (``<``).

        tree-sitter-bash reads every word after a redirection's target as more targets
        (``rm >/dev/null -rf /``); bash passes them to the command, so they go to ``spill``.
        """
        words: list[Word] = []
        stdin: str | None = None
        after: list[tuple[str, Node]] = []
        reads: list[int] = []
        on_sub = self._on_sub(scope, ctx)
        for node in nodes:
            operator, operands = self._redirect_parts(node, scope, ctx, spill, words, after)
            if node.type == "heredoc_redirect":
                stdin = "heredoc"
            elif node.type == "herestring_redirect":
                stdin = "herestring"
                for group in _groups(operands):
                    build(group, scope, on_sub)
            else:
                start = len(words)
                stdin = _redirect_target(operator, operands, stdin, scope, on_sub, spill, words)
                if operator == "<":
                    reads.extend(range(start, len(words)))
        return words, stdin, after, reads

    def _redirect_parts(
        self,
        node: Node,
        scope: Scope,
        ctx: _Ctx,
        spill: list[list[Node]],
        words: list[Word],
        after: list[tuple[str, Node]],
    ) -> tuple[str, list[Node]]:
        """A redirection's operator and operands; a here-doc's children are walked here."""
        operator = ""
        operands: list[Node] = []
        heredoc = node.type == "heredoc_redirect"
        for child in node.children:
            if not child.is_named:
                if not operator or heredoc:
                    operator = child.type
                continue
            if child.type in ("file_descriptor", "heredoc_start", "heredoc_end"):
                continue
            if heredoc:
                self._heredoc_child(child, operator, scope, ctx, spill, words, after)
                continue
            operands.append(child)
        return operator, operands

    def _heredoc_child(
        self,
        child: Node,
        operator: str,
        scope: Scope,
        ctx: _Ctx,
        spill: list[list[Node]],
        words: list[Word],
        after: list[tuple[str, Node]],
    ) -> None:
        if child.type == "heredoc_body":
            self.walk(child, scope, ctx)
        elif child.type in _REDIRECT_NODES:
            more, _, _, _ = self.redirections([child], scope, ctx, spill)
            words.extend(more)  # counted as written, whatever their direction
        else:
            lead = child.children[0] if child.child_count else None
            if child.type == "pipeline" and lead is not None and lead.type in ("|", "|&"):
                after.append((lead.type, child))
            else:
                after.append((operator, child))

    def _on_sub(self, scope: Scope, ctx: _Ctx) -> Callable[[Node], None]:
        return lambda node: self.substitution(node, scope, ctx)

    # ---- assignments ---------------------------------------------------------------------

    def assignment(self, node: Node, scope: Scope, ctx: _Ctx, *, apply: bool) -> Word:
        """The ``NAME=VALUE`` word of an assignment node; sets NAME in ``scope`` if ``apply``."""
        name_node = node.child_by_field_name("name")
        name = _text(name_node) if name_node is not None else ""
        if name_node is not None and name_node.type == "subscript":
            name = self._subscript(name_node, scope, ctx)
            apply = False
        operator = next((c.type for c in node.children if not c.is_named), "=")
        value = self._assigned_value(node, name_node, scope, ctx)
        if operator == "+=" and value is not None:
            old = scope.lookup(name)
            value = None if old is None else old + value
            if value is not None and len(value) > 64:
                self.bounds.expand(len(value), len(value))
        if apply and name:
            _set_variable(scope, name, value)
        word = Word(text=None if value is None else f"{name}={value}", source=_text(node))
        hidden = hidden_in_assignment(word) if apply else None  # a prefix's: in _run
        if hidden is not None:
            self.reparse(hidden, (*ctx.via, f"{name}="), scope.cwds, ctx)
        return word

    def _subscript(self, name_node: Node, scope: Scope, ctx: _Ctx) -> str:
        """arr[$(cmd)]=1: the index is expanded (and its substitutions run); arr is unknown."""
        build(name_node.named_children[1:], scope, self._on_sub(scope, ctx))
        name = _text(name_node.named_children[0]) if name_node.named_children else ""
        scope.vars[name] = None
        return name

    def _assigned_value(
        self, node: Node, name_node: Node | None, scope: Scope, ctx: _Ctx
    ) -> str | None:
        value_node = node.child_by_field_name("value")
        if value_node is None:
            return ""
        if value_node.type == "array":
            self.walk(value_node, scope, ctx)
            return None
        nodes = [c for c in node.children if c.is_named and c != name_node]
        chars, unknown = build(nodes, scope, self._on_sub(scope, ctx))
        return None if unknown else _assigned(chars, scope)

    def _assign(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        self.assignment(node, scope, ctx, apply=True)

    def _declaration(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        if any(
            c.type == "word" and _text(c).startswith("-") and "n" in _text(c) for c in node.children
        ):
            self.fail("a name reference (declare -n) makes variables unknowable")
        for child in node.children:
            if child.type == "variable_assignment":
                self.assignment(child, scope, ctx, apply=True)
            elif child.is_named:
                build([child], scope, self._on_sub(scope, ctx))

    def _unset(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        for child in node.children:
            text = _text(child)
            if child.is_named and not text.startswith("-"):
                scope.vars[text] = ""

    # ---- compound statements -------------------------------------------------------------

    def _if(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        seen_then = False
        branch: list[Node] = []
        for child in node.children:
            if child.type == "then":
                seen_then = True
            elif child.type in ("elif_clause", "else_clause"):
                self.maybe(lambda s, c=child: self._clause(c, s, ctx), scope)  # type: ignore[misc]
            elif not seen_then:
                if child.is_named:
                    self.walk(child, scope, ctx)
            elif child.is_named:
                branch.append(child)
        self.maybe(lambda s: self.sequence(branch, s, ctx), scope)

    def _clause(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        self.sequence(node.children, scope, ctx)

    def _while(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        body = node.child_by_field_name("body")
        for child in node.children:
            if child != body and child.is_named:
                self.walk(child, scope, ctx)
        if body is not None:
            self.loop(lambda s: self.walk(body, s, ctx), scope)

    def loop(self, run: Callable[[Scope], None], scope: Scope) -> None:
        """A loop body: it may not run, and a second pass sees what the first changed."""
        self.repeated = True
        before = scope.copy()
        self.maybe(run, scope)
        if _changed(before, scope):
            self.maybe(run, scope)

    def _for(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values: list[Word] = []
        listed = any(child.type == "in" for child in node.children)
        if listed:
            on_sub = self._on_sub(scope, ctx)
            nodes = node.children_by_field_name("value")
            for group in _groups(nodes):
                values.extend(expand(group, scope, on_sub))
        name = _text(variable) if variable is not None else ""
        texts: list[str | None] = []
        for word in values:
            texts.append(word.text)
            texts.extend(word.alternatives)
        if not listed or len(texts) > MAX_LOOP_WORDS:
            texts = [None]
        if body is None:
            return

        def run(s: Scope) -> None:
            start = s.copy()
            for text in texts:
                one = start.copy()
                one.vars[name] = text
                self.walk(body, one, ctx)
                s.merge(one)

        self.loop(run, scope)
        if texts:
            scope.vars[name] = texts[-1] if len(texts) == 1 else None

    def _c_for(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        body = node.child_by_field_name("body")
        for child in node.children:
            if child != body and child.is_named:
                self.walk(child, scope, ctx)
        if body is not None:
            self.loop(lambda s: self.walk(body, s, ctx), scope)

    def _case(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        for child in node.children:
            if child.type == "case_item":
                self.maybe(lambda s, c=child: self._case_item(c, s, ctx), scope)  # type: ignore[misc]
            elif child.is_named:
                build([child], scope, self._on_sub(scope, ctx))

    def _case_item(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        values = {(v.start_byte, v.end_byte) for v in node.children_by_field_name("value")}
        for child in node.children:
            if not child.is_named:
                continue
            if (child.start_byte, child.end_byte) in values:
                build([child], scope, self._on_sub(scope, ctx))
            else:
                self.walk(child, scope, ctx)

    def _function(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if body is None:
            return
        if name is not None:
            scope.functions[_text(name)] = body
        self.walk(body, scope.copy(), ctx)

    # ---- simple commands -----------------------------------------------------------------

    def _command(self, node: Node, scope: Scope, ctx: _Ctx) -> None:
        self.simple(node, scope, ctx, [], set())

    def simple(
        self,
        node: Node,
        scope: Scope,
        ctx: _Ctx,
        spill: list[list[Node]],
        redirect_starts: set[int],
    ) -> None:
        """A simple command; ``spill`` holds words tree-sitter put under a redirection.

        tree-sitter-bash reads the descriptor of ``0<`` as an argument (``cat 0<file``); a
        number touching a redirection is dropped."""
        prefix, words, redirects = _simple_parts(node, redirect_starts)
        on_sub = self._on_sub(scope, ctx)
        spill = list(spill)
        targets, stdin, after, reads = (
            self.redirections(redirects, scope, ctx, spill) if redirects else ([], None, [], [])
        )
        only_assignments = not words and not spill
        assignments = (
            tuple(self.assignment(p, scope, ctx, apply=only_assignments) for p in prefix)
            if prefix
            else ()
        )
        argv: list[Word] = []
        for group in [*_groups(words), *spill] if spill else _groups(words):
            found = expand(group, scope, on_sub)
            argv.extend(found)
        own = _redirected_ctx(ctx, targets, reads, stdin) if targets or stdin else ctx
        self._simple_command(node, argv, targets, assignments, scope, ctx, own)
        for operator, statement in after:
            piped = operator in ("|", "|&")
            self.walk(
                statement,
                scope.copy() if piped else scope,
                ctx._replace(stdin="pipe") if piped else ctx,
            )

    def _simple_command(
        self,
        node: Node,
        argv: list[Word],
        targets: list[Word],
        assignments: tuple[Word, ...],
        scope: Scope,
        ctx: _Ctx,
        own: _Ctx,
    ) -> None:
        """Run the command, or record one of redirections alone (``> file``)."""
        text = _text(node)
        if argv:
            self.run(
                tuple(argv),
                assignments=assignments,
                scope=scope,
                ctx=own,
                text=text,
                cwds=scope.cwds,
            )
        elif targets:
            self.emit(
                Command(
                    program="",
                    argv=(),
                    redirects=own.redirects,
                    cwd=self._cwd(scope.cwds),
                    via=ctx.via,
                    text=text,
                    cwds=scope.cwds,
                    assignments=assignments,
                    read_redirects=own.read_redirects,
                )
            )

    def _cwd(self, cwds: tuple[str, ...]) -> str:
        if not cwds:
            self.fail("the working folder is unknown (cd to a folder that could be anything)")
            return self.cwd
        return cwds[0]

    def emit(self, command: Command) -> None:
        if len(self.commands) >= MAX_COMMANDS:
            raise Limit(f"the script has more than {MAX_COMMANDS} commands")
        self.commands.append(command)

    def run(
        self,
        argv: tuple[Word, ...],
        *,
        assignments: tuple[Word, ...],
        scope: Scope,
        ctx: _Ctx,
        text: str,
        cwds: tuple[str, ...],
        option_values: tuple[int, ...] = (),
    ) -> None:
        """One simple command: record it, then see through what it runs."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Limit(f"the script nests deeper than {MAX_DEPTH}")
            self._run(argv, assignments, scope, ctx, text, cwds, option_values)
        finally:
            self.depth -= 1

    def _run(
        self,
        argv: tuple[Word, ...],
        assignments: tuple[Word, ...],
        scope: Scope,
        ctx: _Ctx,
        text: str,
        cwds: tuple[str, ...],
        option_values: tuple[int, ...],
    ) -> None:
        first = argv[0]
        program: str | None = None
        if first.text is None:
            self.fail(f"the program is not a plain word: {first.source}")
        elif first.alternatives or (
            first.text not in ("[", "[[") and not GLOB_CHARS.isdisjoint(first.text)
        ):
            self.fail(f"the program is a glob: {first.source}")
        else:
            name = first.text.rpartition("/")[2]
            if not name or not plain_program_name(name):
                self.fail(f"the program name is not plain ASCII or is empty: {first.source!r}")
            else:
                program = name
        if program in _RESERVED and first.source == first.text:
            self.fail(f"the grammar misreads this line (a reserved word as a command): {text}")
        own_cwds = cwds
        if program is not None and program in _FOLDER_PROGRAMS:
            own_cwds, values = self._folders(program, argv, cwds, scope)
            option_values = values or option_values
        if scope.environment:
            assignments = assignments + self._environment(scope)
        self.emit(
            new_command(
                program,
                argv,
                ctx.redirects,
                own_cwds[0] if own_cwds else self._cwd(own_cwds),
                ctx.via,
                text,
                option_values,
                own_cwds,
                assignments,
                ctx.read_redirects,
            )
        )
        if program is None:
            return
        for word in assignments:
            hidden = hidden_in_assignment(word)
            if hidden is not None:
                self.reparse(
                    hidden, (*ctx.via, f"{(word.text or word.source).split('=')[0]}="), cwds, ctx
                )
        self.program(program, argv, assignments, scope, ctx, text, cwds)

    def program(
        self,
        program: str,
        argv: tuple[Word, ...],
        assignments: tuple[Word, ...],
        scope: Scope,
        ctx: _Ctx,
        text: str,
        cwds: tuple[str, ...],
    ) -> None:
        if _ordinary(program) and program not in scope.functions and program not in scope.aliases:
            if len(argv) > 2 and _unknown(program):
                self._read_through(program, argv, assignments, scope, ctx, text, cwds)
            return  # the common case: a program that runs nothing else and changes nothing
        if not ctx.wrapped and program in ("cd", "pushd", "popd", "chdir"):
            self.change_folder(program, argv, scope)
            return
        if program in scope.functions and program not in ctx.calls and not ctx.wrapped:
            self.repeated = True
            self.walk(scope.functions[program], scope, ctx._replace(calls=ctx.calls | {program}))
            return
        self._inline_alias(program, argv, scope, ctx)
        if program == "exec" and len(argv) == 1 and ctx.stdin in _STDIN_NAMES:
            self.fail("exec redirects the shell's own stdin for the commands after it")
        if program in _ASSIGNING:
            _forget_assigned(argv, scope)
        self._builtin(program, argv, scope, ctx, cwds)
        self._lists(program, argv, ctx)
        self._interpreter(program, argv, ctx)
        self._symlinks(program, argv, cwds)
        self._hidden(program, argv, ctx, cwds)
        for seen in see_through(program, argv) or ():
            self._seen(seen, program, assignments, scope, ctx, text, cwds)

    def _environment(self, scope: Scope) -> tuple[Word, ...]:
        """The hosts set earlier in the script (``export https_proxy=...``), as ``K=V`` words
        of each later command; one whose value is not known makes the script opaque."""
        words = tuple(scope.environment.values())
        unknown = next((w for w in words if w.text is None), None)
        if unknown is not None:
            self.fail(
                f"a proxy, package index or toolhooks setting is set to a word not known: "
                f"{unknown.source}"
            )
        return words

    def _folders(
        self, program: str, argv: tuple[Word, ...], cwds: tuple[str, ...], scope: Scope
    ) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """The folders a program's operands are read from after its folder options (``git -C``
        moves git itself; ``tar -C`` and ``make -C`` count besides the working folder, since
        the operands before them are read from it), and git's option values."""
        table = PROGRAMS[program]
        if program == "git":
            read = read_options(argv, 1, table.options)
            own = cwds
            for option, value in read.seen:
                if option in table.folders:
                    own = self.changed_folder(own, _tilde(value, scope))
            return own, tuple(read.value_indexes)
        found = list(cwds)
        for option, value in every_option(table, argv):
            if option in table.folders:
                moved = self.changed_folder(cwds, _tilde(value, scope))
                if not moved:
                    return (), ()
                found.extend(moved)
        return tuple(dict.fromkeys(found))[:MAX_CWDS], ()

    def _read_through(
        self,
        program: str,
        argv: tuple[Word, ...],
        assignments: tuple[Word, ...],
        scope: Scope,
        ctx: _Ctx,
        text: str,
        cwds: tuple[str, ...],
    ) -> None:
        """An unknown program is also read as a wrapper from its first later word that is a
        wrapper, shell or interpreter (``gosu root bash -c 'rm -rf x'``), see _readings.py."""
        for i in range(1, len(argv) - 1):
            word = argv[i].text
            if not word or word[0] == "-":
                continue
            name = word.rpartition("/")[2]
            if _runs_or_reveals(name):
                via = (*ctx.via, f"{program} (read as a wrapper)")
                inner = ctx._replace(via=via, wrapped=True)
                self.run(
                    argv[i:], assignments=assignments, scope=scope, ctx=inner, text=text, cwds=cwds
                )
                return

    def _inline_alias(self, program: str, argv: tuple[Word, ...], scope: Scope, ctx: _Ctx) -> None:
        alias = scope.aliases.get(program)
        if alias is not None and not ctx.wrapped and argv[0].source == argv[0].text:
            # An alias is replaced by its text before the line is parsed: parse them together.
            self.inline(" ".join([alias, *(w.source for w in argv[1:])]), scope, ctx, program)

    def _hidden(
        self, program: str, argv: tuple[Word, ...], ctx: _Ctx, cwds: tuple[str, ...]
    ) -> None:
        """Scripts hidden in options (``git -c alias.x=!cmd``) and ssh's remote command."""
        for label, script in hidden_commands(program, argv):
            self.reparse(script, (*ctx.via, label), cwds, ctx)
        remote = ssh_remote_command(program, argv)
        if remote is not None:
            self.reparse(remote, (*ctx.via, program), cwds, ctx._replace(stdin=None))

    def _builtin(
        self,
        program: str,
        argv: tuple[Word, ...],
        scope: Scope,
        ctx: _Ctx,
        cwds: tuple[str, ...],
    ) -> None:
        """Builtins and programs that run a string or a file, or read their options from one."""
        if program == "eval":
            self.fail("eval runs a string as a script")
        elif program in ("apply_patch", "applypatch") and ctx.stdin in _STDIN_NAMES:
            self.fail(f"{program} reads its patch from {_STDIN_NAMES[ctx.stdin]}")
        elif (from_file := options_from_file(program, argv)) is not None:
            self.fail(f"{from_file} reads the URLs, hosts or options it uses from a file")
        elif (glob := _unread_url_glob(program, argv)) is not None:
            self.fail(f"{program} expands a URL glob past {MAX_URL_GLOBS} URLs or cannot: {glob}")
        else:
            handler = _BUILTINS.get(program)
            if handler is not None:
                handler(self, program, argv, scope, ctx, cwds)

    def _lists(self, program: str, argv: tuple[Word, ...], ctx: _Ctx) -> None:
        """A program reading the names of the files it touches from a file or its stdin (``tar
        -T``, ``cpio -o``, ``git apply``): the names count as its paths (``command_paths``)
        when that file can be read here; a pipe, a here-doc, an unknown word, a missing or long
        file, or one an earlier command of the script names (it may have written it) cannot."""
        sources = list_sources(program, argv)
        if not sources:
            return
        this = self.commands[-1]
        for _, word in sources:
            if word is None and ctx.stdin in _STDIN_NAMES:
                self.fail(f"{program} reads the names of its files from {_STDIN_NAMES[ctx.stdin]}")
                return
            name = this_stdin(this) if word is None else word.text
            if word is not None and name is None:
                self.fail(f"{program} reads the names of its files from a word not known")
                return
            if name is None:
                continue  # the agent's own stdin: nothing to read
            self.used_files = True
            base = posixpath.basename(name)
            earlier = (w.text for c in self.commands[:-1] for w in (*c.argv[1:], *c.redirects))
            if any(t and posixpath.basename(t) == base for t in earlier):
                self.fail(f"{program} reads names from {name}, which an earlier command names")
                return
            if read_list(posixpath.join(this.cwd, name)) is None:
                self.fail(f"{program} reads the names of its files from {name}, not readable here")
                return

    def _hash(
        self, program: str, argv: tuple[Word, ...], scope: Scope, ctx: _Ctx, cwds: tuple[str, ...]
    ) -> None:
        if any((w.text or "-p").startswith("-p") for w in argv[1:]):
            self.fail("hash -p makes a name run another program")

    def _enable(
        self, program: str, argv: tuple[Word, ...], scope: Scope, ctx: _Ctx, cwds: tuple[str, ...]
    ) -> None:
        if any((w.text or "-f").startswith("-f") for w in argv[1:]):
            self.fail("enable -f loads a builtin from a file")

    def _source(
        self, program: str, argv: tuple[Word, ...], scope: Scope, ctx: _Ctx, cwds: tuple[str, ...]
    ) -> None:
        self.fail(f"{program} runs a file as a script")

    def _alias(
        self, program: str, argv: tuple[Word, ...], scope: Scope, ctx: _Ctx, cwds: tuple[str, ...]
    ) -> None:
        for word in argv[1:]:
            if word.text is not None:
                name, eq, value = word.text.partition("=")
                if not eq:
                    continue
                scope.aliases[name] = value
                word = Word(text=value, source=word.source)
            self.reparse(word, (*ctx.via, program), cwds, ctx)

    def _trap(
        self, program: str, argv: tuple[Word, ...], scope: Scope, ctx: _Ctx, cwds: tuple[str, ...]
    ) -> None:
        for word in argv[1:2]:
            self.reparse(word, (*ctx.via, program), cwds, ctx)

    def _interpreter(self, program: str, argv: tuple[Word, ...], ctx: _Ctx) -> None:
        kind = interpreter(program)
        if ctx.stdin in _STDIN_NAMES and (reads := _program_on_stdin(program, argv)):
            self.fail(f"{program} reads {reads} from {_STDIN_NAMES[ctx.stdin]}")
            return
        if kind is None:
            return
        source = program_source(kind, argv)
        if source == "stdin" and ctx.stdin in _STDIN_NAMES:
            self.fail(f"{program} reads its program from {_STDIN_NAMES[ctx.stdin]}")
        elif isinstance(source, Word) and source.text is None:
            self.fail(f"{program} runs a program that is not a plain word: {source.source}")

    def _symlinks(self, program: str, argv: tuple[Word, ...], cwds: tuple[str, ...]) -> None:
        made = symlinks_made(program, argv, cwds, self.home)
        if made is None:
            self.fail("ln -s makes a link from or to a word that is not plain")
        elif made:
            self.used_files = True
            self.links.extend(made)
            if len(self.links) > MAX_LINKS:
                raise Limit(f"the script makes more than {MAX_LINKS} symlinks")

    def _seen(
        self,
        seen: Seen,
        program: str,
        assignments: tuple[Word, ...],
        scope: Scope,
        ctx: _Ctx,
        text: str,
        cwds: tuple[str, ...],
    ) -> None:
        """One command a wrapper runs (``sudo X``, ``bash -c S``)."""
        if seen.opaque is not None:
            self.fail(seen.opaque)
            return
        via = (*ctx.via, seen.via)
        inner_cwds = self.changed_folder(cwds, seen.chdir) if seen.chdir is not None else cwds
        if seen.script is not None:
            self.reparse(seen.script, via, inner_cwds, ctx)
        if seen.argv:
            self.run(
                seen.argv,
                assignments=assignments + seen.assignments,
                scope=scope,
                ctx=ctx._replace(
                    via=via, stdin="pipe" if program == "coproc" else ctx.stdin, wrapped=True
                ),
                text=text,
                cwds=inner_cwds,
                option_values=seen.option_values,
            )
        elif seen.assignments:
            for word in seen.assignments:
                hidden = hidden_in_assignment(word)
                if hidden is not None:
                    self.reparse(hidden, via, cwds, ctx)

    # ---- working folders -----------------------------------------------------------------

    def changed_folder(self, cwds: tuple[str, ...], target: Word | None) -> tuple[str, ...]:
        """The folders after changing to ``target`` from any of ``cwds``: the target, and the
        folder it was in when the target does not exist yet (the change may fail)."""
        if target is None or target.text is None or not cwds:
            return ()
        found: list[str] = []
        self.used_files = True
        for cwd in cwds:
            new = posixpath.normpath(posixpath.join(cwd, target.text))
            if new.startswith("//"):
                new = "/" + new.lstrip("/")
            found.append(new)
            if not os.path.isdir(new):
                found.append(cwd)
        return tuple(dict.fromkeys(found))[:8]

    def _cdpath(self, scope: Scope, target: Word | None) -> tuple[str, ...]:
        """The folders ``cd NAME`` may reach through a CDPATH the script set (``export
        CDPATH=~; cd .aws``): each entry's NAME. A CDPATH that is not known: the folder is not."""
        if "CDPATH" not in scope.vars or target is None or target.text is None:
            return ()
        name = target.text
        if name.startswith(("/", "./", "../")) or name in (".", ".."):
            return ()
        cdpath = scope.vars["CDPATH"]
        if cdpath is None:
            self.fail("cd searches a CDPATH that is not known")
            return ()
        found: list[str] = []
        for entry in cdpath.split(":"):
            joined = Word(text=posixpath.join(entry or ".", name), source=target.source)
            found.extend(self.changed_folder(scope.cwds, joined))
        return tuple(found)

    def change_folder(self, program: str, argv: tuple[Word, ...], scope: Scope) -> None:
        operands = [
            w for w in argv[1:] if w.text is None or not w.text.startswith("-") or w.text == "-"
        ]
        before = scope.cwds
        if program == "popd":
            if scope.dirs:
                scope.cwds = scope.dirs[-1]
                scope.dirs = scope.dirs[:-1]
            else:
                scope.cwds = () if scope.dirs is None else scope.cwds
            scope.vars.pop("PWD", None)
            return
        if not operands:
            target: Word | None = (
                Word(text=scope.home_folder(), source="~") if program != "pushd" else None
            )
        elif operands[0].text == "-":
            old = scope.vars.get("OLDPWD")
            target = Word(text=old, source="-")
        else:
            target = operands[0]
        scope.cwds = self._cdpath(scope, target) + self.changed_folder(scope.cwds, target)
        scope.cwds = tuple(dict.fromkeys(scope.cwds))[:MAX_CWDS] if scope.cwds else ()
        if program == "pushd" and scope.dirs is not None:
            scope.dirs = (*scope.dirs, before)
        scope.vars.pop("PWD", None)
        scope.vars["OLDPWD"] = before[0] if len(before) == 1 else None


_SPECIAL = frozenset(
    {
        "cd",
        "pushd",
        "popd",
        "chdir",
        "exec",
        "eval",
        "source",
        ".",
        "alias",
        "trap",
        "coproc",
        "ln",
        "apply_patch",
        "applypatch",
        "hash",
        "enable",
    }
) | {
    name
    for name, table in PROGRAMS.items()
    if table.runs
    or table.hosts
    or table.folders
    or table.from_file
    or table.program_file
    or table.stdin_program
    or table.url_globs
    or table.deletes
    or table.lists
    or table.stdin_list
}
"""Programs the walker looks at beyond their record: shell builtins, and every program whose
table says it runs a command, reads a file of URLs or its program, or changes folder."""
_FOLDER_PROGRAMS = frozenset(name for name, table in PROGRAMS.items() if table.folders)
_STDIN_PROGRAM_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def _program_on_stdin(program: str, argv: tuple[Word, ...]) -> str | None:
    """What a program reads from its stdin that it runs: ``awk -f -``, ``make -f -``, ``ed``."""
    table = PROGRAMS.get(program)
    if table is None:
        return None
    if table.stdin_program:
        return "the commands it runs"
    if table.program_file:
        for option, value in every_option(table, argv):
            if option in table.program_file and (
                value is None or value.text is None or value.text in _STDIN_PROGRAM_FILES
            ):
                return "its program"
    return None


def _unread_url_glob(program: str, argv: tuple[Word, ...]) -> str | None:
    """A URL of a program that expands URL globs (curl) that expands past the bound."""
    table = PROGRAMS.get(program)
    if table is None or not table.url_globs:
        return None
    options = every_option(table, argv)
    if any(o in ("-g", "--globoff") for o, _ in options):
        return None
    words = [w for w in argv[1:] if w.text and not w.text.startswith("-")]
    words += [v for o, v in options if o == "--url" and v is not None and v.text]
    for word in words:
        if url_globs(word.text or "") is None:
            return word.source
    return None


def _tilde(word: Word | None, scope: Scope) -> Word | None:
    """A folder option's value with a leading ``~`` as the home folder (``--directory=~``)."""
    if word is None or word.text is None or not word.text.startswith("~"):
        return word
    home = scope.home_folder()
    if home is None or not (word.text == "~" or word.text.startswith("~/")):
        return word
    return Word(text=home + word.text[1:], source=word.source)


@functools.lru_cache(maxsize=1024)
def _ordinary(program: str) -> bool:
    """Whether ``program`` needs no more than its record: no wrapper, interpreter, builtin that
    changes the shell, or program that hides commands in its options."""
    return (
        program not in _SPECIAL
        and program not in _ASSIGNING
        and program not in WRAPPERS
        and program.rstrip("0123456789.-") not in SHELLS
        and interpreter(program) is None
    )


@functools.lru_cache(maxsize=1024)
def _unknown(program: str) -> bool:
    return reads_as_wrapper(program)


@functools.lru_cache(maxsize=1024)
def _runs_or_reveals(name: str) -> bool:
    """A word an unknown program is read as a wrapper from: a wrapper, a shell, an interpreter,
    or a program whose table says more than its words (a command hidden in an option)."""
    return (
        name in WRAPPERS
        or name in PROGRAMS
        or name.rstrip("0123456789.-") in SHELLS
        or interpreter(name) is not None
    )


def _redirected_ctx(ctx: _Ctx, words: list[Word], reads: list[int], stdin: str | None) -> _Ctx:
    """``ctx`` with more redirection targets (``reads``: the indexes among ``words`` only read)."""
    before = len(ctx.redirects)
    return ctx._replace(
        redirects=ctx.redirects + tuple(words),
        read_redirects=ctx.read_redirects + tuple(before + i for i in reads)
        if reads
        else ctx.read_redirects,
        stdin=stdin or ctx.stdin,
    )


def _forget_assigned(argv: tuple[Word, ...], scope: Scope) -> None:
    """read X, mapfile X, printf -v X, getopts o X, let X=1: X could now be anything."""
    for word in argv[1:]:
        name = (word.text or "").split("=", 1)[0]
        if _NAME.match(name):
            _set_variable(scope, name, None)  # (a proxy so set is not known: opaque)


def _redirect_target(
    operator: str,
    operands: list[Node],
    stdin: str | None,
    scope: Scope,
    on_sub: Callable[[Node], None],
    spill: list[list[Node]],
    words: list[Word],
) -> str | None:
    """Add a file redirection's target to ``words``; where stdin now comes from."""
    groups = _groups(operands)
    spill.extend(groups[1:])
    groups = groups[:1]
    if operator in _FD_DUPLICATES and all(
        (o.type in ("number", "word") and _text(o).rstrip("-").isdigit()) or _text(o) == "-"
        for group in groups
        for o in group
    ):
        return stdin
    for group in groups:
        if operator.startswith("<") and any(o.type == "process_substitution" for o in group):
            stdin = "pipe"
        found = expand(group, scope, on_sub)
        words.extend(found)
    if operator in ("<", "<>") and stdin is None:
        stdin = "file"
    return stdin


def _simple_parts(
    node: Node, redirect_starts: set[int]
) -> tuple[list[Node], list[Node], list[Node]]:
    """A simple command's prefix assignments, words and redirections."""
    prefix: list[Node] = []
    words: list[Node] = []
    redirects: list[Node] = []
    for child in node.children:
        kind = child.type
        if kind == "variable_assignment" and not words:
            prefix.append(child)
        elif kind in _REDIRECT_NODES:
            redirects.append(child)
        elif kind == "command_name":
            words.extend(child.children)
        elif kind == "comment":
            continue
        elif child.is_named or kind == "$":
            words.append(child)
    if redirects:
        redirect_starts = redirect_starts | {r.start_byte for r in redirects}
    if redirect_starts:
        words = [w for w in words if not (w.type == "number" and w.end_byte in redirect_starts)]
    return prefix, words, redirects


def _set_variable(scope: Scope, name: str, value: str | None) -> None:
    scope.vars[name] = value
    if carried(name):
        text = None if value is None else f"{name}={value}"
        scope.environment[name] = Word(text=text, source=f"{name}= (set earlier)")
    if name == "IFS":
        scope.ifs_changed = True
    if name == "PWD":
        scope.vars.pop("PWD", None)
        scope.vars["PWD"] = value


def _assigned(chars: list[tuple[str, int]], scope: Scope) -> str:
    """An assignment's value: ``~`` expands at its start and after each ``:``."""
    text = "".join(c for c, _ in chars)
    if "~" not in text:
        return text
    home = scope.home_folder() or "~"
    parts = text.split(":")
    return ":".join(home + p[1:] if p == "~" or p.startswith("~/") else p for p in parts)


def _changed(before: Scope, after: Scope) -> bool:
    return before.vars != after.vars or before.cwds != after.cwds or before.dirs != after.dirs


def _first_error(root: Node) -> str:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            row, column = node.start_point
            return f"line {row + 1}, column {column + 1}"
        if node.has_error:
            stack.extend(reversed(node.children))
    return "somewhere"


_HANDLERS: dict[str, Callable[[Walker, Node, Scope, _Ctx], None]] = {
    "program": Walker._block,
    "compound_statement": Walker._block,
    "do_group": Walker._block,
    "negated_command": Walker._block,
    "subshell": Walker._subshell,
    "command_substitution": Walker.substitution,
    "process_substitution": Walker.substitution,
    "list": Walker._list,
    "pipeline": Walker._pipeline,
    "redirected_statement": Walker._redirected,
    "command": Walker._command,
    "variable_assignment": Walker._assign,
    "variable_assignments": Walker._block,
    "declaration_command": Walker._declaration,
    "unset_command": Walker._unset,
    "if_statement": Walker._if,
    "while_statement": Walker._while,
    "for_statement": Walker._for,
    "c_style_for_statement": Walker._c_for,
    "case_statement": Walker._case,
    "function_definition": Walker._function,
    "comment": lambda *_: None,
}


_BUILTINS: dict[
    str, Callable[[Walker, str, tuple[Word, ...], Scope, _Ctx, tuple[str, ...]], None]
] = {
    "hash": Walker._hash,
    "enable": Walker._enable,
    "source": Walker._source,
    ".": Walker._source,
    "alias": Walker._alias,
    "trap": Walker._trap,
}
