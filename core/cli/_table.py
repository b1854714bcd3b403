"""Aligned plain-text tables for people (``--json`` is for machines); no dependencies.

Widths are measured in terminal cells: East Asian wide and full-width characters take two,
combining marks and zero-width characters none, so columns line up with CJK text and emoji too.
Control characters (a newline inside a cell, an escape sequence from a tool result) are shown as
visible escapes and never reach the terminal.

On a terminal a table fits its width: cells over ``max_width`` are cut with an ellipsis, then the
widest free-text column (``flex``) gives way until the line fits; a ``wrap`` column continues on
indented lines instead of being cut. Piped, or with ``--wide``, nothing is cut or wrapped: each
row is one whole line, as ``grep`` and ``cut`` want it. The last column is never padded.
Over 300 lines on purpose: measuring, cutting, wrapping and fitting are one algorithm.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Literal, TypeAlias

from ._output import COLOURS, output_width, paint, status_colour, terminal_width

Align = Literal["left", "right"]
Width: TypeAlias = int | Literal["terminal"] | None
"""A line width in cells; ``"terminal"``: :func:`output_width` of stdout; None: no limit."""
ELLIPSIS = "..."
GAP = "  "
WRAP_MIN = 20  # a wrapped column narrower than this reads as a word per line
FLEX_MIN = 8  # a free-text column is cut no narrower than this before the others give way
_ZERO_WIDTH = frozenset({"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"})
_MARKERS = frozenset(COLOURS)  # the CLI's own colour markers take no room

__all__ = [
    "cell_width",
    "clean",
    "cut",
    "pad",
    "paint",
    "pairs",
    "paragraph",
    "render",
    "terminal_width",
]


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


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken at spaces; a word wider than a whole
    line (a long path, a digest) is split so that nothing runs past the edge."""
    width = max(width, 1)
    lines: list[str] = []
    line = ""
    for word in text.split():
        joined = f"{line} {word}" if line else word
        if cell_width(joined) <= width:
            line = joined
            continue
        if line:
            lines.append(line)
        while cell_width(word) > width:
            head = _head(word, width)
            lines.append(head)
            word = word[len(head) :]
        line = word
    if line:
        lines.append(line)
    return lines or [""]


def _head(text: str, width: int) -> str:
    """The longest start of ``text`` that takes at most ``width`` cells (at least one char)."""
    used = 0
    for index, char in enumerate(text):
        used += _char_width(char)
        if used > width:
            return text[: max(index, 1)]
    return text


def _resolve(width: Width) -> int | None:
    return output_width() if width == "terminal" else width


def render(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    align: Sequence[Align] | None = None,
    max_width: int = 60,
    wrap: int | None = None,
    flex: Sequence[int] | None = None,
    status: Sequence[int] = (),
    drop: Sequence[int] = (),
    width: Width = "terminal",
    empty: str = "(none)",
    indent: str = "",
    notes: Sequence[str | None] | None = None,
) -> str:
    """The table as text: a header line, a rule, one line per row (more for a wrapped cell).

    :param align: per column, ``"left"`` (default) or ``"right"`` (use it for numbers).
    :param max_width: with a width limit, cells wider than this are cut (not in ``wrap``).
    :param wrap: index of a column (normally the last) that wraps to fit ``width``.
    :param flex: the free-text columns that give way first when a line is too wide (the widest
        is cut first); default the ``wrap`` column, else every column.
    :param status: columns whose cells are coloured on a colour terminal (red for blocked,
        denied, critical, error; yellow for a warning).
    :param drop: columns left out, in this order, while the table cannot fit otherwise (a
        line under the table names them; ``--wide`` shows them).
    :param width: the width every line fits into; default the terminal's, None for no limit.
    :param empty: printed under the header when there are no rows.
    :param notes: per row, text printed under it from the second column on, wrapped to
        ``width``; each line of a note starts a new line.
    """
    limit = _resolve(width)
    count = len(headers)
    cells = _cleaned(rows, count)
    widths = _natural_widths(headers, cells)
    shown = list(range(count))
    if limit is not None:
        widths, shown = _fitted(headers, widths, limit, max_width, wrap, flex, drop, indent)
    aligns: list[Align] = list(align or ()) + ["left"] * count
    pick = [widths[i] for i in shown], [aligns[i] for i in shown]
    lines = [_line([cut(headers[i], widths[i]) for i in shown], *pick, indent)]
    lines.append(_line(["-" * widths[i] for i in shown], *pick, indent))
    if not cells:
        lines.append(indent + empty)
    note_indent = indent + " " * (widths[shown[0]] + len(GAP) + 2) if count > 1 else indent + "  "
    painted = frozenset(shown.index(i) for i in status if i in shown)
    for number, row in enumerate(cells):
        pieces = _pieces(row, shown, widths, wrap if limit is not None else None, limit)
        lines.extend(_row_lines(pieces, *pick, indent, painted))
        note = notes[number] if notes is not None and number < len(notes) else None
        lines.extend(_note_lines(note, limit, note_indent))
    if len(shown) < count:
        hidden = ", ".join(headers[i] for i in range(count) if i not in shown)
        hint = f"(not shown to fit {limit} columns: {hidden}; --wide shows every column)"
        lines.extend(indent + piece for piece in _lines(hint, limit, indent))
    return "\n".join(lines)


def _cleaned(rows: Iterable[Sequence[object]], count: int) -> list[list[str]]:
    """Every cell as safe text; a row with the wrong number of cells is a programming error."""
    cells = [[clean(value) for value in row] for row in rows]
    for row in cells:
        if len(row) != count:
            raise ValueError(f"a row has {len(row)} cells, the table has {count} columns")
    return cells


