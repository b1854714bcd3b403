"""Errors that point at a key: its line in the TOML file, the keys its table takes, and the
nearest of them to a misspelt one."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args, get_origin

if TYPE_CHECKING:
    from pydantic import BaseModel


def keys_at(model: type[BaseModel] | None, loc: list[str]) -> list[str]:
    """The keys the table at ``loc`` inside ``model`` takes (list indexes and dict keys are
    stepped over); empty when that is not a model."""
    from pydantic import BaseModel  # only for a mistake in a table a model validates

    node: Any = model
    keyed = False  # the last field was a dict of models: the next part is one of its keys
    for part in loc:
        if not (isinstance(node, type) and issubclass(node, BaseModel)):
            return []
        info = node.model_fields.get(part)
        if info is None:
            if part.isdigit() or keyed:  # an index into a list, a key into a dict of models
                keyed = False
                continue
            return []
        keyed = get_origin(info.annotation) is dict
        node = _model_inside(info.annotation)
    if isinstance(node, type) and issubclass(node, BaseModel):
        return [info.alias or name for name, info in node.model_fields.items()]
    return []


def _model_inside(annotation: Any) -> Any:
    """The model an annotation holds (``X``, ``X | None``, ``list[X]``, ``dict[str, X]``)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in reversed(get_args(annotation)):
        found = _model_inside(arg)
        if found is not None:
            return found
    return None


def did_you_mean(given: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the nearest of ``choices``, or an empty string."""
    import difflib  # only for a mistake in the config

    close = difflib.get_close_matches(given, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def quote(part: str) -> str:
    return part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else f'"{part}"'


_KEY_PART = r'"([^"]*)"|\'([^\']*)\'|([^.\s"\']+)'
"""A dotted key's part (compiled when a dotted key is first split)."""


def _split_dotted(text: str) -> tuple[str, ...]:
    return tuple(next(g for g in m.groups() if g is not None) for m in re.finditer(_KEY_PART, text))


def locate(source: Path, path: tuple[str, ...]) -> int | None:
    """Best-effort line of ``path`` in a TOML file: its ``key =`` line, else its ``[table]`` header."""
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    table: tuple[str, ...] = ()
    header_line: int | None = None
    arrays: dict[tuple[str, ...], int] = {}
    enclosing: tuple[tuple[str, ...], int | None] = ((), None)
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if text.startswith("["):
            table = _split_dotted(text.split("]")[0].lstrip("["))
            if text.startswith("[["):  # the n-th table of an array is at index n: a[0].key
                arrays[table] = arrays.get(table, -1) + 1
                if table == path and header_line is None:
                    header_line = number
                table = (*table, str(arrays[table]))
            if table == path and header_line is None:
                header_line = number
            elif len(table) > len(enclosing[0]) and table == path[: len(table)]:
                enclosing = (table, number)  # a missing key: the table it belongs in
            continue
        if "=" in text and not text.startswith("#"):
            full = table + _split_dotted(text.split("=", 1)[0])
            if len(full) <= len(path) and full == path[: len(full)]:
                return number
    return header_line if header_line is not None else enclosing[1]
