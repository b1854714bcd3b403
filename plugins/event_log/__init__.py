"""The ``event_log`` built-in: pipeline events to an append-only JSONL file."""

from ._chain import read_key
from ._config import EventLogConfig
from ._plugin import EventLogPlugin
from ._reader import log_files, read_events, unreadable
from ._verify import Problem, Report, export, verify
from ._writer import EventLogStats

__all__ = [
    "EventLogConfig",
    "EventLogPlugin",
    "EventLogStats",
    "Problem",
    "Report",
    "export",
    "log_files",
    "read_events",
    "read_key",
    "unreadable",
    "verify",
]
