"""The ``toolhooks`` console script (also ``python -m toolhooks``).

``main(argv=None)`` runs one command and returns its exit code: 0 ok, 1 problems found, 2 usage
error. The commands: ``demo``, ``plugins``, ``explain``, ``doctor``, ``logs``, ``replay`` and
``approvals``; ``toolhooks COMMAND --help`` describes each.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._app import build_parser, run


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``) and return the exit code."""
    return run(argv)


__all__ = ["build_parser", "main"]
