"""The budget arithmetic and the cutting of text: head, optional tail, newline snapping, notice.

Nothing here copies or scans the whole text: the cuts are slices, newlines are looked for with
``str.rfind`` / ``str.find`` in bounded windows, and only the end of the text is searched for the
error or summary patterns.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from toolhooks.kit import Record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._config import ResultBudgetConfig, Tier
    from ._defaults import ResultBudgetDefaults, TierDefaults


def decimal_ratio(value: float) -> tuple[int, int]:
    """``value`` as written in decimal (``str(value)``), as a reduced fraction: what
    ``fractions.Fraction(str(value))`` gives, without importing ``fractions`` and ``decimal``
    (9 M instructions at every start; tests/plugins/test_result_budget.py compares the two)."""
    mantissa, _, exponent = str(value).lower().partition("e")
    whole, _, digits = mantissa.partition(".")
    numerator = int(whole + digits)
    denominator = 10 ** len(digits)
    shift = int(exponent) if exponent else 0
    if shift >= 0:
        numerator *= 10**shift
    else:
        denominator *= 10**-shift
    common = math.gcd(numerator, denominator)
    return numerator // common, denominator // common


class Budget:
    """The character budget for a context window size, precomputed from the config."""

    __slots__ = ("_default", "_den", "_floor", "_num", "_tiers")

    def __init__(self, config: ResultBudgetConfig | ResultBudgetDefaults) -> None:
        # Exact arithmetic: 0.3 * 4 is 1.2000000000000002 in floats, 6/5 here.
        share_num, share_den = decimal_ratio(config.context_share)
        token_num, token_den = decimal_ratio(config.chars_per_token)
        common = math.gcd(share_num * token_num, share_den * token_den)
        self._num = share_num * token_num // common
        self._den = share_den * token_den // common
        self._floor = config.floor
        tiers: Sequence[Tier | TierDefaults] = config.tiers
        self._tiers: tuple[tuple[int, int], ...] = tuple(
            (t.min_tokens, t.max_chars) for t in reversed(tiers)
        )
        self._default = max(config.floor, tiers[0].max_chars)

    @property
    def minimum(self) -> int:
        """No budget is below this; a result at most this long is never trimmed."""
        return self._floor

    def chars(self, context_window_tokens: int | None) -> int:
        """The budget in characters; the first tier when the window size is unknown."""
        if context_window_tokens is None:
            return self._default
        for min_tokens, max_chars in self._tiers:
            if context_window_tokens >= min_tokens:
                cap = max_chars
                break
        else:  # unreachable: the first tier starts at 0 tokens
            cap = self._default
        share = context_window_tokens * self._num // self._den
        return max(self._floor, min(cap, share))


def notice(omitted: int, ref: str | None, offset: int, summary: bool) -> str:
    """The line that replaces what was cut."""
    line = f"[... {omitted} more characters truncated]"
    if summary:
        line += (
            " [the JSON above is a structural summary: keys kept, long arrays and strings"
            " shortened]"
        )
    if ref is not None:
        line += (
            f" [full result stored as artifact {ref}; call read_artifact with this ref and"
            f" offset={offset} to read {'it' if summary else 'the omitted part'}]"
        )
    return line


class Cut(Record):
    """Where the text is cut: ``text[:head_end]`` and ``text[tail_start:]`` are kept."""

    __slots__ = ("head_end", "tail_start")

    head_end: int
    tail_start: int

    def __init__(self, *, head_end: int, tail_start: int) -> None:
        object.__setattr__(self, "head_end", head_end)
        object.__setattr__(self, "tail_start", tail_start)


def snap_head(text: str, end: int, window: int) -> int:
    """Move ``end`` back to just before a newline within ``window`` characters, if there is one."""
    if window <= 0 or end <= 0:
        return end
    at = text.rfind("\n", max(0, end - window), end + 1)
    if at < 0:
        return end
    if at > 0 and text[at - 1] == "\r":
        at -= 1
    return at


def snap_tail(text: str, start: int, window: int) -> int:
    """Move ``start`` forward to just after a newline within ``window`` characters, if any."""
    if window <= 0 or start >= len(text):
        return start
    if start > 0 and text[start - 1] == "\n":
        return start
    at = text.find("\n", start, start + window)
    return start if at < 0 else at + 1


class Trimmer:
    """Cuts an over-budget text to head (plus tail) and a notice, within the budget."""

    __slots__ = ("_scan", "_snap", "_tail_pattern", "_tail_share")

    def __init__(self, config: ResultBudgetConfig | ResultBudgetDefaults) -> None:
        self._tail_share = config.tail_share
        self._scan = config.tail_scan_chars if config.tail_share > 0 else 0
        self._snap = config.snap_chars
        # Compiled when a result is first over budget (about 2.5 M instructions a process
        # otherwise); the config's model has compiled each pattern to check it.
        self._tail_pattern = "|".join(f"(?:{p})" for p in config.tail_patterns) or None

    def tail_matters(self, text: str, tail_chars: int) -> bool:
        """Whether the end of ``text`` looks like an error or a summary."""
        scan = min(self._scan, tail_chars)
        if scan <= 0 or self._tail_pattern is None:
            return False
        tail = re.compile(self._tail_pattern, re.IGNORECASE)
        return tail.search(text, len(text) - scan) is not None

    def cut(self, text: str, room: int) -> Cut:
        """Keep at most ``room`` characters of ``text`` (which is longer than ``room``)."""
        room = max(0, room)
        tail_chars = int(room * self._tail_share)
        if tail_chars <= 0 or not self.tail_matters(text, tail_chars):
            tail_chars = 0
        head_chars = room - tail_chars
        head_end = snap_head(text, head_chars, min(self._snap, head_chars // 4))
        tail_start = len(text)
        if tail_chars:
            start = len(text) - tail_chars
            tail_start = snap_tail(text, start, min(self._snap, tail_chars // 4))
        return Cut(head_end=head_end, tail_start=tail_start)

    def trim(self, text: str, budget: int, ref: str | None) -> tuple[str, int]:
        """The trimmed text (at most ``budget`` characters unless the notice alone is longer)
        and how many characters of ``text`` it keeps."""
        total = len(text)
        longest = notice(total, ref, total, summary=False)
        cut = self.cut(text, budget - len(longest) - 2)  # two newlines around the notice
        head = text[: cut.head_end]
        kept = cut.head_end + (total - cut.tail_start)
        line = notice(total - kept, ref, cut.head_end, summary=False)
        if cut.tail_start < total:
            return f"{head}\n{line}\n{text[cut.tail_start :]}", kept
        return (f"{head}\n{line}" if head else line), kept
