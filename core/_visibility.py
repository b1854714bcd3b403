"""``tool_visible``: which registered tools the model is offered for a given scope."""

from __future__ import annotations

from typing import Any

from ._driver import Pipeline
from ._merge import invoke
from ._models import Origin, Sender, ToolSpec
from ._registry import Registry


def visible(
    registry: Registry,
    specs: list[ToolSpec],
    sender: Sender | None,
    agent_id: str | None,
    origin: Origin,
) -> Pipeline[list[ToolSpec]]:
    """Any handler's False hides a tool; a handler that fails hides it too (fail closed)."""
    shown: list[ToolSpec] = []
    for spec in specs:
        hidden = False
        values: dict[str, Any] = {
            "tool": spec,
            "sender": sender,
            "agent_id": agent_id,
            "origin": origin,
        }
        for handler in registry.chain("tool_visible", spec.name):
            try:
                verdict = yield from invoke(handler, handler.call_args(values))
            except Exception:
                if handler.on_error == "ignore":
                    continue
                hidden = True
                break
            if verdict is False and not handler.audit:
                hidden = True
                break
        if not hidden:
            shown.append(spec)
    return shown
