"""What ``Runtime.decide`` gives and what an approver may return: records that a call which asks
for no approval never builds, so a start does not make their classes (each about 1.7 M
instructions: ``@dataclass(frozen=True)`` compiles its ``__setattr__`` and ``__delattr__``)."""

from dataclasses import dataclass
from typing import Any, Literal

from .._public import public
from ._methods import dataclass_methods
from ._results import PendingApproval


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Decision:
    """What ``Runtime.decide`` found: allowed (final params), blocked (reason), or pending."""

    status: Literal["allowed", "blocked", "pending"]
    call_id: str
    trace_id: str
    tool: str
    params: dict[str, Any] | None = None
    reason: str | None = None
    blocked_by: str | None = None
    pending: PendingApproval | None = None

    def __init__(
        self,
        *,
        status: Literal["allowed", "blocked", "pending"],
        call_id: str,
        trace_id: str,
        tool: str,
        params: dict[str, Any] | None = None,
        reason: str | None = None,
        blocked_by: str | None = None,
        pending: PendingApproval | None = None,
    ) -> None:
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "call_id", call_id)
        object.__setattr__(self, "trace_id", trace_id)
        object.__setattr__(self, "tool", tool)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "blocked_by", blocked_by)
        object.__setattr__(self, "pending", pending)

    @property
    def allowed(self) -> bool:
        return self.status == "allowed"

    @property
    def blocked(self) -> bool:
        return self.status == "blocked"

    @property
    def needs_approval(self) -> bool:
        return self.status == "pending"


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, init=False, repr=False, eq=False)
class ApprovalDecision:
    """An approver may return this instead of a bare decision string.

    ``params`` is required for "edit": the whole params the editor wants to run (not a patch).
    """

    decision: str
    reason: str | None = None
    by: str | None = None
    params: dict[str, Any] | None = None

    def __init__(
        self,
        decision: str,
        reason: str | None = None,
        by: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "by", by)
        object.__setattr__(self, "params", params)


public("toolhooks", ApprovalDecision, Decision)
