"""Aligned plain-text tables for people (``--json`` is for machines); no dependencies.

Widths are measured in terminal cells: East Asian wide and full-width characters take two,
combining marks and zero-width characters none, so columns line up with CJK text and emoji too.
Control characters (a newline inside a cell, an escape sequence from a tool result) are shown as
visible escapes and never reach the terminal. Over-wide cells are cut with an ellipsis, except in
a ``wrap`` column, which continues on indented lines; the last column is never padded.
"""

from __future__ import annotations

import os
import shutil
import textwrap
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Literal

from ._output import COLOURS

Align = Literal["left", "right"]
ELLIPSIS = "..."
GAP = "  "
_ZERO_WIDTH = frozenset({"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"})
_MARKERS = frozenset(COLOURS)  # the CLI's own colour markers take no room


@lru_cache(maxsize=4096)
def _char_width(char: str) -> int:
    if char in _ZERO_WIDTH or char in _MARKERS or unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cell_width(text: str) -> int:
    """How many terminal cells ``text`` takes (after :func:`clean`)."""
    if text.isascii():
        return len(text)
    return sum(_char_width(char) for char in text)


def clean(value: object) -> str:
    """The text of one cell: None is empty, control characters become visible escapes."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char == "\n":
            out.append(" / ")
        elif char == "\t":
            out.append(" ")
        elif char.isprintable() or char in _ZERO_WIDTH:
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def cut(text: str, width: int) -> str:
    """``text`` shortened to ``width`` cells, ending in an ellipsis when it had to be cut."""
    if cell_width(text) <= width:
        return text
    if width <= len(ELLIPSIS):
        return ELLIPSIS[:width]
    room = width - len(ELLIPSIS)
    used = 0
    kept = []
    for char in text:
        step = _char_width(char)
        if used + step > room:
            break
        kept.append(char)
        used += step
    return "".join(kept).rstrip() + ELLIPSIS


def pad(text: str, width: int, align: Align = "left") -> str:
    gap = " " * max(0, width - cell_width(text))
    return gap + text if align == "right" else text + gap


def terminal_width(default: int = 100) -> int:
    """The terminal's width in cells; ``$COLUMNS`` wins, ``default`` when not a terminal."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return shutil.get_terminal_size((default, 24)).columns


def _wrap(text: str, width: int) -> list[str]:
    lines = textwrap.wrap(
        text, width=max(width, 10), break_long_words=False, break_on_hyphens=False
    )
    return lines or [""]


def render(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    align: Sequence[Align] | None = None,
    max_width: int = 60,
    wrap: int | None = None,
    width: int | None = None,
    empty: str = "(none)",
    indent: str = "",
    notes: Sequence[str | None] | None = None,
) -> str:
    """The table as text: a header line, a rule, one line per row (more for a wrapped cell).

    :param align: per column, ``"left"`` (default) or ``"right"`` (use it for numbers).
    :param max_width: cells wider than this are cut with an ellipsis (not in ``wrap``).
    :param wrap: index of a column (normally the last) that wraps to fit ``width``.
    :param width: the line width ``wrap`` fits into; default :func:`terminal_width`.
    :param empty: printed under the header when there are no rows.
    :param notes: per row, text printed under it from the second column on, wrapped to
        ``width``; each line of a note starts a new line.
    """
    cells = [[clean(value) for value in row] for row in rows]
    count = len(headers)
    aligns: list[Align] = list(align or ()) + ["left"] * count
    for row in cells:
        if len(row) != count:
            raise ValueError(f"a row has {len(row)} cells, the table has {count} columns")
        for index, text in enumerate(row):
            if index != wrap:
                row[index] = cut(text, max_width)
    widths = [cell_width(header) for header in headers]
    for row in cells:
        for index, text in enumerate(row):
            if index != wrap:
                widths[index] = max(widths[index], cell_width(text))
    wrap_width = 0
    if wrap is not None:
        used = len(indent) + sum(widths[i] + len(GAP) for i in range(count) if i != wrap)
        wrap_width = max(30, (width or terminal_width()) - used)
        longest = max((cell_width(row[wrap]) for row in cells), default=0)
        widths[wrap] = max(widths[wrap], min(longest, wrap_width))
    lines = [_line(list(headers), widths, aligns, indent)]
    lines.append(_line(["-" * w for w in widths], widths, aligns, indent))
    if not cells:
        lines.append(indent + empty)
    note_indent = indent + " " * (widths[0] + len(GAP) + 2) if count > 1 else indent + "  "
    note_width = max(30, (width or terminal_width()) - len(note_indent))
    for number, row in enumerate(cells):
        if wrap is None:
            lines.append(_line(row, widths, aligns, indent))
        else:
            lines.extend(_wrapped(row, wrap, wrap_width, widths, aligns, indent))
        note = notes[number] if notes is not None and number < len(notes) else None
        for paragraph in (note or "").splitlines():
            lines.extend(note_indent + piece for piece in _wrap(clean(paragraph), note_width))
    return "\n".join(lines)


def _wrapped(row: list[str], wrap: int, wrap_width: int, widths: list[int], aligns: list[Align],
             indent: str) -> list[str]:  # fmt: skip
    count = len(row)
    lines = []
    pieces = _wrap(row[wrap], wrap_width)
    first = list(row)
    first[wrap] = pieces[0]
    lines.append(_line(first, widths, aligns, indent))
    for piece in pieces[1:]:
        more = [""] * count
        more[wrap] = piece
        lines.append(_line(more, widths, aligns, indent))
    return lines


def _line(row: list[str], widths: list[int], aligns: list[Align], indent: str) -> str:
    last = len(row) - 1
    parts = []
    for index, text in enumerate(row):
        if index == last and aligns[index] == "left":
            parts.append(text)
        else:
            parts.append(pad(text, widths[index], aligns[index]))
    return (indent + GAP.join(parts)).rstrip()


def pairs(items: Iterable[tuple[str, object]], indent: str = "") -> str:
    """``label  value`` lines with the labels padded to one width (a header block)."""
    rows = [(clean(label), clean(value)) for label, value in items]
    width = max((cell_width(label) for label, _ in rows), default=0)
    return "\n".join((indent + pad(label, width) + GAP + value).rstrip() for label, value in rows)
