"""The ``event_log`` built-in: pipeline events to an append-only JSONL file."""

from ._config import EventLogConfig
from ._plugin import EventLogPlugin
from ._reader import log_files, read_events, unreadable
from ._writer import EventLogStats

__all__ = [
    "EventLogConfig",
    "EventLogPlugin",
    "EventLogStats",
    "log_files",
    "read_events",
    "unreadable",
]
