"""A pytest plugin for plugin and adapter authors: fresh runtimes, one-test registration, event
capture, and (in :mod:`toolhooks.testing.scenarios`) the scenario list every framework adapter runs.

Installed with toolhooks (entry point ``pytest11``), so these fixtures are available in any
test suite once toolhooks is installed::

    def test_blocks_rm(toolhooks_runtime, register_plugin, toolhooks_events):
        register_plugin(MyPlugin())
        outcome = toolhooks_runtime.call({"name": "exec", "params": {"command": "rm -rf /"}},
                                         execute=lambda params: "ran")
        assert outcome.status == "blocked"
        assert "tool.blocked" in toolhooks_events.names()

Policy test cases in ``*.cases.toml`` files are collected too, one test per ``[[case]]``
(see :mod:`toolhooks.testing._cases` for the format; ``toolhooks test`` runs the same files).
"""

from ._cases import Case, CaseResult, load_cases, run_case
from ._collect import pytest_collect_file
from ._fixtures import (
    EventRecorder,
    register_plugin,
    require,
    toolhooks_events,
    toolhooks_make_runtime,
    toolhooks_runtime,
)

__all__ = [
    "Case",
    "CaseResult",
    "EventRecorder",
    "load_cases",
    "pytest_collect_file",
    "register_plugin",
    "require",
    "run_case",
    "toolhooks_events",
    "toolhooks_make_runtime",
    "toolhooks_runtime",
]