def _natural_widths(headers: Sequence[str], cells: list[list[str]]) -> list[int]:
    """Each column's width with nothing cut: its widest cell or its header."""
    widths = [cell_width(header) for header in headers]
    for row in cells:
        for index, text in enumerate(row):
            widths[index] = max(widths[index], cell_width(text))
    return widths


def _fitted(
    headers: Sequence[str],
    widths: list[int],
    limit: int,
    max_width: int,
    wrap: int | None,
    flex: Sequence[int] | None,
    drop: Sequence[int],
    indent: str,
) -> tuple[list[int], list[int]]:
    """The widths and the shown columns that fit ``limit``: cells capped at ``max_width``, the
    ``drop`` columns left out while even the floors do not fit, then the givers narrowed."""
    count = len(headers)
    shown = list(range(count))
    widths = [
        w if i == wrap else min(w, max(max_width, cell_width(headers[i])))
        for i, w in enumerate(widths)
    ]
    givers = list(flex) if flex is not None else [wrap] if wrap is not None else shown
    floors = [_floor(w, i == wrap) if i in givers else w for i, w in enumerate(widths)]
    for column in drop:
        if _needed(floors, shown, indent) <= limit:
            break
        shown.remove(column)
    room = limit - _needed([0] * count, shown, indent)
    return _fit(widths, shown, room, [i for i in givers if i in shown], wrap), shown


def _floor(width: int, wraps: bool) -> int:
    """How narrow a giver column may become: a wrapping column keeps more room."""
    return min(width, WRAP_MIN if wraps else FLEX_MIN)


def _pieces(
    row: list[str], shown: list[int], widths: list[int], wrap: int | None, limit: int | None
) -> list[list[str]]:
    """Each shown cell as its lines: the ``wrap`` column wrapped, the others cut to fit."""
    if limit is None:
        return [[row[i]] for i in shown]
    return [_wrap(row[i], widths[i]) if i == wrap else [cut(row[i], widths[i])] for i in shown]


def _note_lines(note: str | None, limit: int | None, note_indent: str) -> list[str]:
    """A row's note under it, each of its lines wrapped after ``note_indent``."""
    return [
        note_indent + piece
        for line in (note or "").splitlines()
        for piece in _lines(clean(line), limit, note_indent)
    ]


def _needed(widths: list[int], shown: list[int], indent: str) -> int:
    """The line width the ``shown`` columns take at ``widths``, gaps and indent included."""
    return len(indent) + sum(widths[i] for i in shown) + len(GAP) * max(0, len(shown) - 1)


def _fit(
    widths: list[int], shown: list[int], room: int, givers: list[int], wrap: int | None
) -> list[int]:
    """Column widths whose ``shown`` sum is at most ``room``: the widest giver gives way first,
    then (when the givers are down to their floor) every column."""
    widths = list(widths)
    excess = sum(widths[i] for i in shown) - room
    first = [(i, _floor(widths[i], i == wrap)) for i in givers]
    rest = [(i, min(widths[i], len(ELLIPSIS))) for i in shown]
    for columns in (first, rest):
        while excess > 0:
            # Ties go to the rightmost column: free text sits right of the ids people type.
            candidates = [(widths[i], i) for i, floor in columns if widths[i] > floor]
            if not candidates:
                break
            _, widest = max(candidates)
            widths[widest] -= 1
            excess -= 1
    return widths


def _row_lines(
    pieces: list[list[str]],
    widths: list[int],
    aligns: list[Align],
    indent: str,
    painted: frozenset[int],
) -> list[str]:
    """One row's lines: the first holds every cell, the rest a wrapped cell's continuation."""
    depth = max(len(cell) for cell in pieces)
    lines = []
    for level in range(depth):
        row = [cell[level] if level < len(cell) else "" for cell in pieces]
        lines.append(_line(row, widths, aligns, indent, painted))
    return lines


def _line(
    row: list[str],
    widths: list[int],
    aligns: list[Align],
    indent: str,
    painted: frozenset[int] = frozenset(),
) -> str:
    last = len(row) - 1
    parts = []
    for index, text in enumerate(row):
        colour = status_colour(text) if index in painted and text else None
        shown = paint(text, colour) if colour else text
        if index == last and aligns[index] == "left":
            parts.append(shown)
        else:
            parts.append(pad(shown, widths[index], aligns[index]))
    return (indent + GAP.join(parts)).rstrip()


def _lines(text: str, limit: int | None, indent: str) -> list[str]:
    """``text`` as lines that fit ``limit`` after ``indent`` (one line when there is no limit)."""
    if limit is None:
        return [text]
    return _wrap(text, max(WRAP_MIN, limit - cell_width(indent)))


def paragraph(text: str, indent: str = "", width: Width = "terminal") -> str:
    """Prose (a summary line, a hint) wrapped to ``width`` after ``indent``; whole when piped."""
    return "\n".join(indent + line for line in _lines(clean(text), _resolve(width), indent))


def pairs(items: Iterable[tuple[str, object]], indent: str = "", width: Width = "terminal") -> str:
    """``label  value`` lines with the labels padded to one width (a header block).

    A value too long for ``width`` continues on lines indented to the values' column.
    """
    rows = [(clean(label), clean(value)) for label, value in items]
    labels = max((cell_width(label) for label, _ in rows), default=0)
    hang = indent + " " * (labels + len(GAP))
    lines = []
    for label, value in rows:
        first, *more = _lines(value, _resolve(width), hang)
        lines.append((indent + pad(label, labels) + GAP + first).rstrip())
        lines.extend(hang + line for line in more)
    return "\n".join(lines)
