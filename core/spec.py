"""The hook specifications: the only extension points of toolhooks.

Each docstring below is the reference for its hook. PLUGINS.md tells the story around them and
never contradicts them. An implementation may be ``def`` or ``async def`` and may accept any
subset of the arguments, by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .events._events import Event
    from .records._models import Origin, ToolCall, ToolSpec
    from .records._results import AfterToolCallResult, BeforeToolCallResult, ToolResult
    from .records._sender import Sender

PROJECT = "toolhooks"
hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec
def before_tool_call(call: ToolCall) -> BeforeToolCallResult | dict[str, Any] | None:
    """Decide on a proposed tool call before it runs: allow, rewrite, ask a human, or block.

    Handlers run one at a time, highest priority first (equal priorities in registration order),
    and each sees the params as merged by the handlers before it.

    :param call: The proposed call. ``call.params`` is a read-only deep copy of the merged params
        so far; mutating it raises ``TypeError`` and could never change what runs. ``call.spec``
        is the registered :class:`~toolhooks.ToolSpec` (tags included) or None for an unknown
        tool.
    :return: None for no opinion, or a :class:`~toolhooks.BeforeToolCallResult` (or a dict with
        the same keys; ``blockReason`` and ``requireApproval`` are accepted too). Results
        combine in handler order:

        - ``params``: merged field by field into the running params; a later handler's value for
          a field replaces an earlier one, fields it does not name are kept, and the value
          :data:`~toolhooks.REMOVE` deletes the field. Different values from two plugins for one
          field emit ``params.conflict``.
        - ``require_approval``: an :class:`~toolhooks.ApprovalRequest` (or a dict: ``title``,
          ``description``, ``severity``, ``timeout_s`` or ``timeoutMs``, ``allowed_decisions``).
          The first request wins and freezes the params; afterwards only the requesting plugin
          may still change them (others are ignored and emit ``params.frozen_ignored``). Later
          requests are ignored (``approval.ignored``). The approval is asked only after the
          whole chain ran and the params validated, and then exactly those params run, bound by
          their digest (tool, params, sender, session). ``allowed_decisions`` lists what the
          approver may answer, by default "allow-once", "allow-always" and "deny"; any other
          answer is a deny. "allow-always" also allows this plugin's later requests for the
          tool and sender (the session, when there is no sender) without asking, for requests
          that list it. "edit" (only when listed) lets the approver give whole new params:
          the call is screened again on them, this hook included, and a request for exactly the
          edited params is covered by the edit. "defer" is always allowed, as it decides
          nothing: the call's outcome is "pending" until ``Runtime.resume`` finishes it, without
          running this chain again, or ``[approvals] defer_ttl_s`` expires it. ``timeout_s``
          bounds an approver that answers while the call waits, not a deferred approval.
        - ``block=True``: terminal. The call is blocked with ``block_reason`` (default "Tool call
          blocked by plugin <name>"); no later handler runs and no approval is asked, even if one
          was requested earlier. ``block=False`` is no decision.

        A handler that raises, times out or returns an invalid result blocks the call (fail
        closed; ``hook.error`` carries the last frames, the ``toolhooks`` logger the traceback) unless its plugin is configured ``on_error = "ignore"``. In ``mode = "audit"`` a
        handler's result is recorded in ``hook.decision`` but not applied, and its failure is
        recorded in ``hook.error`` but never blocks.
    """


@hookspec
def after_tool_call(
    call: ToolCall, result: ToolResult
) -> AfterToolCallResult | dict[str, Any] | None:
    """Observe or change a call's result before it goes back into the conversation.

    Fires for every call that reached a decision: executed (ok or error), blocked or denied. A
    paused call (status "pending") has not: its after hooks run once, when it is resumed.

    :param call: The call with the params that ran (or would have run).
    :param result: The running result, read-only: ``status``, ``value`` (the raw return, as a
        read-only copy when it is JSON-like), ``content`` (the text that will be injected),
        ``error``, ``duration_ms``, ``labels`` (given by earlier handlers). Changes made by
        earlier handlers are already applied.
        Assigning a field raises; changes go only through the returned result, and ``status``
        is never a handler's to change.
    :return: None for no change, or an :class:`~toolhooks.AfterToolCallResult` (or a dict):
        ``content`` and ``value`` replace the running ones (last writer wins); each ``note`` is
        appended to the injected content, after the last handler ran, so the model sees it;
        ``truncated`` / ``artifact`` report that the content was cut and where the full text is.
        ``labels`` (names) label the result: they add up across handlers, later handlers see
        them in ``result.labels``, the ``hook.decision`` event records who gave which, and the
        ``rules`` plugin (the last after hook) keeps them for the session and the result's tokens
        for ``from``, so a scanner plugin (secrets, injections) labels and rules act on it.
        A handler that raises, times out or returns an invalid result is recorded (``hook.error``
        with the last frames; the traceback goes to the ``toolhooks`` logger) and skipped
        (fail open) unless its plugin is configured ``on_error = "block"``, which withholds the
        result of a call that ran (status ``blocked``, ``blocked_by`` the plugin); a call already
        blocked or denied keeps its own reason. An audit-mode handler never changes anything.
    """


@hookspec
def tool_visible(
    tool: ToolSpec, sender: Sender | None, agent_id: str | None, origin: Origin
) -> bool | None:
    """Say whether a tool is offered to the model at all.

    :param tool: The registered tool.
    :param sender: Who the agent is acting for, or None.
    :param agent_id: The agent asking, or None.
    :param origin: ``"agent"`` or ``"external"``.
    :return: False hides the tool; True or None has no effect. Any handler's False wins. A
        handler that raises hides the tool (fail closed) unless its plugin is configured
        ``on_error = "ignore"`` or runs in ``mode = "audit"``. Tools the core never lets an
        external call reach (tagged ``internal``, or cron, gateway, sessions_spawn,
        sessions_send, whatsapp_login, nodes) are hidden for ``origin="external"`` whatever the
        handlers say.
    """


@hookspec
def on_event(event: Event) -> None:
    """Receive every pipeline event (``tool.proposed`` ... ``tool.injected``), in order.

    Sinks such as the JSONL event log are implementations of this hook. A sink is called in the
    thread that makes the call; ``async def`` sinks are scheduled and not awaited. A sink may keep
    the event and read it later from another thread (the event log does): nothing changes an
    event's ``data`` after it is emitted.

    :param event: The event; ``trace_id`` and ``call_id`` are always set.
    :return: Ignored. A sink that raises is logged to the ``toolhooks`` logger and never affects
        the call.
    """
