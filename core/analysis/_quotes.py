"""Quote removal: what a backslash means inside double quotes and inside ``$'...'``."""

from __future__ import annotations

import itertools

_ESCAPES_IN_DOUBLE_QUOTES = frozenset('"\\$`')
_ANSI_C = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def unescape_double(text: str) -> str:
    """Inside double quotes a backslash escapes only ``"``, ``\\``, ``$`` and a backquote."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "\\" and i + 1 < n and text[i + 1] in _ESCAPES_IN_DOUBLE_QUOTES:
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def ansi_c(body: str) -> str:
    """The value of ``$'body'``."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 == n:
            out.append(ch)
            i += 1
            continue
        code = body[i + 1]
        i += 2
        if code in _ANSI_C:
            out.append(_ANSI_C[code])
        elif code in "01234567":
            digits = code + "".join(itertools.takewhile(lambda c: c in "01234567", body[i : i + 2]))
            i += len(digits) - 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            digits = "".join(
                itertools.takewhile(lambda c: c in "0123456789abcdefABCDEF", body[i : i + width])
            )
            if not digits:
                out.append("\\" + code)
                continue
            i += len(digits)
            value = int(digits, 16)
            out.append(chr(value) if value <= 0x10FFFF else "\ufffd")
        elif code == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + code)
    return "".join(out)
