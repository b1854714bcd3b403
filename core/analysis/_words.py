"""Words as the shell sees them: quotes removed, escapes undone, variables we know substituted,
braces expanded, unquoted expansions split, globs matched in the working folder."""

from __future__ import annotations

import fnmatch
import itertools
import os
import posixpath
import pwd
import stat
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ._braces import LITERAL, Chars, TooManyWords, expand_braces
from ._limits import Budget
from ._quotes import ansi_c, unescape_double
from ._records import Word, new_word

if TYPE_CHECKING:
    from tree_sitter import Node

    from ._scope import Scope

QUOTED = 1
EXPANDED = 2
"""An unquoted expansion's result: split on whitespace and globbed, never brace-expanded."""
QUOTED_EXPANSION = 3

MAX_MATCHES = 256
"""A glob counts at most this many matching files."""

GLOB_CHARS = frozenset("*?[")
IFS_WHITESPACE = frozenset(" \t\n")
SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
OnSubstitution = Callable[["Node"], None]


class _Builder:
    """Collects one word's characters; ``unknown`` once any part could be anything."""

    __slots__ = ("chars", "on_sub", "scope", "unknown")

    def __init__(self, scope: Scope, on_sub: OnSubstitution) -> None:
        self.chars: Chars = []
        self.scope = scope
        self.on_sub = on_sub
        self.unknown = False

    def add(self, text: str, kind: int) -> None:
        self.chars.extend(zip(text, itertools.repeat(kind, len(text)), strict=True))

    def node(self, node: Node, quoted: bool) -> None:
        kind = node.type
        if kind == "word":
            self._escaped(_text(node), quoted)
        elif kind == "raw_string":
            self.add(_text(node)[1:-1], QUOTED)
        elif kind == "ansi_c_string":
            self.add(ansi_c(_text(node)[2:-1]), QUOTED)
        elif kind == "string":
            self._double_quoted(node)
        elif kind == "concatenation" or kind == "translated_string":
            self.nodes(node.children, quoted)
        elif kind == "simple_expansion" or kind == "expansion":
            self._expansion(node, quoted)
        elif kind in SUBSTITUTIONS:
            self.on_sub(node)
            self.unknown = True
        elif kind == "string_content":
            self.add(unescape_double(_text(node)), QUOTED)
        else:
            # number, brace_expression, a bare variable_name, an arithmetic expansion...: the
            # text as written, unless an expansion hides inside.
            if _holds_expansion(node, self.on_sub):
                self.unknown = True
            else:
                self.add(_text(node), QUOTED if quoted else LITERAL)

    def nodes(self, nodes: Sequence[Node], quoted: bool) -> None:
        for index, child in enumerate(nodes):
            if (
                child.type == "$"
                and index + 1 < len(nodes)
                and nodes[index + 1].type == "string"
                and nodes[index + 1].start_byte == child.end_byte
            ):
                continue  # $"..." (a translated string) is the string
            self.node(child, quoted)

    def _escaped(self, text: str, quoted: bool) -> None:
        if "\\" not in text:
            self.add(text, QUOTED if quoted else LITERAL)
            return
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "\\" and i + 1 < n:
                self.chars.append((text[i + 1], QUOTED))
                i += 2
            else:
                self.chars.append((ch, QUOTED if quoted else LITERAL))
                i += 1

    def _double_quoted(self, node: Node) -> None:
        children = node.children
        source = node.text or b""
        position = node.start_byte + 1
        end = node.end_byte - 1
        for child in children:
            if child.type == '"' and (
                child.start_byte == node.start_byte or child.end_byte == node.end_byte
            ):
                continue
            if child.start_byte > position:
                gap = source[position - node.start_byte : child.start_byte - node.start_byte]
                self.add(unescape_double(gap.decode("utf-8", "replace")), QUOTED)
            self.node(child, True)
            position = child.end_byte
        if end > position:
            gap = source[position - node.start_byte : end - node.start_byte]
            self.add(unescape_double(gap.decode("utf-8", "replace")), QUOTED)

    def _expansion(self, node: Node, quoted: bool) -> None:
        names = [c for c in node.children if c.is_named]
        plain = len(names) == 1 and names[0].type == "variable_name"
        if node.type == "expansion" and len(node.children) != 3:
            plain = False
        value = self.scope.lookup(_text(names[0])) if plain else None
        if value is None:
            _holds_expansion(node, self.on_sub)
            self.unknown = True
            return
        if len(value) > 64:  # (a short value cannot pass a bound: no bookkeeping)
            self.scope.bounds.expand(len(value), len(self.chars) + len(value))
        self.add(value, QUOTED_EXPANSION if quoted else EXPANDED)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _holds_expansion(node: Node, on_sub: OnSubstitution) -> bool:
    """Whether ``node`` holds an expansion; walks each command substitution inside."""
    found = False
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in SUBSTITUTIONS:
            on_sub(current)
            found = True
            continue
        if kind in ("simple_expansion", "expansion", "arithmetic_expansion"):
            found = True
        stack.extend(reversed(current.children))
    return found


