"""The ``[plugins.event_log]`` configuration."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._defaults import CALL_END_EVENTS as CALL_END_EVENTS
from ._defaults import DEFAULT_PATH as DEFAULT_PATH
from ._defaults import DEFAULTS

_REPLACED = {
    "fsync": 'durability = "fsync"',
    "flush_on": 'durability = "call" (written when each call ends)',
    "flush_interval_s": "flush_interval_ms",
    "buffer_bytes": "max_queue_bytes",
}


def _check_names(values: list[str], key: str) -> list[str]:
    for value in values:
        if not value.strip():
            raise ValueError(f"{key} entries must be non-empty event names or patterns")
    return values


class EventLogConfig(BaseModel):
    """Where the JSONL log goes, when lines reach it, how it is rotated, which events it keeps."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(default=DEFAULTS.path, min_length=1)
    """The log file; relative paths are relative to the working directory at construction; its
    folder is created on the first write."""
    durability: Literal["interval", "call", "fsync"] = DEFAULTS.durability
    """When a finished call's lines are on disk.

    ``"interval"``: a writer thread encodes and writes them within ``flush_interval_ms`` (the
    caller only queues the events). ``"call"``: they are written (in the OS page cache, safe from a crash
    of the process) before ``call`` returns. ``"fsync"``: as ``"call"``, then ``os.fsync`` (safe
    from a power loss; costs milliseconds).
    """
    flush_interval_ms: int = Field(default=DEFAULTS.flush_interval_ms, ge=0, le=3_600_000)
    """The writer thread writes queued lines at this period; 0 (only with ``"call"`` or
    ``"fsync"``) runs no writer thread: lines are written when calls end, when the queue is full
    and at close."""
    max_queue_bytes: int = Field(default=DEFAULTS.max_queue_bytes, ge=0, le=1024 * 1024 * 1024)
    """When about this much is queued (events are sized by the average line written so far),
    the caller writes the queue itself (it waits, nothing is dropped); 0 writes every event as
    it comes."""
    max_bytes: int = Field(default=DEFAULTS.max_bytes, ge=0)
    """Rotate when a write would take the file past this size; 0 never rotates."""
    backup_count: int = Field(default=DEFAULTS.backup_count, ge=0, le=1000)
    """Rotated files kept (``events.jsonl.1`` is the newest); 0 discards the old file."""
    events: list[str] | None = None
    """Allow-list of event names (``*`` wildcard, e.g. ``"tool.*"``); None keeps every event."""
    chain: bool = DEFAULTS.chain
    """Hash-chain every line (``writer``, ``seq``, ``prev``, ``hash``) so that ``toolhooks logs
    verify`` finds an edited, deleted, inserted or reordered line; see RELIABILITY.md for what
    the chain proves and what it does not."""
    key_file: str | None = DEFAULTS.key_file
    """A file holding a secret key (at least 16 bytes; ``$TOOLHOOKS_LOG_KEY_FILE`` when unset):
    checkpoints then carry an HMAC over the chain head, so a writer of the log who cannot read
    the key cannot rebuild a chain that verifies. Keep it where the log's writers cannot."""
    checkpoint_every: int = Field(default=DEFAULTS.checkpoint_every, ge=1, le=10_000_000)
    """With a key, a checkpoint after exactly this many lines (and first in each file a writer
    writes to, and at every close); the checkpoints record it, so ``verify`` needs no config."""
    max_line_bytes: int = Field(default=DEFAULTS.max_line_bytes, ge=1024)
    """A longer event is re-encoded with shortened values and ``"_truncated": true``."""

    @model_validator(mode="before")
    @classmethod
    def _replaced_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key, instead in _REPLACED.items():
                if key in data:
                    raise ValueError(f"{key} was replaced by {instead}")
        return data

    @model_validator(mode="after")
    def _interval_needs_a_writer(self) -> EventLogConfig:
        if self.durability == "interval" and self.flush_interval_ms == 0:
            raise ValueError('durability = "interval" needs flush_interval_ms of at least 1')
        return self

    @field_validator("events")
    @classmethod
    def _check_events(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else _check_names(value, "events")
