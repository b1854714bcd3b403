"""The ``[plugins.loop_detection]`` defaults as plain records: what the plugin runs on when its
table is absent, without building the pydantic ``LoopDetectionConfig`` (whose fields take their
defaults from here, so the two cannot drift apart)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

DEFAULT_POLL_TOOLS = ("process", "command_status", "session_status")


class DetectorDefaults:
    """Every key of ``DetectorToggles`` with its default (documented there)."""

    __slots__ = ()

    global_circuit_breaker: bool = True
    known_poll_no_progress: bool = True
    ping_pong: bool = True
    generic_repeat: bool = True
    unknown_tool_repeat: bool = True


class LoopDetectionDefaults:
    """Every key of ``LoopDetectionConfig`` with its default (documented there).

    Plain read-only classes, not dataclasses: the generated methods of a dataclass cost about as
    much to make as the pydantic model (callgrind)."""

    __slots__ = ()

    warning_threshold: int = 10
    critical_threshold: int = 20
    global_circuit_breaker: int = 30
    unknown_tool_threshold: int = 10
    window: int = 30
    detectors: DetectorDefaults = DetectorDefaults()
    ignore_params: tuple[str, ...] = ()
    ignore_params_by_tool: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    poll_tools: tuple[str, ...] = DEFAULT_POLL_TOOLS
    max_sessions: int = 10_000


DEFAULTS = LoopDetectionDefaults()
TOGGLES = DEFAULTS.detectors
