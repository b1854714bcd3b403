"""A simple command's words as rules read them: the argv prefix (``command``), its flags and
its non-option args, in three values (``True``, ``False``, ``None``: an unknown word could
decide it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from toolhooks.analysis import value_options
from toolhooks.kit import Record

from ._globs import Matcher, prefix_word

Tri = bool | None
GIT_VALUE_OPTIONS: Final = value_options("git")
"""git's global options that take the next word as their value (skipped before the subcommand),
from the analysis' table of git (one list for every reader)."""


def both(a: Tri, b: Tri) -> Tri:
    """Three-valued AND."""
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def either(a: Tri, b: Tri) -> Tri:
    """Three-valued OR."""
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


class Found(Record):
    """A condition's answer on one subject and the item that decided it (for the reason)."""

    __slots__ = ("item", "items", "kind", "value")

    value: Tri
    item: str | None
    kind: str
    items: tuple[str, ...]
    """Every item that matched, when asked for (the items an unless table is read over)."""

    def __init__(
        self, *, value: Tri, item: str | None = None, kind: str = "", items: tuple[str, ...] = ()
    ) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "item", item)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "items", items)


NO: Final = Found(value=False)


def is_option(text: str) -> bool:
    return len(text) > 1 and text.startswith("-")


class Prefix:
    """``command``: the argv prefix, options (and a value each may take) skipped between words."""

    def __init__(self, words: Sequence[str | Sequence[str]]) -> None:
        self.words: tuple[Matcher, ...] = tuple(
            prefix_word(w) if isinstance(w, str) else _alternatives(w) for w in words
        )
        self.first = self.words[0]
        """The program's matcher (a command's basename)."""
        first = words[0] if words else "*"
        firsts = (first,) if isinstance(first, str) else tuple(first)
        self.programs: frozenset[str] | None = (
            None if not firsts or any("*" in w for w in firsts) else frozenset(firsts)
        )
        """The programs the first word can be (None: a glob, any program could be)."""
        self.literal_options = any(
            (isinstance(w, str) and w.startswith("-"))
            or (not isinstance(w, str) and any(a.startswith("-") for a in w))
            for w in words
        )

    def match(self, program: str | None, argv: Sequence[Any]) -> tuple[Tri, int]:
        """(whether it holds, index in argv just after the prefix)."""
        first = self.words[0]
        if program is None:
            return None, 1
        if not first(program):
            return False, -1
        if len(self.words) == 1:
            return True, 1
        if not self._possible(argv):
            return False, -1
        git = program == "git"
        last = len(self.words)
        # states[ai]: (prefix words matched, "--" seen) -> True (known) or None (an unknown
        # word on the way) for the readings that reach argv[ai]; forward only, no recursion.
        states: list[dict[tuple[int, bool], Tri]] = [{} for _ in range(len(argv) + 2)]
        states[1][(1, False)] = True
        best: tuple[Tri, int] = (False, -1)

        def reach(ai: int, pi: int, ended: bool, value: Tri) -> None:
            nonlocal best
            if pi == last:
                if best[0] is not True and (value is True or best[0] is False):
                    best = (value, ai)
                return
            if ai > len(argv):
                return
            slot = states[ai]
            if slot.get((pi, ended)) is not True:
                slot[(pi, ended)] = value

        for ai in range(1, len(argv)):
            text = argv[ai].text
            for (pi, ended), value in list(states[ai].items()):
                if text is None:  # could be the word, or an option
                    reach(ai + 1, pi + 1, ended, None)
                    if not ended:
                        reach(ai + 1, pi, ended, None)
                    continue
                if self.words[pi](text):
                    reach(ai + 1, pi + 1, ended, value)
                if ended:
                    continue
                if text == "--":
                    reach(ai + 1, pi, True, value)
                elif is_option(text):
                    reach(ai + 1, pi, ended, value)
                    takes_value = "=" not in text and (
                        not git or text in GIT_VALUE_OPTIONS or not text.startswith("--")
                    )
                    if takes_value:
                        reach(ai + 2, pi, ended, value)
            states[ai] = {}  # done with this position
            if best[0] is True:
                break
        return best

    def _possible(self, argv: Sequence[Any]) -> bool:
        """Whether each later prefix word is some word of argv (or an unknown one): most
        commands have none (`git status` against `push`), and the walk is skipped."""
        for wanted in self.words[1:]:
            for word in argv[1:]:
                if word.text is None or wanted(word.text):
                    break
            else:
                return False
        return True


def _better(a: tuple[Tri, int], b: tuple[Tri, int]) -> tuple[Tri, int]:
    rank = {True: 2, None: 1, False: 0}
    return b if rank[b[0]] > rank[a[0]] else a


def _alternatives(words: Sequence[str]) -> Matcher:
    if not any("*" in w for w in words):
        return frozenset(words).__contains__  # literal names: one set lookup, not one per name
    matchers = [prefix_word(w) for w in words]
    return lambda text: any(m(text) for m in matchers)


class Parsed(Record):
    """A command's words sorted out: its flags, its non-option args, unknown words."""

    __slots__ = ("args", "flags", "long_flags", "short_words", "unknown_arg", "unknown_option")

    flags: frozenset[str]
    long_flags: tuple[str, ...]
    short_words: tuple[str, ...]
    """Single-dash option words as written (``-rf``, ``-delete``): a word or a cluster."""
    args: tuple[str, ...]
    unknown_option: bool
    unknown_arg: bool

    def __init__(
        self,
        *,
        flags: frozenset[str],
        long_flags: tuple[str, ...],
        short_words: tuple[str, ...],
        args: tuple[str, ...],
        unknown_option: bool,
        unknown_arg: bool,
    ) -> None:
        object.__setattr__(self, "flags", flags)
        object.__setattr__(self, "long_flags", long_flags)
        object.__setattr__(self, "short_words", short_words)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "unknown_option", unknown_option)
        object.__setattr__(self, "unknown_arg", unknown_arg)


def parse_words(argv: Sequence[Any], start: int, cwd: str) -> Parsed:
    """Flags over the whole argv (after argv[0]); args after ``start`` (the prefix's end)."""
    import os

    flags: set[str] = set()
    long_flags: list[str] = []
    short_words: list[str] = []
    args: list[str] = []
    unknown_option = unknown_arg = False
    ended = False
    for index, word in enumerate(argv[1:], 1):
        text = word.text
        if text is None:
            if not ended:
                unknown_option = True
            if index >= start:
                unknown_arg = True
            continue
        if not ended and text == "--":
            ended = True
            continue
        if not ended and text.startswith("--") and len(text) > 2:
            name, sep, value = text.partition("=")
            flags.add(name)
            long_flags.append(name)
            if sep and index >= start:
                args.append(value)
            continue
        if not ended and is_option(text):
            flags.add(text.partition("=")[0])  # a word option (find's -delete)
            short_words.append(text.partition("=")[0])
            for char in text[1:]:
                flags.add("-" + char)
            continue
        if index < start:
            continue
        args.append(text)
        key, sep, value = text.partition("=")
        if sep and key and "/" not in key:
            args.append(value)
        for alternative in getattr(word, "alternatives", ()):
            args.append(alternative)
            args.append(os.path.relpath(alternative, cwd))
    return Parsed(
        flags=frozenset(flags),
        long_flags=tuple(long_flags),
        short_words=tuple(short_words),
        args=tuple(args),
        unknown_option=unknown_option,
        unknown_arg=unknown_arg,
    )
