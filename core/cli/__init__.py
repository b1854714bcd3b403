"""The ``toolhooks`` console script (also ``python -m toolhooks``).

``main(argv=None)`` runs one command and returns its exit code: 0 ok, 1 problems found, 2 usage
error. The commands: ``demo``, ``plugins``, ``explain``, ``doctor``, ``logs``, ``test``, ``new``,
``replay``, ``whatif``, ``approvals``, ``hook``, ``agentd`` and ``serve``; ``toolhooks COMMAND
--help`` describes each (``toolhooks hook AGENT`` itself is answered by ``toolhooks._main``
without loading this module).

An add-on command (a ``toolhooks.commands`` entry point, such as ``toolhooks mcp``) builds on the
rest of this module's names: the exit codes ``OK`` and ``PROBLEMS``, ``UsageError`` (exit 2 with
its message), ``add_config_option`` / ``config_path`` for the shared ``--config``, and
``print_json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._app import build_parser, run
from ._options import OK, PROBLEMS, UsageError, add_config_option


def __getattr__(name: str) -> Any:
    # config_path and print_json live with the helpers that import the runtime; ``--help`` must
    # not pay for that (tests/cli/test_startup.py), so they are imported when first used.
    if name in ("config_path", "print_json"):
        from . import _common

        return getattr(_common, name)
    raise AttributeError(f"module 'toolhooks.cli' has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``) and return the exit code."""
    return run(argv)


__all__ = [
    "OK",
    "PROBLEMS",
    "UsageError",
    "add_config_option",
    "build_parser",
    "config_path",
    "main",
    "print_json",
]
