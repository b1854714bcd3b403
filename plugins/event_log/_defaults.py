"""The ``[plugins.event_log]`` defaults as a plain record: what the plugin runs on when its table
is absent, without building the pydantic ``EventLogConfig`` (whose fields take their defaults
from here, so the two cannot drift apart)."""

from __future__ import annotations

from typing import Literal

DEFAULT_PATH = ".toolhooks/events.jsonl"
CALL_END_EVENTS = ("tool.injected", "approval.requested")
"""With ``durability = "call"`` or ``"fsync"`` these events are written before they return: the
end of every call, and a request for approval before the call waits for it."""


class EventLogDefaults:
    """Every key of ``EventLogConfig`` with its default (documented there).

    A plain read-only class, not a dataclass: the generated methods of a dataclass cost about as
    much to make as the pydantic model (15 M instructions for result_budget's, callgrind)."""

    __slots__ = ()

    path: str = DEFAULT_PATH
    durability: Literal["interval", "call", "fsync"] = "interval"
    flush_interval_ms: int = 100
    max_queue_bytes: int = 4 * 1024 * 1024
    max_bytes: int = 50_000_000
    backup_count: int = 5
    events: tuple[str, ...] | None = None
    chain: bool = True
    key_file: str | None = None
    checkpoint_every: int = 1000
    max_line_bytes: int = 1_048_576


DEFAULTS = EventLogDefaults()
