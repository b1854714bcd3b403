"""What the policy says about one tool: the verdict and the steps that led to it."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from toolhooks.kit import Record

Effect = Literal["allow", "deny"]


class PolicyStep(NamedTuple):
    """One step of a decision: ``step`` (origin, tools, agent, sender, elevated), the config
    path of the rule it applied, its effect, and a human-readable detail."""

    step: str
    rule: str
    effect: Effect
    detail: str


class ToolVerdict(Record):
    """The policy's verdict on one tool for one (sender, agent, origin).

    ``decided_by`` is the config path of the deciding rule: for a denied tool the first step
    that denied it, for an allowed tool the ``[tools]`` rule that granted it. ``reason`` is the
    block reason a call gets (None when allowed).
    """

    __slots__ = ("allowed", "decided_by", "detail", "steps", "tool")

    tool: str
    allowed: bool
    decided_by: str
    detail: str
    steps: tuple[PolicyStep, ...]

    def __init__(
        self,
        *,
        tool: str,
        allowed: bool,
        decided_by: str,
        detail: str,
        steps: tuple[PolicyStep, ...],
    ) -> None:
        object.__setattr__(self, "tool", tool)
        object.__setattr__(self, "allowed", allowed)
        object.__setattr__(self, "decided_by", decided_by)
        object.__setattr__(self, "detail", detail)
        object.__setattr__(self, "steps", steps)

    @property
    def reason(self) -> str | None:
        if self.allowed:
            return None
        return f"Tool '{self.tool}' denied by policy: {self.decided_by} ({self.detail})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``toolhooks explain --json`` prints)."""
        return {
            "tool": self.tool,
            "allowed": self.allowed,
            "decided_by": self.decided_by,
            "detail": self.detail,
            "reason": self.reason,
            "steps": [step._asdict() for step in self.steps],
        }
