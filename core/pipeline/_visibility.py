"""``tool_visible``: which registered tools the model is offered for a given scope."""

from __future__ import annotations

from inspect import isawaitable
from typing import Any

from ..records._models import Origin, ToolSpec
from ..records._sender import Sender
from ..registry._registry import DEFAULT_ASYNC_TIMEOUT, Registry
from ._driver import AwaitIt, Pipeline
from ._invoke import describe_error, invoke, logger

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
    if not chain:
        return None
    values: dict[str, Any] | None = None  # the arguments by name, made for the first that needs it
    for handler in chain:
        try:
            if handler.direct:
                # A plain def taking the spec's four arguments in order (the policy's): called
                # with them as they are: 0.04 against 0.44 µs naming them (timeit, 2-core EPYC).
                verdict = handler.function(spec, sender, agent_id, origin)
                if verdict is not None and type(verdict) is not bool and isawaitable(verdict):
                    verdict = yield AwaitIt(verdict, handler.timeout or DEFAULT_ASYNC_TIMEOUT)
            elif handler.inline:
                # A plain def taking some of them: called here, without invoke's generator, 0.3 µs a
                # call less (timeit, idle 2-core EPYC); a coroutine it returns is still awaited.
                values = values or _named(spec, sender, agent_id, origin)
                verdict = handler.function(*handler.call_args(values))
                if verdict is not None and type(verdict) is not bool and isawaitable(verdict):
                    verdict = yield AwaitIt(verdict, handler.timeout or DEFAULT_ASYNC_TIMEOUT)
            else:
                values = values or _named(spec, sender, agent_id, origin)
                verdict = yield from invoke(handler, handler.call_args(values))
        except Exception as exc:
            logger.error(
                "tool_visible hook %s failed on tool %r: %s",
                handler.plugin,
                spec.name,
                describe_error(exc),
                exc_info=exc,
            )
            if handler.on_error == "ignore" or handler.audit:  # a shadow plugin never hides
                continue
            return handler.plugin
        if verdict is False and not handler.audit:
            return handler.plugin
    return None


def _named(
    spec: ToolSpec, sender: Sender | None, agent_id: str | None, origin: Origin
) -> dict[str, Any]:
    return {"tool": spec, "sender": sender, "agent_id": agent_id, "origin": origin}
