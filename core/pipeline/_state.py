"""One call's state, and the before_tool_call merge rules as a pure fold over it.

``CallState`` is where the before chain left a call: the merged params (in ``call``, the view
the next handler gets), who last wrote each field, the approval request and its plugin, the
block. It is immutable; ``fold`` takes a state, a plugin's name and what its handler returned,
and gives the next state, so the merge rules can be read and tested without a runtime (as
pluggy's ``_multicall``). The before chain (``_screen``) only calls handlers and folds their results.

A call starts as ``CallState(call, call.params)`` (its params as proposed, no approval, no
block); a paused call is taken up again from its stored row by ``CallState.from_row``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..records._errors import HookResultError, ParamsError
from ..records._frozen import FrozenDict, freeze_params, freeze_value
from ..records._models import REMOVE, ToolCall, ToolSpec
from ..records._results import ApprovalRequest, BeforeToolCallResult
from ._invoke import describe_error

if TYPE_CHECKING:  # a stored row is read only when a paused call resumes (not at start-up)
    from ..stores._contract import StoredApproval

Notice = tuple[str, str, dict[str, Any]]
"""An event a step of the fold adds to the call's trace: name, plugin, data."""
Ids = tuple[str, str, "str | None", str]
"""trace_id, call_id, session_id, tool: the envelope every event of a call carries."""


class HookFailed(NamedTuple):
    """What a handler that raised or overran its timeout gives the fold (rule 5)."""

    error: str


class CallState(NamedTuple):
    """Where the before chain left one call. Never changed: ``fold`` makes the next one.

    A named tuple rather than a frozen dataclass: one is built for every call, and a frozen
    dataclass costs four times as much to build (BENCHMARKS.md, "The call state").
    """

    call: ToolCall
    """The call with the merged params: what the next handler, validation and the tool get."""
    proposed: Mapping[str, Any]
    """The params the chain started from (the proposal, or an editor's params)."""
    writers: Mapping[str, str] | None = None
    """Field -> the plugin that last wrote it (None: no handler wrote any)."""
    approval: ApprovalRequest | None = None
    approval_plugin: str | None = None
    """The plugin whose request won (rule 3), stamped by the runtime, never by the handler."""
    blocked_by: str | None = None
    block_reason: str | None = None
    events: tuple[Notice, ...] = ()
    """The events of the step that made this state (a step that changes nothing returns the
    state it was given, so these are never recorded twice)."""

    @classmethod
    def from_row(cls, row: StoredApproval, spec: ToolSpec | None) -> CallState:
        """A paused call as its stored row recorded it when the before chain paused it."""
        return cls(
            row.call(spec),
            freeze_params(row.proposed_params),
            dict(row.rewritten_by) or None,
            row.request(),
            row.plugin,
        )

    @property
    def params(self) -> Mapping[str, Any]:
        """The merged params (read-only)."""
        return self.call.params

    def rewritten(self, final: Mapping[str, Any] | None = None) -> dict[str, str]:
        """Fields whose value (``final``, else the merged params) differs from where the chain
        started, with the plugin that last wrote them."""
        if not self.writers:
            return {}
        missing = object()
        proposed, current = self.proposed, self.params if final is None else final
        return {
            key: plugin
            for key, plugin in self.writers.items()
            if proposed.get(key, missing) != current.get(key, missing)
        }


def call_ids(call: ToolCall) -> Ids:
    # Built only when an event is emitted: a chain of handlers with no opinion builds none.
    return (call.trace_id, call.id, call.session_id, call.name)


def blocked(
    state: CallState, plugin: str, reason: str, events: tuple[Notice, ...] = ()
) -> CallState:
    """``state`` blocked by ``plugin``: terminal, the chain stops (rule 4)."""
    return CallState(
        state.call,
        state.proposed,
        state.writers,
        state.approval,
        state.approval_plugin,
        plugin,
        reason,
        events,
    )


