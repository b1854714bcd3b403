"""The decision the pipeline reaches before after_tool_call runs, and the name core checks
block with."""

from __future__ import annotations

from typing import Any

from ..records._results import DecisionName

CORE = "toolhooks"
"""The name that core checks (invalid calls and params, digest mismatches) are blocked by."""


class Verdict:
    """The decision reached before after_tool_call runs; status "go" means execute."""

    __slots__ = ("approval", "blocked_by", "kind", "kwargs", "params", "reason", "status")

    def __init__(
        self,
        status: str,
        params: dict[str, Any],
        kwargs: dict[str, Any] | None = None,
        kind: str | None = None,
        reason: str | None = None,
        blocked_by: str | None = None,
    ) -> None:
        self.status = status
        self.params = params
        self.kwargs = kwargs
        self.kind = kind
        self.reason = reason
        self.blocked_by = blocked_by
        self.approval: DecisionName | None = None
