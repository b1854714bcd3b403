"""``prune_context``: shrink old tool results when a conversation nears its context window.

The order, exactly:

1. Estimate the context: every message's text characters (see ``message_chars``), at
   ``chars_per_token`` characters a token.
2. Protect the tail: the message of the ``keep_last_assistant``-th last assistant turn and every
   message after it are never touched (fewer assistant turns than that: nothing is touched;
   ``keep_last_assistant=0`` protects nothing).
3. Soft trim, when the estimate is over ``soft_ratio`` of the window (strictly greater): every
   unprotected tool result longer than ``soft_trim_over`` characters keeps its first
   ``keep_head`` and last ``keep_tail`` characters and a note saying what was cut.
4. Hard clear, when the estimate is then still over ``hard_ratio`` and the unprotected tool
   results hold at least ``min_prunable_chars`` characters: results are replaced by
   ``[Old tool result content cleared]``, oldest first, until the estimate is no longer over
   ``hard_ratio`` or no result is left.

The input is never modified: changed messages (and their changed blocks) are copies, the others
are the same objects in a new list.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ._shapes import ToolResultRef, message_chars, rewrite_message, tool_results

CLEARED_PLACEHOLDER = "[Old tool result content cleared]"


@dataclass(frozen=True)
class PruneReport:
    """What ``prune_context`` found and did. Indices are positions in the message list."""

    context_window_tokens: int
    chars_before: int
    chars_after: int
    tokens_before: int
    """Estimated tokens: ``ceil(chars / chars_per_token)``."""
    tokens_after: int
    soft_trimmed: int
    """Tool results whose content is now the trimmed head and tail (not counting cleared ones)."""
    cleared: int
    """Tool results replaced by the placeholder."""
    soft_trimmed_indices: tuple[int, ...]
    cleared_indices: tuple[int, ...]
    protected_from: int
    """Index of the first protected message (``len(messages)`` when none is protected)."""
    prunable_chars: int
    """Characters in unprotected tool results after soft trimming (what hard clear weighs)."""

    @property
    def changed(self) -> bool:
        return bool(self.soft_trimmed or self.cleared)

    @property
    def ratio_before(self) -> float:
        return self.tokens_before / self.context_window_tokens

    @property
    def ratio_after(self) -> float:
        return self.tokens_after / self.context_window_tokens


def _exact(value: float, name: str, *, minimum: float = 0.0, strict: bool = False) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or value < minimum or (strict and value == minimum):
        relation = ">" if strict else ">="
        raise ValueError(f"{name} must be a finite number {relation} {minimum:g}, got {value!r}")
    # repr() gives the decimal the caller wrote (0.3, not 0.29999999999999998889...).
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _count(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def _protected_from(messages: Sequence[Mapping[str, Any]], keep_last_assistant: int) -> int:
    if keep_last_assistant == 0:
        return len(messages)
    seen = 0
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "assistant":
            seen += 1
            if seen == keep_last_assistant:
                return index
    return 0  # fewer assistant turns than keep_last_assistant: everything is protected


def _soft_trim(text: str, keep_head: int, keep_tail: int) -> str:
    head = text[:keep_head]
    tail = text[len(text) - keep_tail :] if keep_tail else ""
    return (
        f"{head}\n...\n{tail}\n\n[Tool result trimmed: kept first {len(head)} and last "
        f"{len(tail)} of {len(text)} characters.]"
    )


def prune_context(
    messages: list[dict[str, Any]],
    context_window_tokens: int,
    *,
    soft_ratio: float = 0.3,
    hard_ratio: float = 0.5,
    soft_trim_over: int = 4000,
    keep_head: int = 1500,
    keep_tail: int = 1500,
    min_prunable_chars: int = 50_000,
    keep_last_assistant: int = 3,
    chars_per_token: float = 4,
) -> tuple[list[dict[str, Any]], PruneReport]:
    """Trim, then clear, old tool results so the conversation fits its context window better.

    :param messages: Chat messages (dicts), OpenAI or Anthropic style; never modified.
    :param context_window_tokens: The model's context window, in tokens (> 0).
    :return: ``(new_messages, report)``; unchanged messages are the same objects.
    :raises TypeError: ``messages`` is not a list (or tuple) of dicts - the error names the
        index of the first bad message - or an argument has the wrong type.
    :raises ValueError: A size or ratio is negative, zero where it must be positive, or not finite.
    """
    _check_messages(messages)
    if isinstance(context_window_tokens, bool) or not isinstance(context_window_tokens, int):
        raise TypeError(
            f"context_window_tokens must be an int, got {type(context_window_tokens).__name__}"
        )
    if context_window_tokens <= 0:
        raise ValueError(f"context_window_tokens must be > 0, got {context_window_tokens}")
    per_token = _exact(chars_per_token, "chars_per_token", strict=True)
    window_chars = context_window_tokens * per_token
    soft_limit = math.floor(_exact(soft_ratio, "soft_ratio", strict=True) * window_chars)
    hard_limit = math.floor(_exact(hard_ratio, "hard_ratio", strict=True) * window_chars)
    trim_over = _count(soft_trim_over, "soft_trim_over")
    head = _count(keep_head, "keep_head")
    tail = _count(keep_tail, "keep_tail")
    min_prunable = _count(min_prunable_chars, "min_prunable_chars")
    keep = _count(keep_last_assistant, "keep_last_assistant")

    chars_before = total = sum(message_chars(message) for message in messages)
    protected_from = _protected_from(messages, keep)
    # "Over the ratio" is strictly greater; for whole characters, ``chars > floor(limit)`` is
    # the same test as ``chars > limit``, with no rounding at the boundary.
    results: list[ToolResultRef] = []
    for index in range(protected_from):
        results.extend(tool_results(index, messages[index]))
    # Per result (by position in ``results``): its text now, what it adds to the estimate now.
    texts = [ref.text for ref in results]
    chars = [ref.chars for ref in results]
    trimmed: set[int] = set()
    cleared: set[int] = set()

    if total > soft_limit:
        total = _soft_trim_all(results, texts, chars, trimmed, total, trim_over, head, tail)
    prunable = sum(chars)
    if total > hard_limit and prunable >= min_prunable:
        total = _clear_oldest(texts, chars, trimmed, cleared, total, hard_limit)

    changes: dict[int, list[tuple[ToolResultRef, str]]] = {}
    for position in sorted(trimmed | cleared):
        ref = results[position]
        changes.setdefault(ref.message, []).append((ref, texts[position]))
    new_messages = list(messages)
    for index, changed in changes.items():
        new_messages[index] = rewrite_message(messages[index], changed)
    report = PruneReport(
        context_window_tokens=context_window_tokens,
        chars_before=chars_before,
        chars_after=total,
        tokens_before=math.ceil(chars_before / per_token),
        tokens_after=math.ceil(total / per_token),
        soft_trimmed=len(trimmed),
        cleared=len(cleared),
        soft_trimmed_indices=tuple(sorted({results[p].message for p in trimmed})),
        cleared_indices=tuple(sorted({results[p].message for p in cleared})),
        protected_from=protected_from,
        prunable_chars=prunable,
    )
    return new_messages, report


def _check_messages(messages: Any) -> None:
    """A list (or tuple) of dicts; the error names the first message that is not one."""
    if isinstance(messages, (str, bytes, bytearray, Mapping)) or not isinstance(
        messages, (list, tuple)
    ):
        raise TypeError(f"messages must be a list of message dicts, got {type(messages).__name__}")
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            hint = (
                " (convert SDK objects with .model_dump())"
                if hasattr(message, "model_dump")
                else ""
            )
            raise TypeError(
                f"messages[{index}] must be a dict (a chat message), got {type(message).__name__}{hint}"
            )


def _soft_trim_all(
    results: list[ToolResultRef],
    texts: list[str],
    chars: list[int],
    trimmed: set[int],
    total: int,
    trim_over: int,
    head: int,
    tail: int,
) -> int:
    """Trim every long result to its head and tail (in place); the new estimate."""
    for position, ref in enumerate(results):
        if len(ref.text) > trim_over:
            shorter = _soft_trim(ref.text, head, tail)
            if len(shorter) < ref.chars:
                total += len(shorter) - chars[position]
                texts[position], chars[position] = shorter, len(shorter)
                trimmed.add(position)
    return total


def _clear_oldest(
    texts: list[str],
    chars: list[int],
    trimmed: set[int],
    cleared: set[int],
    total: int,
    hard_limit: int,
) -> int:
    """Replace results by the placeholder, oldest first, until under ``hard_limit`` (in place);
    the new estimate."""
    for position in range(len(texts)):
        if total <= hard_limit:
            break
        if chars[position] <= len(CLEARED_PLACEHOLDER):
            continue  # already cleared (or too short to gain anything)
        total += len(CLEARED_PLACEHOLDER) - chars[position]
        texts[position], chars[position] = CLEARED_PLACEHOLDER, len(CLEARED_PLACEHOLDER)
        cleared.add(position)
        trimmed.discard(position)
    return total