def fold(
    state: CallState,
    plugin: str,
    result: BeforeToolCallResult | HookFailed | None,
    *,
    on_error: str = "block",
    audit: bool = False,
) -> CallState:
    """The next state after ``plugin``'s handler returned ``result``: the merge rules.

    ``on_error`` and ``audit`` are the plugin's configured options (rules 5 and 6).
    """
    if result is None or audit:  # 1. no opinion; 6. an audit plugin's decisions are not applied
        return state
    if isinstance(result, HookFailed):
        return _hook_failed(state, plugin, result, on_error)
    events: list[Notice] = []
    call, writers = state.call, state.writers
    if result.params is not None:
        if state.approval_plugin is not None and state.approval_plugin != plugin:
            # 3. the approval froze the params: another plugin's are ignored, and recorded
            fields = sorted(str(k) for k in result.params)
            data = {"fields": fields, "approval_plugin": state.approval_plugin}
            events.append(("params.frozen_ignored", plugin, data))
        else:
            try:
                call, writers = _merge(state, result.params, plugin, events)
            except Exception as exc:  # also a mapping that raises while it is read
                return _invalid_params(state, plugin, exc, on_error)
    approval, approval_plugin = state.approval, state.approval_plugin
    request = result.require_approval
    if request is not None:
        assert isinstance(request, ApprovalRequest)  # coerce_before validated it
        if approval_plugin is None:  # 3. the first request wins
            approval, approval_plugin = request, plugin
        else:  # later requests are ignored, and recorded
            data = {"title": request.title, "approval_plugin": approval_plugin}
            events.append(("approval.ignored", plugin, data))
    blocked_by = block_reason = None
    if result.block:  # 4. terminal, even after an approval was requested
        blocked_by = plugin
        block_reason = result.block_reason or f"Tool call blocked by plugin {plugin}"
    if (
        not events
        and blocked_by is None
        and call is state.call
        and writers is state.writers
        and approval_plugin is state.approval_plugin
    ):
        return state
    return CallState(
        call,
        state.proposed,
        writers,
        approval,
        approval_plugin,
        blocked_by,
        block_reason,
        tuple(events),
    )


def _hook_failed(state: CallState, plugin: str, failed: HookFailed, on_error: str) -> CallState:
    """5. A handler that failed: the call is blocked unless the plugin is ``on_error = "ignore"``."""
    if on_error == "ignore":
        return state
    reason = f"Tool call blocked because before_tool_call hook {plugin} failed: {failed.error}"
    return blocked(state, plugin, reason)


def _invalid_params(state: CallState, plugin: str, exc: Exception, on_error: str) -> CallState:
    """Params a handler returned that cannot be merged: a failure of that handler (rule 5);
    with ``on_error = "ignore"`` its whole result is skipped, and recorded."""
    problem = str(exc) if isinstance(exc, (ParamsError, HookResultError)) else describe_error(exc)
    error = {
        "hook": "before_tool_call",
        "error": f"invalid params: {problem}",
        "on_error": on_error,
    }
    notice: tuple[Notice, ...] = (("hook.error", plugin, error),)
    if on_error == "ignore":
        return state._replace(events=notice)
    reason = (
        f"Tool call blocked because before_tool_call hook {plugin} "
        f"failed: invalid params: {problem}"
    )
    return blocked(state, plugin, reason, notice)


def _merge(
    state: CallState, update: Mapping[str, Any], plugin: str, events: list[Notice]
) -> tuple[ToolCall, Mapping[str, str]]:
    """2. Field-level, last-writer-wins merge of ``update`` into the merged params."""
    # Check and copy every value first: an invalid update changes nothing (on_error = "ignore").
    checked: list[tuple[str, Any]] = []
    for key, value in update.items():
        if not isinstance(key, str):
            raise HookResultError(f"params key {key!r} is not a string")
        checked.append((key, value if value is REMOVE else freeze_value(value, f"params.{key}")))
    params = dict(state.call.params)
    writers = dict(state.writers) if state.writers else {}
    changed = False
    for key, value in checked:
        previous_writer = writers.get(key)
        field_changed = False
        if value is REMOVE:
            if key in params:
                del params[key]
                field_changed = True
        elif key not in params or (params[key] is not value and params[key] != value):
            params[key] = value
            field_changed = True
        changed = changed or field_changed
        if field_changed and previous_writer is not None and previous_writer != plugin:
            events.append(
                ("params.conflict", plugin, {"field": key, "plugins": [previous_writer, plugin]})
            )
        writers[key] = plugin
    call = state.call.with_params(FrozenDict(params)) if changed else state.call
    return call, writers
