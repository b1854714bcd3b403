"""The ``[plugins.event_log]`` configuration."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_PATH = ".toolhooks/events.jsonl"
DEFAULT_FLUSH_ON = ("tool.injected", "approval.requested")


def _check_names(values: list[str], key: str) -> list[str]:
    for value in values:
        if not value.strip():
            raise ValueError(f"{key} entries must be non-empty event names or patterns")
    return values


class EventLogConfig(BaseModel):
    """Where the JSONL log goes, when it is flushed and rotated, and which events it keeps."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(default=DEFAULT_PATH, min_length=1)
    """The log file; relative paths are relative to the working directory at construction; its
    folder is created on the first write."""
    max_bytes: int = Field(default=50_000_000, ge=0)
    """Rotate when a flush would take the file past this size; 0 never rotates."""
    backup_count: int = Field(default=5, ge=0, le=1000)
    """Rotated files kept (``events.jsonl.1`` is the newest); 0 discards the old file."""
    fsync: bool = False
    """``os.fsync`` after every flush (durable against power loss; costs milliseconds)."""
    events: list[str] | None = None
    """Allow-list of event names (``*`` wildcard, e.g. ``"tool.*"``); None keeps every event."""
    flush_on: list[str] = Field(default_factory=lambda: list(DEFAULT_FLUSH_ON))
    """Events after which the buffer is written at once (one ``os.write``).

    ``[]`` leaves writing to ``buffer_bytes``, the background flush and close: one write less per
    call (throughput), but a finished call's events reach the file up to ``flush_interval_s``
    later.
    """
    flush_interval_s: float = Field(default=0.5, ge=0, le=3600)
    """A background thread writes buffered events at this period; 0 disables it."""
    buffer_bytes: int = Field(default=65_536, ge=0, le=64 * 1024 * 1024)
    """Write as soon as this many bytes are buffered; 0 writes every event on its own."""
    max_line_bytes: int = Field(default=1_048_576, ge=1024)
    """A longer event is re-encoded with shortened values and ``"_truncated": true``."""

    @field_validator("events")
    @classmethod
    def _check_events(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else _check_names(value, "events")

    @field_validator("flush_on")
    @classmethod
    def _check_flush_on(cls, value: list[str]) -> list[str]:
        return _check_names(value, "flush_on")

    @field_validator("flush_interval_s")
    @classmethod
    def _check_interval(cls, value: float) -> float:
        if value != value:
            raise ValueError("flush_interval_s must be a number")
        return value
