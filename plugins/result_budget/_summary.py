"""A structural summary of a JSON-like value: keys kept, long arrays and strings shortened.

The walk is iterative (an explicit stack, so a value nested 10,000 levels deep is fine) and it
stops as soon as the text reaches its budget, so its cost depends on the size of the summary,
never on the size of the value. The text is JSON: what was left out is described by strings such
as ``"... 995 more items (1000 total)"``, and a summary cut short by its budget is closed with
``"...": "N more keys"`` entries and its brackets.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import json
import pathlib
import uuid
from collections.abc import Iterator, Mapping, Sequence, Set
from itertools import islice
from typing import Any, NamedTuple

_PLAIN = (datetime.date, datetime.time, datetime.timedelta, decimal.Decimal, uuid.UUID,
          pathlib.PurePath, enum.Enum)  # fmt: skip
_FRAME_RESERVE = 64  # room kept per open container for its closing marker and bracket
_encode = json.JSONEncoder(ensure_ascii=False).encode
_END: Any = object()


def is_json_like(value: object) -> bool:
    """A dict-like or list-like value (not text or bytes) that a summary can describe."""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return False
    return isinstance(value, (Mapping, Sequence, Set))


class _Counter:
    __slots__ = ("arrays", "shortened")

    def __init__(self) -> None:
        self.shortened = 0  # strings (and keys) shortened
        self.arrays = 0  # arrays shortened


def _shorten(text: str, keep: int, counter: _Counter) -> str:
    if len(text) <= keep:
        return text
    counter.shortened += 1
    return f"{text[:keep]}... (+{len(text) - keep} chars)"


def _scalar(value: object, keep: int, counter: _Counter) -> str | None:
    """The JSON text of a scalar, or None when ``value`` is a container."""
    if isinstance(value, str):
        return _encode(_shorten(value, keep, counter))
    if value is None or isinstance(value, (bool, float)):
        return _encode(value)
    if isinstance(value, int):
        try:
            return str(int(value))
        except ValueError:  # more digits than int -> str allows
            return f'"<int of about {int(value.bit_length() * 0.30103)} digits>"'
    if isinstance(value, (bytes, bytearray)):
        return f'"<{type(value).__name__}: {len(value)} bytes>"'
    if isinstance(value, memoryview):
        return f'"<memoryview: {value.nbytes} bytes>"'
    if isinstance(value, (Mapping, Sequence, Set)):
        return None
    if isinstance(value, _PLAIN):
        return _encode(_shorten(str(value), keep, counter))
    return _encode(f"<{type(value).__name__}>")


def _key(key: object, keep: int, counter: _Counter) -> str:
    if isinstance(key, str):
        return _encode(_shorten(key, keep, counter))
    text = _scalar(key, keep, counter)
    if text is None:
        return _encode(f"<{type(key).__name__}>")
    return text if text.startswith('"') else _encode(text)


def _items_note(more: int, total: int) -> str:
    return f'"... {more} more items ({total} total)"'


class _Frame:
    __slots__ = ("close", "emitted", "ident", "indent", "is_dict", "items", "reserve", "total")

    def __init__(self, value: Any, is_dict: bool, depth: int, keep: int) -> None:
        self.is_dict = is_dict
        self.items: Iterator[Any] = iter(value.items()) if is_dict else islice(value, keep)
        self.total = len(value)
        self.emitted = 0
        self.ident = id(value)
        self.indent = "  " * (depth + 1)
        self.close = ("\n" + "  " * depth) + ("}" if is_dict else "]")
        self.reserve = _FRAME_RESERVE + 2 * len(self.indent)

    def remainder(self) -> str:
        """The marker for what this container still holds, or ""."""
        more = self.total - self.emitted
        if more <= 0:
            return ""
        sep = ",\n" if self.emitted else "\n"
        note = f'"...": "{more} more keys"' if self.is_dict else _items_note(more, self.total)
        return f"{sep}{self.indent}{note}"


class Summary(NamedTuple):
    text: str
    complete: bool
    """False when the budget cut the walk short (its open containers were closed with counts)."""
    strings: int
    """How many strings (and keys) were shortened."""
    arrays: int
    """How many arrays were shortened to ``array_keep`` items."""


def summarize(
    value: Any, budget: int, array_keep: int, string_keep: int, max_depth: int
) -> Summary:
    """One summary of ``value`` with these limits, stopped once it reaches ``budget``."""
    out: list[str] = []
    size = 0
    stack: list[_Frame] = []
    active: set[int] = set()
    reserve = 0
    counter = _Counter()

    def render(child: Any, depth: int) -> str | _Frame:
        text = _scalar(child, string_keep, counter)
        if text is not None:
            return text
        is_dict = isinstance(child, Mapping)
        count = len(child)
        if id(child) in active:
            return '"<cycle>"'
        if count == 0:
            return "{}" if is_dict else "[]"
        if depth >= max_depth:
            return f'"{{... {count} keys}}"' if is_dict else f'"[... {count} items]"'
        if not is_dict:
            scalars: list[str] = []
            for item in islice(child, array_keep):
                text = _scalar(item, string_keep, counter)
                if text is None:
                    break
                scalars.append(text)
            else:  # only scalars: one line
                if count > len(scalars):
                    counter.arrays += 1
                    scalars.append(_items_note(count - len(scalars), count))
                return "[" + ", ".join(scalars) + "]"
            if count > array_keep:
                counter.arrays += 1
        return _Frame(child, is_dict, depth, array_keep)

    def push(piece: str | _Frame) -> None:
        nonlocal size, reserve
        if isinstance(piece, str):
            out.append(piece)
            size += len(piece)
        else:
            out.append("{" if piece.is_dict else "[")
            size += 1
            stack.append(piece)
            active.add(piece.ident)
            reserve += piece.reserve

    push(render(value, 0))
    complete = True
    while stack:
        frame = stack[-1]
        item = next(frame.items, _END)
        if item is _END:
            tail = frame.remainder() + frame.close
            out.append(tail)
            size += len(tail)
            stack.pop()
            active.discard(frame.ident)
            reserve -= frame.reserve
            continue
        if size + reserve > budget:
            complete = False
            break
        frame.emitted += 1
        sep = ",\n" if frame.emitted > 1 else "\n"
        if frame.is_dict:
            key, child = item
            prefix = f"{sep}{frame.indent}{_key(key, string_keep, counter)}: "
        else:
            child = item
            prefix = sep + frame.indent
        out.append(prefix)
        size += len(prefix)
        push(render(child, len(stack)))
    while stack:  # cut short by the budget: close every open container, innermost first
        frame = stack.pop()
        out.append(frame.remainder() + frame.close)
    return Summary("".join(out), complete, counter.shortened, counter.arrays)


def structural_summary(
    value: Any, budget: int, array_keep: int, string_keep: int, max_depth: int, fill: bool = True
) -> str:
    """The most detailed summary that fits ``budget``.

    The configured limits are tried first, then fewer array items (2, then 1), shorter strings
    (80, then 40) and less depth (6, then 3). A summary that fits with room to spare is widened:
    shortened arrays show more items (up to half the spare room when strings were shortened
    too, else all of it), then shortened strings share what is left (unless ``fill`` is false).
    The last attempt may still be longer than ``budget`` (the caller cuts it).
    """
    levels = [
        (array_keep, string_keep, max_depth),
        (min(array_keep, 2), min(string_keep, 80), min(max_depth, 6)),
        (min(array_keep, 1), min(string_keep, 40), min(max_depth, 3)),
    ]
    summary = Summary("", False, 0, 0)
    previous: tuple[int, int, int] | None = None
    for keep, chars, depth in levels:
        if (keep, chars, depth) == previous:
            continue
        previous = (keep, chars, depth)
        summary = summarize(value, budget, keep, chars, depth)
        if _fits(summary, budget):
            if not fill:
                return summary.text
            keep, summary = _more_items(value, budget, keep, chars, depth, summary)
            return _longer_strings(value, budget, keep, chars, depth, summary).text
    return summary.text


def _fits(summary: Summary, budget: int) -> bool:
    return summary.complete and len(summary.text) <= budget


def _more_items(
    value: Any, budget: int, keep: int, chars: int, depth: int, summary: Summary
) -> tuple[int, Summary]:
    """Raise the items kept per shortened array while the summary fits (doubling, then
    bisecting; a bounded number of tries). Returns the items kept and the summary."""
    if summary.arrays == 0:
        return keep, summary
    limit = budget if summary.strings == 0 else (budget + len(summary.text)) // 2
    best_keep, best = keep, summary
    too_many: int | None = None
    trial = max(2 * keep, keep + 1)
    for _ in range(8):
        wider = summarize(value, limit, trial, chars, depth)
        if _fits(wider, limit):
            best_keep, best = trial, wider
            if wider.arrays == 0:
                break
        else:
            too_many = trial
        trial = 2 * best_keep if too_many is None else (best_keep + too_many) // 2
        if trial <= best_keep:
            break
    return best_keep, best


def _longer_strings(
    value: Any, budget: int, keep: int, chars: int, depth: int, summary: Summary
) -> Summary:
    """Share the room ``summary`` leaves among its shortened strings.

    A few tries: escaping makes the encoded growth larger than the characters added, so each
    try is sized by the growth the previous one showed. The widest summary that fits wins.
    """
    shortened = summary.strings
    if shortened == 0:
        return summary
    size = len(summary.text)
    best, fits = summary, 0  # the widest fitting summary and its extra characters per string
    target = budget - size - 8 * shortened  # aim a little short of the budget
    extra = (budget - size) // shortened
    for _ in range(4):
        if extra <= fits or extra < 2:
            break
        wider = summarize(value, budget, keep, chars + extra, depth)
        growth = len(wider.text) - size
        if _fits(wider, budget):
            best, fits = wider, extra
            if budget - len(wider.text) <= 8 * shortened + 16:
                break
        # Cut short by the budget, the growth is not known: go halfway back.
        known = wider.complete and growth > 0
        extra = max(0, target) * extra // growth if known else (fits + extra) // 2
    return best
