"""The pieces every protocol's ``render`` shares: a JSON reply, and the words for an answer the
agent cannot carry out (a rewritten input, a prompt) turned into a denial the model can act on.

Stdlib only, like the protocols that use it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._protocol import HookAnswer, HookReply


def json_reply(body: Mapping[str, Any], *, exit_code: int = 0, stderr: str = "") -> HookReply:
    """``body`` as one line of JSON on stdout (agents parse the whole of stdout as one object)."""
    return HookReply(stdout=compact(body), stderr=stderr, exit_code=exit_code)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def denial(answer: HookAnswer, *, agent: str, can_ask: bool, can_rewrite: bool) -> str | None:
    """The reason to deny with, when ``answer`` cannot go to ``agent`` as it is; None when it can.

    A deny keeps its reason. An ask the agent has no prompt for, and a rewrite it cannot take,
    become a denial that says so: the model reads what toolhooks wanted instead of the call
    silently running unchanged."""
    if answer.action == "deny":
        return answer.reason or "blocked by toolhooks"
    if answer.action == "ask" and not can_ask:
        return answer.reason or f"toolhooks needs an approval for this call; {agent} cannot ask"
    if answer.action == "rewrite" and not can_rewrite:
        change = compact(dict(answer.params or {}))
        return (
            f"toolhooks changed this call's input to {change}; {agent} cannot run a changed "
            "input, so the call was not run. Call the tool again with that input."
        )
    return None


def joined(*parts: str | None) -> str | None:
    """The non-empty parts, one paragraph each; None when there are none."""
    kept = [part for part in parts if part]
    return "\n\n".join(kept) if kept else None
