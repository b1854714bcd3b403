"""Chat message shapes: how much text a message holds, where its tool results are, rewriting one.

Two tool-result shapes are understood:

- OpenAI style: a message ``{"role": "tool", "tool_call_id": ..., "content": ...}`` (the legacy
  ``"role": "function"`` too); the whole message is the result.
- Anthropic style: a block ``{"type": "tool_result", "tool_use_id": ..., "content": ...}`` inside
  the ``content`` list of a (user) message; a message may hold several.

A result's content is prunable when it is a string or a list of text parts (``"..."`` or
``{"type": "text", "text": "..."}``). Anything else - images, documents, unknown part types,
non-text values - is left exactly as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TOOL_ROLES = frozenset({"tool", "function"})
_MAX_DEPTH = 16


@dataclass(frozen=True)
class ToolResultRef:
    """One prunable tool result: message index, block index (None: the whole message), text."""

    message: int
    block: int | None
    text: str
    chars: int
    """What the result's content adds to the estimate (its text parts, without joiners)."""
    content_is_list: bool


def text_of_content(content: Any) -> str | None:
    """The text of a prunable result content (text parts joined by newlines), else None."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        texts: list[str] = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif (
                isinstance(part, Mapping)
                and part.get("type") == "text"
                and isinstance(part.get("text"), str)
            ):
                texts.append(part["text"])
            else:
                return None  # an image or something unknown: not ours to rewrite
        return "\n".join(texts)
    return None


def _part_chars(part: Any, depth: int) -> int:
    if isinstance(part, str):
        return len(part)
    if not isinstance(part, Mapping) or depth > _MAX_DEPTH:
        return 0
    chars = 0
    for key in ("text", "thinking"):
        value = part.get(key)
        if isinstance(value, str):
            chars += len(value)
    kind = part.get("type")
    if kind == "tool_result":
        chars += content_chars(part.get("content"), depth + 1)
    elif kind == "tool_use":
        name = part.get("name")
        chars += len(name) if isinstance(name, str) else 0
        chars += _json_chars(part.get("input"))
    return chars


def _json_chars(value: Any) -> int:
    if value is None:
        return 0
    try:
        return len(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError):
        return 0


def content_chars(content: Any, depth: int = 0) -> int:
    """Characters of text in a ``content`` value (a string or a list of parts)."""
    if isinstance(content, str):
        return len(content)
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        return sum(_part_chars(part, depth) for part in content)
    return 0


def message_chars(message: Mapping[str, Any]) -> int:
    """Characters of text in one message: its content plus OpenAI ``tool_calls`` names and
    arguments. Roles, ids, images and unknown fields count zero."""
    chars = content_chars(message.get("content"))
    calls = message.get("tool_calls")
    if isinstance(calls, Sequence) and not isinstance(calls, (str, bytes, bytearray)):
        for call in calls:
            function = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(function, Mapping):
                for key in ("name", "arguments"):
                    value = function.get(key)
                    if isinstance(value, str):
                        chars += len(value)
    return chars


def tool_results(index: int, message: Mapping[str, Any]) -> list[ToolResultRef]:
    """The prunable tool results in one message, in order."""
    content = message.get("content")
    if message.get("role") in TOOL_ROLES:
        text = text_of_content(content)
        if text is None:
            return []
        chars = content_chars(content)
        return [ToolResultRef(index, None, text, chars, not isinstance(content, str))]
    if isinstance(content, (str, bytes, bytearray)) or not isinstance(content, Sequence):
        return []
    found: list[ToolResultRef] = []
    for block_index, block in enumerate(content):
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            inner = block.get("content")
            text = text_of_content(inner)
            if text is not None:
                chars = content_chars(inner)
                ref = ToolResultRef(index, block_index, text, chars, not isinstance(inner, str))
                found.append(ref)
    return found


def _new_content(ref: ToolResultRef, text: str) -> str | list[dict[str, Any]]:
    return [{"type": "text", "text": text}] if ref.content_is_list else text


def rewrite_message(
    message: Mapping[str, Any], changes: list[tuple[ToolResultRef, str]]
) -> dict[str, Any]:
    """A copy of ``message`` with the given results' text replaced. The input is not touched:
    only the message dict, its content list and the changed blocks are new objects."""
    copy = dict(message)
    blocks: list[Any] | None = None
    for ref, text in changes:
        if ref.block is None:
            copy["content"] = _new_content(ref, text)
            continue
        if blocks is None:
            blocks = list(message["content"])
        block = dict(blocks[ref.block])
        block["content"] = _new_content(ref, text)
        blocks[ref.block] = block
    if blocks is not None:
        copy["content"] = blocks
    return copy
