"""The ``event_log`` built-in: pipeline events to an append-only JSONL file.

The reader and the verifier (``read_events``, ``verify``, ...) are imported when first used
(PEP 562): a process that only writes the log does not build them (the entry point imports this
package; they were 15 M instructions of a cold start, callgrind); so is ``EventLogConfig``, which
a log with no ``[plugins.event_log]`` table never builds (see :class:`toolhooks.kit.LazyConfig`).
"""

from typing import TYPE_CHECKING

from toolhooks.kit import lazy_exports

from ._chain import read_key
from ._plugin import EventLogPlugin

if TYPE_CHECKING:
    from ._config import EventLogConfig
    from ._export import export
    from ._reader import log_files, read_events, unreadable
    from ._stats import EventLogStats
    from ._verify import Problem, Report, verify

_LAZY = {
    "EventLogConfig": "._config",
    "EventLogStats": "._stats",
    "log_files": "._reader",
    "read_events": "._reader",
    "unreadable": "._reader",
    "Problem": "._verify",
    "Report": "._verify",
    "export": "._export",
    "verify": "._verify",
}


__getattr__ = lazy_exports(__name__, _LAZY)


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
