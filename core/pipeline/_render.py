"""Turn a tool's return value into the text that goes back into the conversation."""

from __future__ import annotations

import json
from typing import Any

from .._public import public

_MAX_RENDER_DEPTH = 200


def render_content(value: Any) -> str:
    """str as is; None as ""; bytes decoded (invalid UTF-8 replaced); JSON-like values as JSON.

    Never raises: values JSON cannot encode, nested past what it can recurse, or whose ``str``
    fails are rendered by a depth-limited fallback.
    """
    if type(value) is str:
        return value
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (dict, list, tuple, int, float, bool)):
        try:
            return json.dumps(value, ensure_ascii=False, default=_json_default)
        except (RecursionError, ValueError, TypeError):
            return _safe_repr(value)
    try:
        return str(value)
    except Exception:
        return _safe_repr(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return str(value)


def _safe_repr(value: Any) -> str:
    """An iterative repr that stops descending at a fixed depth instead of overflowing the stack."""
    out: list[str] = []
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, _Literal):
            out.append(item.text)
            continue
        if depth > _MAX_RENDER_DEPTH:
            out.append("...")
            continue
        if isinstance(item, dict):
            stack.append((_Literal("}"), 0))
            entries = list(item.items())
            for index in range(len(entries) - 1, -1, -1):
                key, child = entries[index]
                stack.append((child, depth + 1))
                stack.append((_Literal(("" if index == 0 else ", ") + f"{key!r}: "), 0))
            stack.append((_Literal("{"), 0))
        elif isinstance(item, (list, tuple)):
            stack.append((_Literal("]"), 0))
            for index in range(len(item) - 1, -1, -1):
                stack.append((item[index], depth + 1))
                if index:
                    stack.append((_Literal(", "), 0))
            stack.append((_Literal("["), 0))
        else:
            try:
                out.append(repr(item))
            except Exception:
                out.append(f"<unrepresentable {type(item).__name__}>")
    return "".join(out)


class _Literal:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


public("toolhooks.kit", render_content)
