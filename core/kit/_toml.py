"""TOML text written by toolhooks for a person to read and paste (``rules import``, ``mcp wrap``).

Only what those writers need: a basic string and an array of them. Every character outside
printable ASCII is escaped, so the text is ASCII, a terminal shows it as it is (no control
sequence, no bidirectional override reorders it) and any TOML reader reads back the same value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeAlias

from .._public import public

_ESCAPED = re.compile(r'["\\\x00-\x1f\x7f-\U0010ffff]')


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char in '"\\':
        return "\\" + char
    code = ord(char)
    return f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string, ASCII only."""
    return '"' + _ESCAPED.sub(_escape, value) + '"'


TomlText: TypeAlias = "str | Sequence[TomlText]"
"""A string, or a (nested) list of them."""


def toml_value(value: TomlText) -> str:
    """A string, or a (nested) list of strings, as TOML."""
    if isinstance(value, str):
        return toml_string(value)
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


public("toolhooks.kit", toml_string, toml_value)
