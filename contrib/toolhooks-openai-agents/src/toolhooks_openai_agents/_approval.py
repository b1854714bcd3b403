"""toolhooks approvals in the SDK's terms: ``needs_approval``, interruptions, approve and reject.

The SDK can pause a run only before a tool call starts, through the tool's ``needs_approval``
predicate. So the predicate does the deciding part of the pipeline (``rt.adecide``) and, when a
hook asks for an approval, asks the runtime's approver right there (``rt.aask``):

- the approver answers at once (allow, deny, edit): the answer is recorded in the approval
  store, the predicate says "no pause", and the tool call finishes the call with that answer,
  inline, inside the SDK's tool call;
- the approver answers "defer" (``defer_to_sdk``): the predicate says "pause", the run stops with
  the call in ``result.interruptions``. ``RunState.approve`` runs the call (allow-once) when the
  run resumes; ``RunState.reject`` denies it. ``resolve`` / ``aresolve`` give the human the other
  toolhooks decisions (allow-always, edit) and put toolhooks' own text in front of the model.

Either way the call keeps one call id: one ``tool.proposed`` and one ``tool.injected``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any
from weakref import WeakKeyDictionary

from agents import RunContextWrapper
from toolhooks import Outcome, PendingApproval, Runtime, ToolCall

from ._calls import CallScope

Execute = Callable[[dict[str, Any]], Awaitable[Any]]
BY = "openai-agents"
"""Who resolved an approval through the SDK's own approve / reject (recorded as ``by``)."""
_REMEMBERED = 4096

CANNOT_PAUSE = (
    "a new approval is needed, and the run cannot pause inside a tool call (the SDK pauses only "
    "before one starts: after always_approve, or when an edit was changed again by a hook)"
)


def defer_to_sdk(pending: PendingApproval) -> str:
    """An approver for ``Runtime(approver=...)``: every approval becomes the SDK's own pause."""
    return "defer"


class Approvals:
    """The approval bookkeeping of one guarded tool."""

    def __init__(self, runtime: Runtime, scope: CallScope) -> None:
        self.runtime = runtime
        self.scope = scope
        self._paused: OrderedDict[str, str] = OrderedDict()  # call id -> tool name, while paused
        self._statuses: OrderedDict[str, str] = OrderedDict()  # call id -> Outcome.status

    async def needs_pause(self, ctx: RunContextWrapper[Any], call: ToolCall) -> bool:
        """The SDK's ``needs_approval``: True only when the approver deferred to the SDK."""
        runtime = self.runtime
        decision = await runtime.adecide(call)
        if decision.pending is None:
            return False  # allowed or blocked: the tool call concludes it
        answer = await runtime.aask(decision.pending.id)
        if answer != "defer":
            return False  # recorded in the store: the tool call finishes it inline
        _remember(self._paused, call.id, call.name)
        return True

    async def finish(
        self, ctx: RunContextWrapper[Any], call: ToolCall | dict[str, Any], execute: Execute
    ) -> Outcome:
        """Run the call, or finish the one the predicate decided, under the same call id."""
        runtime = self.runtime
        call_id = call.id if isinstance(call, ToolCall) else str(call["id"])
        row = runtime.approvals.for_call(call_id)
        if row is not None and row.state == "decided":
            outcome = await runtime.aresume(row.id, execute=execute)
        elif row is not None and row.state == "pending":
            # Invoked while paused: the SDK's RunState.approve let this call run.
            self._paused.pop(call_id, None)
            outcome = await runtime.aresume(row.id, "allow-once", execute=execute, by=BY)
        else:
            outcome = await runtime.acall(call, execute=execute)
        if outcome.status == "pending" and outcome.pending is not None:
            # A new approval inside a running tool call (the SDK skipped the predicate, or an
            # edit was changed again by the chain): no way to pause here, so fail closed with a
            # reason the model can read.
            return await runtime.aresume(
                outcome.pending.id, "deny", execute=execute, by=BY, reason=CANNOT_PAUSE
            )
        return outcome

    async def settle_rejections(self, ctx: RunContextWrapper[Any]) -> None:
        """Deny, in toolhooks, paused calls that ``RunState.reject`` turned down.

        The SDK answers a rejected call itself, without calling the tool. It lists the tools
        (``is_enabled``) before it writes that answer when the run resumes, so this is where the
        toolhooks side of the call is concluded; ``guard_run_config`` then shows the model
        toolhooks' text (``settled_denial``).
        """
        for call_id, name in list(self._paused.items()):
            if ctx.is_tool_approved(name, call_id) is False:
                self._paused.pop(call_id, None)
                row = self.runtime.approvals.for_call(call_id)
                if row is not None and row.state in ("pending", "decided"):
                    outcome = await self.runtime.aresume(row.id, "deny", by=BY)
                    _remember(_denials(self.runtime), call_id, outcome.content)

    @property
    def paused(self) -> bool:
        """Whether a call of this tool is waiting in an SDK pause (one to settle on a reject)."""
        return bool(self._paused)

    def remember_status(self, call_id: str, status: str) -> None:
        _remember(self._statuses, call_id, status)

    def status_of(self, call_id: str) -> str | None:
        return self._statuses.pop(call_id, None)


def settled_denial(runtime: Runtime, call_id: str) -> str | None:
    """The text of a rejection this module concluded before the SDK asked for its message."""
    return _denials(runtime).pop(call_id, None)


def _denials(runtime: Runtime) -> OrderedDict[str, str]:
    denials = _DENIALS.get(runtime)
    if denials is None:
        denials = _DENIALS[runtime] = OrderedDict()
    return denials


_DENIALS: WeakKeyDictionary[Runtime, OrderedDict[str, str]] = WeakKeyDictionary()
"""Per runtime: call id -> toolhooks' text for a rejection settled when the tools were listed
(the SDK lists them before it writes the rejection's output)."""


def _remember(memory: OrderedDict[str, str], key: str, value: str) -> None:
    memory[key] = value
    if len(memory) > _REMEMBERED:
        memory.popitem(last=False)
