"""Resolving an approval a hook asked for: the approver, timeouts, and what a decision means.

``ask`` turns whatever an approver does (answers, times out, raises, is interrupted) into a
:class:`Resolution`; it never raises. The pipeline then applies the resolution (``_gate``).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from .._public import public
from ..pipeline._driver import AwaitIt, Pipeline, RunInThread, TimedOut
from ..records._decisions import ApprovalDecision
from ..records._errors import ParamsError, ToolhooksError
from ..records._frozen import freeze_params, thaw
from ..records._models import ToolCall
from ..records._plain import Record
from ..records._results import (
    DECISIONS,
    ApprovalRequest,
    DecisionName,
    PendingApproval,
)
from ..stores._contract import new_approval_id

Approver = Callable[[PendingApproval], str | ApprovalDecision | Awaitable[Any]]

DENIED_BY_USER = "Denied by user"
TIMED_OUT = "Approval timed out"
NO_ROUTE = "Approval unavailable (no approval route)"


class ApprovalUnavailable(ToolhooksError, RuntimeError):
    """Raised by an approver (or route) that has nobody to ask; the call is denied with its text."""


class Resolution(Record):
    """What the approval step decided; ``interrupted`` is re-raised once the call is recorded."""

    __slots__ = ("by", "cancelled", "decision", "interrupted", "params", "reason", "remembered")

    decision: DecisionName
    reason: str | None
    remembered: bool
    by: str | None
    params: dict[str, Any] | None
    cancelled: bool
    interrupted: BaseException | None

    def __init__(
        self,
        *,
        decision: DecisionName,
        reason: str | None,
        remembered: bool = False,
        by: str | None = None,
        params: dict[str, Any] | None = None,
        cancelled: bool = False,
        interrupted: BaseException | None = None,
    ) -> None:
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "remembered", remembered)
        object.__setattr__(self, "by", by)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "cancelled", cancelled)
        object.__setattr__(self, "interrupted", interrupted)


def _normalise(raw: Any) -> tuple[str | None, str | None, str | None, Any]:
    fields: tuple[Any, Any, Any]
    params: Any = None
    if isinstance(raw, ApprovalDecision):
        fields, params = (raw.decision, raw.reason, raw.by), raw.params
    elif isinstance(raw, str):
        fields = (raw, None, None)
    elif isinstance(raw, Mapping):
        fields = (raw.get("decision"), raw.get("reason"), raw.get("by"))
        params = raw.get("params")
    else:
        return None, None, None, None
    # Plain str copies: a str subclass must not be able to compare equal to "allow-once".
    decision, reason, by = (str.__str__(f) if isinstance(f, str) else None for f in fields)
    return decision, reason, by, params


def judge(
    request: ApprovalRequest,
    decision: str | None,
    reason: str | None,
    by: str | None,
    params: Any,
    shown: str | None = None,
) -> Resolution:
    """A decision checked against the request: outside ``allowed_decisions`` it is a deny."""
    if decision not in DECISIONS or (
        decision != "defer" and decision not in request.allowed_decisions
    ):
        label = decision if decision is not None else shown
        return Resolution(
            decision="deny", reason=f"{DENIED_BY_USER} (decision {label!r} is not allowed)", by=by
        )
    if decision == "deny":
        return Resolution(
            decision="deny",
            reason=f"{DENIED_BY_USER}: {reason}" if reason else DENIED_BY_USER,
            by=by,
        )
    if decision == "edit":
        if not isinstance(params, Mapping):
            return Resolution(
                decision="deny",
                reason=f"{DENIED_BY_USER} (an edit must give the params to run)",
                by=by,
            )
        try:
            edited = thaw(freeze_params(params))
        except (ParamsError, TypeError, ValueError) as exc:
            return Resolution(
                decision="deny",
                reason=f"{DENIED_BY_USER} (edited params are invalid: {exc})",
                by=by,
            )
        return Resolution(decision="edit", reason=reason, by=by, params=edited)
    return Resolution(decision=cast(DecisionName, decision), reason=reason, by=by)


def make_pending(
    call: ToolCall,
    plugin: str,
    request: ApprovalRequest,
    digest: str,
    proposed: Mapping[str, Any],
    rewritten_by: Mapping[str, str],
) -> PendingApproval:
    approval_id, short_id = new_approval_id()
    spec = call.spec
    return PendingApproval(
        id=approval_id,
        short_id=short_id,
        call=call,
        plugin=plugin,
        request=request,
        digest=digest,
        expires_at=time.time() + request.timeout_s,
        proposed_params=thaw(proposed),
        rewritten_by=dict(rewritten_by),
        schema=None if spec is None else thaw(dict(spec.parameters)),
    )


def ask(
    approver: Approver | None,
    pending: PendingApproval,
    passthrough: tuple[type[BaseException], ...] = (),
) -> Pipeline[Resolution]:
    """Ask ``approver`` and turn whatever happens into a :class:`Resolution` (never raises).

    An interruption (Ctrl-C at a prompt, a cancelled task, a framework's passthrough exception)
    is a deny marked ``cancelled`` that carries the exception: the pipeline records the call to
    its end, then re-raises it unchanged.
    """
    if approver is None:
        return Resolution(decision="deny", reason=NO_ROUTE)
    request = pending.request
    try:
        if inspect.iscoroutinefunction(approver) or inspect.iscoroutinefunction(
            getattr(approver, "__call__", None)  # noqa: B004 - async callable objects
        ):
            raw = yield AwaitIt(cast(Awaitable[Any], approver(pending)), request.timeout_s)
        else:
            # The approver may block on a human; run it where its timeout can be enforced.
            raw = yield RunInThread(approver, (pending,), request.timeout_s)
            if inspect.isawaitable(raw):
                raw = yield AwaitIt(raw, max(0.001, pending.expires_at - time.time()))
    except TimedOut:
        return Resolution(decision="deny", reason=TIMED_OUT)
    except ApprovalUnavailable as exc:
        return Resolution(decision="deny", reason=f"Approval unavailable ({exc})")
    except GeneratorExit:
        raise
    except BaseException as exc:
        if (passthrough and isinstance(exc, passthrough)) or not isinstance(exc, Exception):
            why = f"Approval interrupted: {type(exc).__name__}"
            return Resolution(decision="deny", reason=why, cancelled=True, interrupted=exc)
        return Resolution(decision="deny", reason=f"Approval failed: {type(exc).__name__}: {exc}")
    if time.time() > pending.expires_at + 0.5:
        return Resolution(decision="deny", reason=TIMED_OUT)
    try:
        decision, reason, by, params = _normalise(raw)
    except Exception as exc:  # a mapping that raises while it is read
        return Resolution(decision="deny", reason=f"Approval failed: {type(exc).__name__}: {exc}")
    return judge(request, decision, reason, by, params, type(raw).__name__)


public("toolhooks", ApprovalUnavailable)
