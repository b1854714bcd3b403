"""Brace expansion (``{a,b}``, ``{1..3}``) over the characters a quote did not protect."""

from __future__ import annotations

import itertools

MAX_WORDS = 256
"""A word expands to at most this many words; past it the word is unknown (``{1..99999}``)."""

LITERAL = 0
"""The kind of a character written unquoted in the script: braces, globs and ``~`` act on it."""

Chars = list[tuple[str, int]]
"""A word's characters, each with its kind (LITERAL, or how a quote or expansion made it)."""


class TooManyWords(Exception):
    """A brace expansion would give more than MAX_WORDS words."""


def expand_braces(chars: Chars) -> list[Chars]:
    """The words ``chars`` expands to, in bash's order."""
    found = _first_brace(chars)
    if found is None:
        return [chars]
    start, end, items = found
    prefix, suffix = chars[:start], chars[end + 1 :]
    out: list[Chars] = []
    for item in items:
        for tail in expand_braces(prefix + item + suffix):
            out.append(tail)
            if len(out) > MAX_WORDS:
                raise TooManyWords
    return out


def _first_brace(chars: Chars) -> tuple[int, int, list[Chars]] | None:
    n = len(chars)
    for start in range(n):
        ch, active = chars[start]
        if ch != "{" or active != LITERAL or (start and chars[start - 1] == ("$", LITERAL)):
            continue
        depth, commas, end = 0, [], -1
        for j in range(start + 1, n):
            c, act = chars[j]
            if act != LITERAL:
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    end = j
                    break
                depth -= 1
            elif c == "," and depth == 0:
                commas.append(j)
        if end < 0:
            return None
        if commas:
            bounds = [start, *commas, end]
            return start, end, [chars[a + 1 : b] for a, b in itertools.pairwise(bounds)]
        sequence = _sequence("".join(c for c, _ in chars[start + 1 : end]))
        if sequence is not None:
            return start, end, [[(c, LITERAL) for c in item] for item in sequence]
    return None


def _sequence(body: str) -> list[str] | None:
    parts = body.split("..")
    if len(parts) not in (2, 3):
        return None
    step_text = parts[2] if len(parts) == 3 else "1"
    try:
        step = abs(int(step_text)) or 1
    except ValueError:
        return None
    first, last = parts[0], parts[1]
    try:
        a, b = int(first), int(last)
    except ValueError:
        return _letters(first, last, step)
    return _numbers(first, last, a, b, step)


def _letters(first: str, last: str, step: int) -> list[str] | None:
    """``{a..e}``: one ASCII letter at each end, or no sequence."""
    if not (len(first) == 1 and len(last) == 1 and first.isascii() and last.isascii()):
        return None
    if not (first.isalpha() and last.isalpha()):
        return None
    a, b = ord(first), ord(last)
    if abs(b - a) // step >= MAX_WORDS:
        raise TooManyWords from None
    return [chr(c) for c in range(a, b + (1 if b >= a else -1), step if b >= a else -step)]


def _numbers(first: str, last: str, a: int, b: int, step: int) -> list[str]:
    """``{1..10}``, ``{01..10}`` (a leading zero pads every number to the widest end)."""
    if abs(b - a) // step >= MAX_WORDS:
        raise TooManyWords
    width = (
        max(len(first), len(last))
        if first.lstrip("-").startswith("0") or last.lstrip("-").startswith("0")
        else 0
    )
    values = range(a, b + (1 if b >= a else -1), step if b >= a else -step)
    return [str(v).zfill(width) if width else str(v) for v in values]
