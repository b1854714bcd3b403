"""``tool_visible``: which registered tools the model is offered for a given scope."""

from __future__ import annotations

from typing import Any

from ..records._models import Origin, ToolSpec
from ..records._sender import Sender
from ..registry._registry import Handler, Registry
from ._driver import Pipeline
from ._invoke import CallTrace, ChainRules, run_chain

EXTERNAL_BLOCKED_TOOLS = frozenset(
    {"cron", "gateway", "sessions_spawn", "sessions_send", "whatsapp_login", "nodes"}
)
"""Never callable with origin "external", like every tool tagged ``internal`` (PLUGINS.md, Decisions)."""


def internal_only(name: str, spec: ToolSpec | None) -> bool:
    """True for a tool an external-origin call must never reach, whatever config and plugins say.

    The core enforces this itself (the policy plugin says the same, with its reasons): disabling,
    auditing or re-prioritising the policy must not open internal tools to the outside.
    """
    return name in EXTERNAL_BLOCKED_TOOLS or (spec is not None and "internal" in spec.tags)


def visible(
    registry: Registry,
    specs: list[ToolSpec],
    sender: Sender | None,
    agent_id: str | None,
    origin: Origin,
) -> Pipeline[list[ToolSpec]]:
    """Any handler's False hides a tool; a handler that fails hides it too (fail closed).

    Internal tools are never shown to origin "external", whatever the handlers say.
    """
    shown: list[ToolSpec] = []
    for spec in specs:
        if origin == "external" and internal_only(spec.name, spec):
            continue
        if (yield from hidden_by(registry, spec, sender, agent_id, origin)) is None:
            shown.append(spec)
    return shown


def hidden_by(
    registry: Registry,
    spec: ToolSpec,
    sender: Sender | None,
    agent_id: str | None,
    origin: Origin,
) -> Pipeline[str | None]:
    """The plugin whose ``tool_visible`` hides ``spec`` for this scope, or None if it is shown.

    A failing handler hides (fail closed) unless it is in audit mode or ``on_error = "ignore"``;
    either way the failure goes to the ``toolhooks`` logger with its traceback (there is no
    ``hook.error`` event: listing tools is not a call, and a call blocked here records the plugin
    that hid the tool in its ``tool.blocked``).
    """
    chain = registry.chain("tool_visible", spec.name)
    return run_chain(VISIBILITY, chain, None, (spec, sender, agent_id, origin), None, spec.name)


def _step(
    hider: str | None,
    handler: Handler,
    shown: Any,
    started: float,
    trace: CallTrace | None,
    _values: tuple[Any, ...],
) -> str | None:
    return handler.plugin if shown is False and not handler.audit else hider


def _failed(
    hider: str | None,
    handler: Handler,
    error: str,
    trace: CallTrace | None,
    _values: tuple[Any, ...],
) -> str | None:
    if handler.on_error == "ignore" or handler.audit:  # a shadow plugin never hides
        return hider
    return handler.plugin


def _is_hidden(hider: str | None) -> bool:
    return hider is not None


VISIBILITY: ChainRules[str | None] = ChainRules("tool_visible", _step, _failed, stop=_is_hidden)
"""tool_visible's own rules: any handler's False hides (the chain stops there)."""
