"""Tokens: the values whose provenance a ``from`` rule follows.

A token is a maximal run of letters, digits and ``@._%+-/:`` at least 6 characters long (an
IBAN, an e-mail address, a URL, a file name, an id). Tokens are compared lower-cased, with the
run's leading and trailing punctuation dropped (``US1330000001212.`` at the end of a sentence is
the IBAN ``us1330000001212``). A run also gives its pieces between ``/`` and ``:`` of at least 6
characters: ``https://evil.example/steal`` gives ``evil.example`` too, so a URL copied into a
param with another path, or an IBAN written ``iban:US13...``, is still found. E-mail addresses
are not split at ``@``: a domain alone names no one.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from typing import Any

MIN_TOKEN = 6
"""A shorter run is a word, not a value worth following."""

_RUN = re.compile(r"[\w@.%+\-/:]{" + str(MIN_TOKEN) + ",}")
_EDGES = "._%+-/:@"
_PIECES = re.compile(r"[/:]+")
_KEEP = frozenset(string.ascii_letters + string.digits + "@._%+-/:")
_ASCII_GAPS = {code: " " for code in range(128) if chr(code) not in _KEEP}
"""For ASCII text, every character that cannot be in a token, as a space (the fast path)."""


def _add(found: set[str], run: str) -> None:
    run = run.strip(_EDGES)
    if len(run) < MIN_TOKEN:
        return
    found.add(run)
    if "/" in run or ":" in run:
        for piece in _PIECES.split(run):
            piece = piece.strip(_EDGES)
            if len(piece) >= MIN_TOKEN:
                found.add(piece)


def text_tokens(text: str) -> set[str]:
    """The tokens of ``text`` (with their pieces), lower-cased."""
    found: set[str] = set()
    if text.isascii():
        # translate + split runs in C, several times faster than the regex (BENCHMARKS.md, choices made for speed), and
        # the same runs (ASCII \w is letters, digits and the underscore).
        for run in text.lower().translate(_ASCII_GAPS).split():
            if len(run) >= MIN_TOKEN:
                _add(found, run)
        return found
    for match in _RUN.finditer(text):
        _add(found, match.group().lower())
    return found


def value_tokens(value: Any) -> set[str]:
    """The tokens of every string, number and nested item of a call's params.

    Numbers count as their text (an account number given as an int is still that number);
    booleans and None hold no token. Bytes are read as UTF-8 with errors replaced. Mapping keys
    do not count: they are the tool's field names (``recipient``), which any text may say too.
    """
    found: set[str] = set()
    stack: list[Any] = [value]
    seen: set[int] = set()  # a container that holds itself is read once
    while stack:
        item = stack.pop()
        kind = type(item)
        # JSON's own types first, by exact type: ABC isinstance checks cost a microsecond each.
        if kind is str:
            found |= text_tokens(item)
        elif kind is dict or kind is list or kind is tuple:
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item.values() if kind is dict else item)
        elif isinstance(item, str):
            found |= text_tokens(item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, (int, float)):
            try:
                found |= text_tokens(repr(item))
            except ValueError:  # an int past Python's digit limit: its hex is still a token
                found |= text_tokens(hex(int(item)))
        elif isinstance(item, (bytes, bytearray)):
            found |= text_tokens(bytes(item).decode("utf-8", "replace"))
        elif isinstance(item, Mapping):
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item.values())
        elif isinstance(item, Iterable):
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item)
        else:
            found |= text_tokens(str(item))
    return found
