"""What the policy says about one tool: the verdict and the steps that led to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

Effect = Literal["allow", "deny"]


class PolicyStep(NamedTuple):
    """One step of a decision: ``step`` (origin, tools, agent, sender, elevated), the config
    path of the rule it applied, its effect, and a human-readable detail."""

    step: str
    rule: str
    effect: Effect
    detail: str


@dataclass(frozen=True, slots=True)
class ToolVerdict:
    """The policy's verdict on one tool for one (sender, agent, origin).

    ``decided_by`` is the config path of the deciding rule: for a denied tool the first step
    that denied it, for an allowed tool the ``[tools]`` rule that granted it. ``reason`` is the
    block reason a call gets (None when allowed).
    """

    tool: str
    allowed: bool
    decided_by: str
    detail: str
    steps: tuple[PolicyStep, ...]

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