def build(nodes: Sequence[Node], scope: Scope, on_sub: OnSubstitution) -> tuple[Chars, bool]:
    """The characters of the word written as ``nodes`` (adjacent nodes), and whether unknown."""
    builder = _Builder(scope, on_sub)
    builder.nodes(nodes, False)
    return builder.chars, builder.unknown


_PLAIN_UNSAFE = frozenset("\\{*?[~$`'\"")
"""Characters after which a word needs the full treatment (quotes, escapes, braces, globs)."""


def expand(nodes: Sequence[Node], scope: Scope, on_sub: OnSubstitution) -> list[Word]:
    """The words a command argument written as ``nodes`` becomes."""
    if len(nodes) == 1:
        node = nodes[0]
        kind = node.type
        if kind == "word" or kind == "number":
            text = _text(node)
            if _PLAIN_UNSAFE.isdisjoint(text):
                return [new_word(text, text)]
        elif kind == "raw_string":
            source = _text(node)
            return [new_word(source[1:-1], source)]
        elif kind == "string" and node.named_child_count <= 1:
            source = _text(node)
            inner = source[1:-1]
            if _PLAIN_UNSAFE.isdisjoint(inner) and (
                node.named_child_count == 0 or node.named_children[0].type == "string_content"
            ):
                return [new_word(inner, source)]
    source = "".join(_text(n) for n in nodes)
    chars, unknown = build(nodes, scope, on_sub)
    if unknown:
        return [Word(text=None, source=source)]
    return expand_chars(chars, source, scope)


def expand_chars(chars: Chars, source: str, scope: Scope) -> list[Word]:
    if ("{", LITERAL) in chars:
        try:
            braced = expand_braces(chars)
        except TooManyWords:
            return [Word(text=None, source=source)]  # could be any of too many words
        longest = max(len(one) for one in braced)
        scope.bounds.expand(sum(len(one) for one in braced) - len(chars), longest)
    else:
        braced = [chars]
    words: list[Word] = []
    for one in braced:
        one = _tilde(one, scope)
        fields = _split(one, scope)
        if fields is None:
            return [Word(text=None, source=source)]
        for field in fields:
            words.append(_globbed(field, source, scope))
    return words


def _tilde(chars: Chars, scope: Scope) -> Chars:
    if not chars or chars[0] != ("~", LITERAL):
        return chars
    end = next((i for i, (c, _) in enumerate(chars) if c == "/"), len(chars))
    if any(k != LITERAL for _, k in chars[:end]):
        return chars
    user = "".join(c for c, _ in chars[1:end])
    folder: str | None
    if not user:
        folder = scope.home_folder()
    elif user == "+":
        folder = scope.cwds[0] if len(scope.cwds) == 1 else None
    else:
        try:
            folder = pwd.getpwnam(user).pw_dir
        except (KeyError, UnicodeEncodeError, ValueError):
            return chars  # bash leaves an unknown user's ~name as written
    if folder is None:
        return chars
    return [(c, QUOTED) for c in folder] + chars[end:]


