"""What reaches the terminal: control characters escaped, colour only on a colour terminal.

Every command writes through :class:`SafeStream` (``run`` installs it on stdout and stderr), so
no caller-controlled text (an id, a tool name, params, a reason, a title) can move the cursor,
retitle the window, hide text or reorder it: C0 and C1 control characters (newline and tab
excepted), DEL and the bidirectional overrides are written as ``\\uXXXX`` escapes. In JSON output
that spelling is the same JSON string, so ``--json`` stays exact.

The CLI's own colours are written as private-use marker characters (:data:`COLOURS`), which the
stream turns into SGR sequences on a terminal that wants colour and drops everywhere else. The
markers can only ever produce these fixed colour changes; :func:`toolhooks.cli._table.clean`
escapes a marker that arrives inside caller-controlled text.

The stream also knows how wide a line may be (:attr:`SafeStream.width`): the terminal's width
when it is a terminal, None (nothing is cut or wrapped) when the output is piped or ``--wide``
was given. Tables and ``logs`` both ask :func:`output_width`, so there is one rule for all.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

RED = "\ue000"
YELLOW = "\ue001"
RESET = "\ue00f"
COLOURS = {RED: "\x1b[31m", YELLOW: "\x1b[33m", RESET: "\x1b[0m"}
_MARKERS = re.compile("[\ue000\ue001\ue00f]")

ALERT_WORDS = frozenset({"blocked", "denied", "deny", "critical", "error", "failed"})
"""Words that turn a status cell red on a colour terminal (what a person must not miss)."""
WARNING_WORDS = frozenset({"warning"})
"""Words that turn a status cell yellow."""
_WORDS = re.compile("[a-z]+")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _sgr(match: re.Match[str]) -> str:
    return COLOURS[match.group()]


def wants_colour(stream: Any) -> bool:
    """A terminal, and the user did not ask for no colour (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):
        return False


def is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):
        return False


def terminal_width(default: int = 100) -> int:
    """The terminal's width in cells; ``$COLUMNS`` wins, ``default`` when not a terminal.

    What ``shutil.get_terminal_size`` does, without importing shutil (and with it bz2 and
    lzma, milliseconds of ``toolhooks --help``: BENCHMARKS.md, choices made for speed).
    """
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno()) if sys.__stdout__ else None
    except (AttributeError, ValueError, OSError):
        size = None  # not a terminal, detached or closed
    return size.columns if size is not None and size.columns > 0 else default


def output_width(stream: Any = None) -> int | None:
    """How many cells a line written to ``stream`` (default stdout) may take; None: no limit.

    A :class:`SafeStream` says (``--wide`` sets it to None); any other stream is limited to the
    terminal's width when it is a terminal and unlimited when it is not (a pipe, a file).
    """
    stream = sys.stdout if stream is None else stream
    if isinstance(stream, SafeStream):
        return stream.width
    return terminal_width() if is_terminal(stream) else None


def paint(text: str, colour: str) -> str:
    """``text`` between a colour marker and the reset marker."""
    return f"{colour}{text}{RESET}"


def status_colour(text: str) -> str | None:
    """RED for a status naming a block, denial, critical loop or error; YELLOW for a warning."""
    words = set(_WORDS.findall(text.lower()))
    if words & ALERT_WORDS:
        return RED
    if words & WARNING_WORDS:
        return YELLOW
    return None


class SafeStream:
    """A text stream that escapes control characters and resolves the colour markers."""

    def __init__(self, stream: TextIO, colour: bool | None = None) -> None:
        self._stream = stream
        self.colour = wants_colour(stream) if colour is None else colour
        # The width lines must fit: the terminal's; None (no limit) for a pipe or with --wide.
        self.width: int | None = terminal_width() if is_terminal(stream) else None

    @property
    def wrapped(self) -> TextIO:
        return self._stream

    def write(self, text: str) -> int:
        safe = _MARKERS.sub(_sgr if self.colour else "", _UNSAFE.sub(_escape, text))
        self._stream.write(safe)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
