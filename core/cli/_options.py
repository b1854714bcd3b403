"""What every command shares on its command line: exit codes, ``--config``, ``--wide``, ``--json``.

Light on purpose: ``toolhooks --help`` imports it, and nothing here may pull in pydantic, pluggy
or the runtime (``_common`` holds what needs them).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..records._errors import ToolhooksError

Command = Callable[[argparse.Namespace], int]
"""What a subcommand's ``func`` default is: it gets the parsed args and returns the exit code."""

OK, PROBLEMS, USAGE = 0, 1, 2


class UsageError(ToolhooksError):
    """A command line that parsed but cannot be used (exit 2, like an argparse error)."""


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` after the subcommand too; it overrides a global ``--config``."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=argparse.SUPPRESS,
        help="the config file (default: $TOOLHOOKS_CONFIG, then toolhooks.toml, then "
        "[tool.toolhooks] in pyproject.toml)",
    )


def add_wide_option(parser: argparse.ArgumentParser) -> None:
    """``--wide`` after the subcommand too (``toolhooks --wide logs`` works as well)."""
    parser.add_argument(
        "--wide",
        action="store_true",
        default=argparse.SUPPRESS,
        help="do not fit lines to the terminal's width (piped output is never fitted)",
    )


def add_json_option(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")
