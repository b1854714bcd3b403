"""The ``event_log`` built-in: pipeline events to an append-only JSONL file.

The reader and the verifier (``read_events``, ``verify``, ...) are imported when first used
(PEP 562): a process that only writes the log does not build them (the entry point imports this
package; they were 15 M instructions of a cold start, callgrind); so is ``EventLogConfig``, which
a log with no ``[plugins.event_log]`` table never builds (see ``toolhooks.config._lazy``).
"""

from typing import TYPE_CHECKING

from ._chain import read_key
from ._plugin import EventLogPlugin
from ._writer import EventLogStats

if TYPE_CHECKING:
    from ._config import EventLogConfig
    from ._reader import log_files, read_events, unreadable
    from ._verify import Problem, Report, export, verify

_LAZY = {
    "EventLogConfig": "_config",
    "log_files": "_reader",
    "read_events": "_reader",
    "unreadable": "_reader",
    "Problem": "_verify",
    "Report": "_verify",
    "export": "_verify",
    "verify": "_verify",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
