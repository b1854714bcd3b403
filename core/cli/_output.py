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
"""

from __future__ import annotations

import os
import re
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

RED = "\ue000"
YELLOW = "\ue001"
RESET = "\ue00f"
COLOURS = {RED: "\x1b[31m", YELLOW: "\x1b[33m", RESET: "\x1b[0m"}
_MARKERS = re.compile("[\ue000\ue001\ue00f]")

ALERT_WORDS = frozenset({"blocked", "denied", "deny", "critical", "error", "failed"})
"""Cell texts shown in red on a colour terminal (the statuses a person must not miss)."""


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _sgr(match: re.Match[str]) -> str:
    return COLOURS[match.group()]


def escape_controls(text: str) -> str:
    """``text`` with every unsafe character written as a visible ``\\uXXXX`` escape."""
    return _UNSAFE.sub(_escape, text)


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


def paint(text: str, colour: str) -> str:
    """``text`` between a colour marker and the reset marker."""
    return f"{colour}{text}{RESET}"


class SafeStream:
    """A text stream that escapes control characters and resolves the colour markers."""

    def __init__(self, stream: TextIO, colour: bool | None = None) -> None:
        self._stream = stream
        self.colour = wants_colour(stream) if colour is None else colour

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
