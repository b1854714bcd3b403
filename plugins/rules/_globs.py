"""The three glob dialects of a rule, compiled once at load into regular expressions.

- words and args (``fnmatch``: ``*`` any text, ``?`` one character, ``[...]`` a class; ``*``
  crosses ``/``: an argument is not a path);
- paths (gitignore-style: ``**`` crosses ``/``, ``*`` and ``?`` do not; ``X/**`` matches ``X``
  itself; made absolute against the project and the home folder, in every form the folders
  take when symlinks are resolved);
- hosts (lower case, IDNA, no port, no trailing dot; ``*.example.com`` matches subdomains at any
  depth and, anchored at a dot, never ``example.com.evil.net``).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable

Matcher = Callable[[str], bool]


def word_glob(patterns: Iterable[str]) -> Matcher:
    """One matcher for several fnmatch globs (case-sensitive, as a shell's words are)."""
    joined = "|".join(f"(?:{fnmatch.translate(pattern)})" for pattern in patterns)
    match = re.compile(joined, re.S).match
    return lambda text: match(text) is not None


def _star_only(pattern: str) -> str:
    """``pattern`` as an fnmatch glob in which only ``*`` is special."""
    return pattern.replace("[", "[[]").replace("?", "[?]")


def prefix_word(pattern: str) -> Matcher:
    """A command word: literal except ``*`` (a program name never holds ``?`` or ``[``)."""
    if "*" not in pattern:
        return pattern.__eq__
    match = re.compile(fnmatch.translate(_star_only(pattern)), re.S).match
    return lambda text: match(text) is not None


def _segment(text: str, fold: bool = False) -> Matcher | None:
    """One component's glob (``*``, ``?``, ``[...]``; never crosses ``/``); None for ``**``.
    ``fold``: letters match either case (a case-insensitive file system's reading)."""
    if text == "**":
        return None
    if not any(char in text for char in "*?["):
        if fold:
            folded = text.casefold()
            return lambda name: name.casefold() == folded
        return text.__eq__
    flags = re.S | re.I if fold else re.S
    match = re.compile(fnmatch.translate(text.replace("**", "*")), flags).match
    return lambda name: match(name) is not None


def _segments(pattern: str, fold: bool = False) -> tuple[Matcher | None, ...]:
    """An absolute pattern's components; repeated ``**`` collapse (they match the same)."""
    out: list[Matcher | None] = []
    for part in pattern.split("/"):
        if not part or part == ".":
            continue
        matcher = _segment(part, fold)
        if matcher is None and out and out[-1] is None:
            continue
        out.append(matcher)
    return tuple(out)


def _forms(folder: str) -> tuple[str, ...]:
    """A folder as written and after symlinks (both, when they differ)."""
    folder = os.path.normpath(folder)
    real = os.path.realpath(folder)
    return (folder,) if real == folder else (folder, real)


def _matches(pattern: tuple[Matcher | None, ...], parts: list[str]) -> bool:
    """Whether the components ``parts`` match ``pattern`` (``None``: any number of components).

    Dynamic programming over (pattern index, component index), so a hostile path with many
    components costs pattern length x path length, never the backtracking of a regex."""
    reach = [False] * (len(parts) + 1)
    reach[0] = True
    for matcher in pattern:
        if matcher is None:  # **: zero or more components
            for j in range(1, len(parts) + 1):
                reach[j] = reach[j] or reach[j - 1]
        else:
            reach = [False] + [reach[j] and matcher(parts[j]) for j in range(len(parts))]
        if not any(reach):
            return False
    return reach[len(parts)]


class PathGlobs:
    """Compiled ``paths`` patterns: names (a pattern without ``/``: any component) and full
    patterns (component matchers, ``None`` for ``**``); answers are kept per path (bounded)."""

    __slots__ = ("_known", "full", "names")
    CACHE_SIZE = 4096

    def __init__(
        self, full: tuple[tuple[Matcher | None, ...], ...], names: tuple[Matcher, ...]
    ) -> None:
        self.full = full
        self.names = names
        self._known: dict[str, bool] = {}

    def __call__(self, path: str) -> bool:
        known = self._known.get(path)
        if known is None:
            parts = [part for part in path.split("/") if part]
            known = any(name(part) for part in parts for name in self.names) or any(
                _matches(pattern, parts) for pattern in self.full
            )
            if len(self._known) >= self.CACHE_SIZE:
                self._known.clear()
            self._known[path] = known
        return known

    def matching(self, paths: Iterable[str]) -> list[str]:
        """The ``paths`` that match, in order: ``[p for p in paths if self(p)]`` with each kept
        answer read here, not through a call per path (a call's subjects ask about the same few
        paths again and again)."""
        known = self._known
        found: list[str] = []
        for path in paths:
            hit = known.get(path)
            if hit is None:
                hit = self(path)
            if hit:
                found.append(path)
        return found


def path_globs(
    patterns: Iterable[str], *, project: str, home: str, fold: bool = False
) -> PathGlobs:
    """``fold``: match letters in either case, as a case-insensitive file system (macOS,
    Windows) opens ``.ENV`` for ``.env``; for the conditions that deny, ask or label, where
    matching more fails closed (never for an exception or an allow rule, where it would not)."""
    full: list[tuple[Matcher | None, ...]] = []
    names: list[Matcher] = []
    for raw in patterns:
        pattern = raw.rstrip("/") or "/"
        if pattern == "~" or pattern.startswith("~/"):
            full += [_segments(base + pattern[1:], fold) for base in _forms(home)]
        elif pattern.startswith("/") or pattern.startswith("**/"):
            full.append(_segments(pattern, fold))
        elif "/" not in pattern:
            name = _segment(pattern, fold)  # a name at any depth (and what is under it)
            if name is None:
                full.append((None,))
            else:
                names.append(name)
        else:
            relative = pattern[2:] if pattern.startswith("./") else pattern
            full += [_segments(f"{base}/{relative}", fold) for base in _forms(project)]
    return PathGlobs(tuple(full), tuple(names))


def host_pattern(pattern: str) -> str:
    """A host glob as hosts are normalised: lower case, IDNA per label, no port or final dot."""
    text = pattern.strip().lower().rstrip(".")
    if text.startswith("[") and "]" in text:  # an IPv6 literal, maybe with a port
        return text[1 : text.index("]")]
    if text.count(":") == 1:
        text = text.split(":", 1)[0]
    labels = []
    for label in text.split("."):
        if "*" in label or label.isascii():
            labels.append(label)
        else:
            try:
                labels.append(label.encode("idna").decode("ascii"))
            except UnicodeError:
                labels.append(label)
    return ".".join(labels)


def host_glob(patterns: Iterable[str]) -> Matcher:
    joined = "|".join(f"(?:{fnmatch.translate(_star_only(host_pattern(raw)))})" for raw in patterns)
    match = re.compile(joined, re.S).match
    return lambda host: match(host) is not None
