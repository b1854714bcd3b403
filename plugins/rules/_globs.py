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
from dataclasses import dataclass

Matcher = Callable[[str], bool]


def word_glob(patterns: Iterable[str]) -> Matcher:
    """One matcher for several fnmatch globs (case-sensitive, as a shell's words are)."""
    joined = "|".join(f"(?:{fnmatch.translate(pattern)})" for pattern in patterns)
    match = re.compile(joined, re.S).match
    return lambda text: match(text) is not None


def prefix_word(pattern: str) -> Matcher:
    """A command word: literal except ``*`` (a program name never holds ``?`` or ``[``)."""
    if "*" not in pattern:
        return pattern.__eq__
    regex = re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.S)
    return lambda text: regex.fullmatch(text) is not None


def _path_body(pattern: str) -> str:
    """The regex of an absolute gitignore-style pattern (no anchors)."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("/**/", i):
            out.append("/(?:.*/)?")
            i += 4
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")  # X/** matches X itself and everything under it
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
                i += 1
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
                i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _forms(folder: str) -> tuple[str, ...]:
    """A folder as written and after symlinks (both, when they differ)."""
    folder = os.path.normpath(folder)
    real = os.path.realpath(folder)
    return (folder,) if real == folder else (folder, real)


@dataclass(frozen=True, slots=True)
class PathGlobs:
    """Compiled ``paths`` patterns: ``any`` (one path matches) and ``every`` (all do)."""

    full: re.Pattern[str] | None
    """Patterns with a folder: anchored at the root, the project or the home folder."""
    name: re.Pattern[str] | None
    """Patterns without ``/``: a name at any depth (any component of the path)."""

    def __call__(self, path: str) -> bool:
        if self.full is not None and self.full.fullmatch(path) is not None:
            return True
        if self.name is not None:
            return any(self.name.fullmatch(part) for part in path.split("/") if part)
        return False


def path_globs(patterns: Iterable[str], *, project: str, home: str) -> PathGlobs:
    full: list[str] = []
    names: list[str] = []
    for raw in patterns:
        pattern = raw.rstrip("/") or "/"
        if pattern == "~" or pattern.startswith("~/"):
            full += [re.escape(base) + _path_body(pattern[1:]) for base in _forms(home)]
        elif pattern.startswith("/"):
            full.append(_path_body(pattern))
        elif pattern.startswith("**/"):
            full.append("(?:.*/)?" + _path_body(pattern[3:]))
        elif "/" not in pattern:
            names.append(_path_body(pattern))
        else:
            relative = pattern[2:] if pattern.startswith("./") else pattern
            full += [re.escape(base) + _path_body("/" + relative) for base in _forms(project)]
    return PathGlobs(
        re.compile("|".join(f"(?:{p})" for p in full), re.S) if full else None,
        re.compile("|".join(f"(?:{p})" for p in names), re.S) if names else None,
    )


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
    parts = []
    for raw in patterns:
        pattern = host_pattern(raw)
        parts.append(".*".join(re.escape(piece) for piece in pattern.split("*")))
    regex = re.compile("|".join(f"(?:{p})" for p in parts), re.S)
    return lambda host: regex.fullmatch(host) is not None
