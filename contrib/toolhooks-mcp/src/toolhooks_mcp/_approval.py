"""Approvals through the MCP client: an elicitation form, in the call or as an input-required round.

- Handshake-era sessions (<= 2025-11-25): the approver sends ``elicitation/create`` while the
  tools/call is open and answers with the user's choice.
- 2026-07-28 sessions: the approver defers; the proxy answers the tools/call with an
  ``InputRequiredResult`` whose ``requestState`` names the pending approval (sealed by the SDK's
  ``RequestStateBoundary``), and the client's retry resumes it with ``rt.aresume``. The store
  consumes an approval once, so a replayed answer runs nothing.
- A client that cannot elicit: the configured route (``[approvals] route``), else a deny
  "Approval unavailable (the MCP client cannot elicit)".
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from toolhooks import ApprovalDecision, ApprovalUnavailable, PendingApproval, Runtime, thaw

from ._config import McpTable
from ._results import Holder, call_result
from ._scope import Caller, current_request

if TYPE_CHECKING:
    from ._proxy import Proxy

CANNOT_ELICIT = "the MCP client cannot elicit"
INPUT_KEY = "toolhooks.approval"
PARAMS_SHOWN = 2000


class ClientApprover:
    """The runtime's approver: asks the user of the MCP client the current call came from."""

    def __init__(self) -> None:
        self.settings = McpTable()
        self.fallback: Callable[[PendingApproval], Any] | None = None

    def setup(self, runtime: Runtime, settings: McpTable) -> None:
        self.settings = settings
        route = runtime.config.approvals.route
        if route != "none":  # the core's own route approvers
            self.fallback = runtime.route_approver()

    def _client_answers(self) -> bool:
        scope = current_request.get()
        return scope is not None and self.settings.elicit and _can_elicit(scope.ctx)

    @property
    def stores_rows(self) -> bool:
        """The queue route waits on a row the pipeline records before asking: say so exactly
        when this call's approval goes to that route (read by the core's approval gate)."""
        return bool(getattr(self.fallback, "stores_rows", False)) and not self._client_answers()

    async def __call__(self, pending: PendingApproval) -> str | ApprovalDecision:
        scope = current_request.get()
        if scope is None or not self._client_answers():
            return await self._fallback(pending)
        ctx = scope.ctx
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            scope.asked_client = True
            return "defer"  # answered by an input-required round (Proxy._call_tool)
        answer = await ctx.session.elicit_form(
            _message(pending), _schema(pending), related_request_id=ctx.request_id
        )
        return decision_of(answer, pending, _who(scope.caller))

    async def _fallback(self, pending: PendingApproval) -> str | ApprovalDecision:
        route = self.fallback
        if route is None:
            raise ApprovalUnavailable(CANNOT_ELICIT)
        answer: str | ApprovalDecision = await anyio.to_thread.run_sync(
            route, pending, abandon_on_cancel=True
        )
        return answer

    def input_required(self, pending: PendingApproval, caller: Caller) -> types.InputRequiredResult:
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=_message(pending), requested_schema=_schema(pending)
            )
        )
        state = {"approval": pending.id, "sender": _who(caller), "session": caller.session_id}
        return types.InputRequiredResult(
            input_requests={INPUT_KEY: request}, request_state=json.dumps(state)
        )


async def resume_round(
    proxy: Proxy,
    params: types.CallToolRequestParams,
    caller: Caller,
    execute: Callable[[dict[str, Any]], Awaitable[Any]],
    holder: Holder,
) -> types.CallToolResult | types.InputRequiredResult:
    """A 2026-07-28 retry: the sealed state names the approval, the response decides it, once."""
    try:
        state = json.loads(params.request_state or "")
        approval_id = state["approval"]
        bound = (state["sender"], state["session"])
    except (ValueError, KeyError, TypeError):
        raise MCPError(code=INVALID_PARAMS, message="Invalid or expired requestState") from None
    if bound != (_who(caller), caller.session_id):
        raise MCPError(code=INVALID_PARAMS, message="Invalid or expired requestState")
    runtime = proxy.runtime
    stored = runtime.approvals.get(approval_id)
    answer = (params.input_responses or {}).get(INPUT_KEY)
    if stored is None or not isinstance(answer, types.ElicitResult):
        decision: str | ApprovalDecision = ApprovalDecision("deny", reason="no answer was given")
    else:
        decision = decision_of(answer, stored.pending(), _who(caller))
    if isinstance(decision, ApprovalDecision):
        outcome = await runtime.aresume(
            approval_id,
            decision.decision,
            params=decision.params,
            execute=execute,
            by=decision.by,
            reason=decision.reason,
        )
    else:
        outcome = await runtime.aresume(approval_id, decision, execute=execute, by=_who(caller))
    if outcome.status == "pending" and outcome.pending is not None:
        return proxy.approver.input_required(outcome.pending, caller)
    return call_result(outcome, holder.result)  # a pending outcome from the route: see _results


def decision_of(
    answer: types.ElicitResult, pending: PendingApproval, by: str | None
) -> ApprovalDecision:
    """The user's form answer as a decision; anything malformed is a deny, never an allow."""
    if answer.action != "accept" or not answer.content:
        why = (
            "the user declined" if answer.action == "decline" else "the user dismissed the request"
        )
        return ApprovalDecision("deny", reason=why, by=by)
    content = answer.content
    decision = content.get("decision")
    reason = content.get("reason")
    reason = reason if isinstance(reason, str) and reason else None
    if not isinstance(decision, str):
        return ApprovalDecision("deny", reason="the answer named no decision", by=by)
    if decision != "edit":
        return ApprovalDecision(decision, reason=reason, by=by)
    text = content.get("params")
    try:
        edited = json.loads(text) if isinstance(text, str) else None
    except ValueError as exc:
        return ApprovalDecision("deny", reason=f"the edited arguments are not JSON ({exc})", by=by)
    if not isinstance(edited, dict):
        return ApprovalDecision("deny", reason="the edited arguments must be a JSON object", by=by)
    return ApprovalDecision("edit", reason=reason, by=by, params=edited)


def _can_elicit(ctx: Any) -> bool:
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    # A bare `elicitation: {}` predates modes and means form support; url-only does not.
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def _who(caller: Caller) -> str | None:
    return caller.sender.id if caller.sender is not None else None


def _message(pending: PendingApproval) -> str:
    request = pending.request
    shown = json.dumps(thaw(pending.call.params), ensure_ascii=False, default=str)
    if len(shown) > PARAMS_SHOWN:
        shown = shown[:PARAMS_SHOWN] + f"... ({len(shown)} characters)"
    return (
        f"{request.title}\n\n{request.description}\n\n"
        f"Tool: {pending.call.name} (asked by {pending.plugin}, {request.severity})\n"
        f"Arguments: {shown}"
    )


def _schema(pending: PendingApproval) -> dict[str, Any]:
    allowed = [d for d in pending.request.allowed_decisions if d != "defer"]
    properties: dict[str, Any] = {
        "decision": {"type": "string", "title": "Decision", "enum": allowed},
        "reason": {"type": "string", "title": "Reason (optional)"},
    }
    if "edit" in allowed:
        properties["params"] = {
            "type": "string",
            "title": "Edited arguments",
            "description": "With decision 'edit': the whole arguments to run, as a JSON object.",
            "default": json.dumps(thaw(pending.call.params), ensure_ascii=False, default=str),
        }
    return {"type": "object", "properties": properties, "required": ["decision"]}
