"""The ``[plugins.loop_detection]`` configuration, validated with pydantic (unknown keys fail)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ._defaults import DEFAULT_POLL_TOOLS as DEFAULT_POLL_TOOLS
from ._defaults import DEFAULTS, TOGGLES

Threshold = Annotated[int, Field(strict=True, ge=1, le=1_000_000)]
Name = Annotated[str, Field(strict=True, min_length=1, max_length=256)]
Toggle = Annotated[bool, Field(strict=True)]


class DetectorToggles(BaseModel):
    """``[plugins.loop_detection.detectors]``: switch single detectors off (all on by default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    global_circuit_breaker: Toggle = TOGGLES.global_circuit_breaker
    """Blocks repeating calls once the session's no-progress streak reaches
    ``global_circuit_breaker``."""
    known_poll_no_progress: Toggle = TOGGLES.known_poll_no_progress
    """Judges calls to ``poll_tools`` by how often the same poll returned the same result."""
    ping_pong: Toggle = TOGGLES.ping_pong
    """Catches a strict alternation of two calls whose outcomes do not change."""
    generic_repeat: Toggle = TOGGLES.generic_repeat
    """Counts identical calls in the window; blocks only those whose result does not change."""
    unknown_tool_repeat: Toggle = TOGGLES.unknown_tool_repeat
    """Blocks calls in a row to a tool the runtime does not know."""


class LoopDetectionConfig(BaseModel):
    """Thresholds count calls, the current one included (see the plugin's documentation)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Field order matters: the cross-field validators below read the fields declared before them.
    warning_threshold: Threshold = DEFAULTS.warning_threshold
    """Count at which a repetition is reported to the model (once per bucket of this size)."""
    critical_threshold: Threshold = DEFAULTS.critical_threshold
    """Count at which a repetition that made no progress is blocked; > warning_threshold."""
    global_circuit_breaker: Threshold = DEFAULTS.global_circuit_breaker
    """Consecutive no-progress calls in a session after which repeating calls are blocked."""
    unknown_tool_threshold: Threshold = DEFAULTS.unknown_tool_threshold
    """Calls in a row to a tool the runtime does not know at which the next one is blocked."""
    window: Annotated[int, Field(strict=True, ge=2, le=10_000)] = DEFAULTS.window
    """Calls remembered per session; at least critical_threshold."""
    detectors: DetectorToggles = Field(default_factory=DetectorToggles)
    ignore_params: list[Name] = Field(default_factory=list)
    """Top-level param keys left out of every call's signature (volatile keys: ids, timestamps)."""
    ignore_params_by_tool: dict[Name, list[Name]] = Field(default_factory=dict)
    """Per tool name (``*`` wildcard allowed): more top-level keys to leave out of its signature."""
    poll_tools: list[Name] = Field(default_factory=lambda: list(DEFAULT_POLL_TOOLS))
    """Tool names (``*`` wildcard allowed) whose repeats are judged by the known-poll detector."""
    max_sessions: Annotated[int, Field(strict=True, ge=1, le=100_000_000)] = DEFAULTS.max_sessions
    """Sessions kept; the least recently used one is forgotten beyond this."""

    @field_validator("critical_threshold", mode="after")
    @classmethod
    def _critical_above_warning(cls, value: int, info: ValidationInfo) -> int:
        warning = info.data.get("warning_threshold")
        if warning is not None and value <= warning:
            raise ValueError(
                f"critical_threshold ({value}) must be greater than warning_threshold ({warning})"
            )
        return value

    @field_validator("window", mode="after")
    @classmethod
    def _window_holds_thresholds(cls, value: int, info: ValidationInfo) -> int:
        critical = info.data.get("critical_threshold")
        if critical is not None and value < critical:
            raise ValueError(
                f"window ({value}) must be at least critical_threshold ({critical}), "
                "or the window-based detectors could never block"
            )
        return value
