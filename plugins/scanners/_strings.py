"""The decoded strings of a structured value, with where each is, and the value rebuilt with
some of them replaced."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

MAX_STRINGS = 10_000
"""Strings read from one value; a value with more is read up to here (its text the model reads
is scanned whole anyway)."""
MAX_DEPTH = 64


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, string) of every string in ``value`` at any depth: mapping values (not keys), list
    items; ``path`` is dotted (``to.0.iban``)."""
    stack: list[tuple[str, Any, int]] = [(path, value, 0)]
    count = 0
    while stack and count < MAX_STRINGS:
        where, item, depth = stack.pop()
        if isinstance(item, str):
            count += 1
            yield where, item
        elif depth < MAX_DEPTH and isinstance(item, Mapping):
            for key, inner in reversed(list(item.items())):
                stack.append((_join(where, str(key)), inner, depth + 1))
        elif depth < MAX_DEPTH and isinstance(item, (list, tuple)):
            for index in range(len(item) - 1, -1, -1):
                stack.append((_join(where, str(index)), item[index], depth + 1))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def rebuilt(value: Any, change: Callable[[str, str], str], path: str = "", depth: int = 0) -> Any:
    """A plain copy of ``value`` (dicts and lists) with each string replaced by
    ``change(path, string)``."""
    if isinstance(value, str):
        return change(path, value)
    if depth < MAX_DEPTH and isinstance(value, Mapping):
        return {k: rebuilt(v, change, _join(path, str(k)), depth + 1) for k, v in value.items()}
    if depth < MAX_DEPTH and isinstance(value, (list, tuple)):
        return [rebuilt(v, change, _join(path, str(i)), depth + 1) for i, v in enumerate(value)]
    return value
