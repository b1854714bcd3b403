"""The ``[plugins.call_limits]`` configuration: a list of limits, validated with pydantic."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._defaults import DEFAULTS
from ._rate import MAX_RATE_CALLS as MAX_RATE_CALLS
from ._rate import parse_rate

Scope = Literal["run", "session", "sender", "global"]
ToolEntry = Annotated[str, Field(strict=True, min_length=1, max_length=256)]


class LimitConfig(BaseModel):
    """One ``[[plugins.call_limits.limits]]`` entry: exactly one of ``max_calls`` or ``rate``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(strict=True, min_length=1, max_length=80)] | None = None
    """Shown in the blocked reason; default: built from tools, amount and scope."""
    tools: list[ToolEntry] = Field(default_factory=lambda: ["*"], min_length=1)
    """Tool names, ``*`` patterns and ``group:<name>`` (the policy's groups, [tools.groups] too)."""
    scope: Scope = "session"
    """Whose calls are counted together: the run, the session, the sender, or everyone."""
    max_calls: Annotated[int, Field(strict=True, ge=1, le=100_000_000)] | None = None
    """A count: at most this many calls in the scope."""
    rate: Annotated[str, Field(strict=True)] | None = None
    """A rate: ``"5 per minute"``, over a sliding window."""

    @field_validator("rate", mode="after")
    @classmethod
    def _rate_parses(cls, rate: str | None) -> str | None:
        if rate is not None:
            parse_rate(rate)
        return rate

    @model_validator(mode="after")
    def _one_amount(self) -> LimitConfig:
        if (self.max_calls is None) == (self.rate is None):
            raise ValueError("a limit needs exactly one of max_calls or rate")
        return self

    @property
    def label(self) -> str:
        if self.name is not None:
            return self.name
        amount = f"{self.max_calls} calls" if self.rate is None else self.rate
        return f"{', '.join(self.tools)}: {amount} per {self.scope}"


class CallLimitsConfig(BaseModel):
    """``[plugins.call_limits]``: nothing is limited until a limit is listed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limits: list[LimitConfig] = Field(default_factory=list)
    """The limits, each a ``[[plugins.call_limits.limits]]`` table."""
    on_state_error: Literal["block", "allow"] = DEFAULTS.on_state_error
    """Shared state unreachable: block the call (fail closed, default) or let it run uncounted."""
    count_ttl_s: Annotated[int, Field(strict=True, ge=60, le=366 * 86_400)] = DEFAULTS.count_ttl_s
    """A count is forgotten after this long without an admitted call (bounds the stored keys)."""
    max_keys: Annotated[int, Field(strict=True, ge=1, le=100_000_000)] = DEFAULTS.max_keys
    """Embedded state: counters kept; the least recently used is forgotten beyond this."""

    @field_validator("limits", mode="after")
    @classmethod
    def _unique_names(cls, limits: list[LimitConfig]) -> list[LimitConfig]:
        seen: set[str] = set()
        for limit in limits:
            if limit.label in seen:
                raise ValueError(f"two limits are named {limit.label!r}: give each its own name")
            seen.add(limit.label)
        return limits
