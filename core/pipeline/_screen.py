"""Screening: the before chain, visibility and validation, ending in a ``Verdict``: blocked,
unknown, invalid, or "go" with the validated params. ``Runtime.decide`` stops here."""

from __future__ import annotations

from typing import Any

from ..records._frozen import thaw_params
from ..records._models import ToolSpec
from ._before import BeforeState, run_before_chain
from ._context import Context, Execute, Run
from ._driver import Pipeline
from ._tools import ParamsInvalid, Tool
from ._verdict import CORE, Verdict
from ._visibility import hidden_by, internal_only


def screen(ctx: Context, run: Run, may_execute: bool = True) -> Pipeline[Verdict]:
    """The before chain, visibility and validation: blocked, unknown, invalid or "go"."""
    state = run.state
    yield from run_before_chain(state, run.before, run.tracing)
    state.plugin = None
    if state.blocked_by is None and ctx.registry.chain("tool_visible", state.tool):
        call = state.call
        spec = call.spec or ToolSpec(call.name)
        hider = yield from hidden_by(ctx.registry, spec, call.sender, call.agent_id, call.origin)
        if hider is not None:
            state.blocked_by = hider
            state.block_reason = (
                f"Tool '{call.name}' is not available to this caller (hidden by plugin {hider})"
            )
    return decide_verdict(state, run.tool, run.execute if may_execute else _LATER, state.tool)


def _later(_params: dict[str, Any]) -> Any:  # pragma: no cover - never executed
    raise LookupError("no executor")


_LATER: Execute = _later
"""``decide`` has no executor yet: an unregistered tool may still get one from the later call."""


def decide_verdict(
    state: BeforeState, tool: Tool | None, execute: Execute | None, name: str
) -> Verdict:
    """Blocked by the chain, unknown, invalid, or "go" with the validated params."""
    if state.blocked_by is not None:
        return Verdict(
            "blocked", dict(state.params), None, "policy", state.block_reason, state.blocked_by
        )
    if state.call.origin == "external" and internal_only(name, state.call.spec):
        reason = f"Tool '{name}' is internal: never callable from origin 'external'"
        return Verdict("blocked", dict(state.params), None, "policy", reason, CORE)
    if tool is None and execute is None:
        return Verdict("error", dict(state.params), None, "unknown_tool", f"Unknown tool '{name}'")
    thawed = thaw_params(state.params) if state.params else {}
    if tool is None:
        return Verdict("go", thawed, thawed)
    try:
        kwargs, shown = tool.validate(thawed)
    except ParamsInvalid as exc:
        reason = f"Invalid params for tool '{name}': {exc}"
        return Verdict("blocked", dict(state.params), None, "invalid_params", reason, CORE)
    return Verdict("go", shown, kwargs)