def _split(chars: Chars, scope: Scope) -> list[Chars] | None:
    """Fields of an unquoted expansion's result; None when the separators are unknown."""
    if not any(k == EXPANDED for _, k in chars):
        return [chars]  # (the common case: no expansion to split)
    if scope.ifs_changed:
        return None
    fields: list[Chars] = []
    current: Chars = []
    solid = False  # whether the field holds something that is not an expansion's result
    for c, k in chars:
        if k == EXPANDED and c in IFS_WHITESPACE:
            if current or solid:
                fields.append(current)
            current, solid = [], False
            continue
        current.append((c, k))
        if k != EXPANDED:
            solid = True
    if current or solid:
        fields.append(current)
    return fields


_globs = threading.local()


def globs_matched() -> int:
    """How many globs this thread has matched against the file system (the cache keeps no
    result that depended on one)."""
    count: int = getattr(_globs, "count", 0)
    return count


def _globbed(chars: Chars, source: str, scope: Scope) -> Word:
    text = "".join(c for c, _ in chars)
    if GLOB_CHARS.isdisjoint(text) or not any(
        c in GLOB_CHARS and k in (LITERAL, EXPANDED) for c, k in chars
    ):
        return new_word(text, source)
    _globs.count = globs_matched() + 1
    import glob  # a word with a glob in it: not imported at start (its patterns compiled)

    pattern = "".join(
        c if k in (LITERAL, EXPANDED) or c not in "*?[]" else glob.escape(c) for c, k in chars
    )
    matches = glob_matches(pattern, scope.cwds, scope.bounds)
    return Word(text=text, source=source, alternatives=matches)


def glob_matches(
    pattern: str, cwds: Sequence[str], bounds: Budget | None = None
) -> tuple[str, ...]:
    """The files ``pattern`` matches (absolute), from each possible working folder: each
    component matched as bash does (a leading dot only by a dot), through a link back to a
    folder the match is already in once but never twice (a symlink loop), every folder entry
    counted against the analysis' bounds."""
    bounds = Budget() if bounds is None else bounds
    found: list[str] = []
    roots = ["/"] if pattern.startswith("/") else list(cwds)
    parts = [p for p in pattern.split("/") if p]
    if not parts:
        return ()
    for root in roots:
        try:
            start = os.stat(root)
        except (OSError, ValueError):
            continue
        _match(root, parts, ((start.st_dev, start.st_ino),), bounds, found)
        if len(found) >= MAX_MATCHES:
            break
    return tuple(sorted(dict.fromkeys(found)))[:MAX_MATCHES]


def _match(
    folder: str,
    parts: list[str],
    chain: tuple[tuple[int, int], ...],
    bounds: Budget,
    found: list[str],
) -> None:
    """Adds to ``found`` what ``parts`` matches under ``folder``; ``chain`` holds the folders
    (device, inode) the match has passed through."""
    import glob

    part, rest = parts[0], parts[1:]
    if not glob.has_magic(part):
        names = [part]
    else:
        names = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    bounds.entry()
                    name = entry.name
                    if name[0] == "." and part[0] != ".":
                        continue
                    if fnmatch.fnmatchcase(name, part):
                        names.append(name)
        except (OSError, ValueError):
            return
    for name in names:
        path = posixpath.join(folder, name)
        if not rest:
            if len(names) > 1 or os.path.lexists(path):
                found.append(path)
            if len(found) >= MAX_MATCHES:
                return
            continue
        bounds.entry()
        try:
            status = os.stat(path)
        except (OSError, ValueError):
            continue
        key = (status.st_dev, status.st_ino)
        if not stat.S_ISDIR(status.st_mode) or chain.count(key) > 1:
            continue  # not a folder, or a link back into the chain once more: a loop
        _match(path, rest, (*chain, key), bounds, found)
        if len(found) >= MAX_MATCHES:
            return
