"""The ``toolhooks`` command line: argparse, the subcommands, and exit codes scripts rely on.

Exit codes: 0 ok, 1 problems found (a doctor error, an invalid config, a plugin that fails to
load, a missing log, a replay line that cannot be read), 2 usage error (argparse's own code).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
from collections.abc import Collection, Sequence
from typing import Any, NoReturn

from ..records._errors import ConfigError, PluginLoadError, PluginValidationError, ToolhooksError
from ._commands import COMMANDS
from ._options import (
    OK,
    PROBLEMS,
    USAGE,
    Command,
    UsageError,
    add_config_option,
    add_wide_option,
)
from ._output import SafeStream

PROG = "toolhooks"
DESCRIPTION = """\
A plugin pipeline between an AI agent's model and its tools.

Every listing command takes --json. Exit codes: 0 ok, 1 problems found, 2 usage error."""
EPILOG = "Start with `toolhooks demo`; `toolhooks doctor` checks an installation."


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("toolhooks")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


class Parser(argparse.ArgumentParser):
    """argparse, plus "did you mean" for a mistyped option or command (``--folow``)."""

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> argparse.Namespace:
        parsed: argparse.Namespace
        extras: list[str]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras and not getattr(parsed, "_listed", None):  # a listed command is parsed again
            sub = self._subparser(parsed)
            hints = [_hint(extra, _options(sub, self)) for extra in extras]
            message = f"unrecognized arguments: {' '.join(extras)}"
            shown = [hint for hint in hints if hint]
            if shown:
                message += f" ({'; '.join(shown)})"
            (sub or self).error(message)
        return parsed

    def _subparser(self, parsed: argparse.Namespace) -> argparse.ArgumentParser | None:
        command = getattr(parsed, "command", None)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                found: argparse.ArgumentParser = action.choices[command]
                return found
        return None

    def error(self, message: str) -> NoReturn:
        match = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if match:
            import difflib

            choices = re.findall(r"'([^']*)'", match.group(2))
            close = difflib.get_close_matches(match.group(1), choices, n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {close[0]!r}?"
        super().error(message)


def _options(*parsers: argparse.ArgumentParser | None) -> list[str]:
    return [
        option
        for parser in parsers
        if parser is not None
        for option in parser._option_string_actions
        if option.startswith("--")
    ]


def _hint(extra: str, options: list[str]) -> str | None:
    """``did you mean --follow?`` for ``--folow`` (or ``--folow=x``), else None."""
    if not extra.startswith("-"):
        return None
    typed = extra.split("=", 1)[0]
    if not typed.startswith("--"):
        typed = "--" + typed.lstrip("-")
    import difflib

    close = difflib.get_close_matches(typed, options, n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else None


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        help: str = "show the version and exit",
    ) -> None:
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``toolhooks`` parser; ``load``: only these commands get their real parser.

    Every other command is listed with its help line alone, its module not imported (so
    ``toolhooks --help`` needs neither pydantic nor the runtime). ``None`` loads every command,
    add-ons included: the whole command line, for documentation and tests.
    """
    parser = Parser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="the config file (default: $TOOLHOOKS_CONFIG, then toolhooks.toml, then "
        "[tool.toolhooks] in pyproject.toml; none means the defaults)",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help="do not fit tables and lines to the terminal's width (piped output is never fitted)",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for name, (module, help) in COMMANDS.items():
        if load is None or name in load:
            importlib.import_module(module).add_parser(subparsers)
        else:
            _listed(subparsers, name, help)
    from ._extensions import add_extension_command, extension_commands, listed_help

    for name, entry_point in extension_commands().items():
        if name in subparsers.choices:
            continue  # a built-in command's name: the built-in wins
        if load is None or name in load:
            if not add_extension_command(subparsers, entry_point) and load is not None:
                _listed(subparsers, name, listed_help(entry_point), broken=True)
        else:
            _listed(subparsers, name, listed_help(entry_point))
    for command in subparsers.choices.values():
        add_config_option_if_missing(command)
        add_wide_option_if_missing(command)
    return parser


def _listed(subparsers: Any, name: str, help: str, broken: bool = False) -> None:
    """A command shown in ``toolhooks --help`` whose module is not loaded (see ``_run``)."""
    stub = subparsers.add_parser(name, help=help, add_help=False)
    stub.set_defaults(_listed=name, _broken=broken)


def add_config_option_if_missing(parser: argparse.ArgumentParser) -> None:
    if "--config" not in parser._option_string_actions:
        add_config_option(parser)


def add_wide_option_if_missing(parser: argparse.ArgumentParser) -> None:
    """``--wide`` on ``parser`` and on each of its own subcommands (``approvals list --wide``)."""
    if "--wide" not in parser._option_string_actions:
        add_wide_option(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for nested in action.choices.values():
                add_wide_option_if_missing(nested)


def _safe_streams() -> None:
    """Never die on a character the terminal's encoding lacks: replace it instead."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure):
            with contextlib.suppress(ValueError, OSError):  # a closed or odd stream
                reconfigure(errors="replace")


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the command, return its exit code.

    Everything the command prints goes through :class:`SafeStream`: no control character or
    escape sequence from caller-controlled text reaches the terminal.
    """
    _safe_streams()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = SafeStream(stdout)
    sys.stderr = SafeStream(stderr)
    try:
        return _run(argv)
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout, sys.stderr = stdout, stderr


def _command_name(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option or --config's value."""
    words = iter(argv)
    for word in words:
        if word == "--":
            return next(words, None)
        if not word.startswith("-"):
            return word
        if "=" not in word and len(word) > 2 and "--config".startswith(word):
            next(words, None)  # --config FILE (or an abbreviation argparse accepts)
    return None


def _run(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    name = _command_name(argv)
    parser = build_parser(load=() if name is None else (name,))
    try:
        args = parser.parse_args(argv)
        if getattr(args, "_broken", False):
            return PROBLEMS  # an add-on that failed to load: its one line is on stderr
        if getattr(args, "_listed", None):
            # The command line named its command in a way _command_name did not see: load it.
            parser = build_parser(load=(args._listed,))
            args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else USAGE
    if getattr(args, "wide", False) and isinstance(sys.stdout, SafeStream):
        sys.stdout.width = None  # --wide: every line whole, as when piped
    command: Command | None = getattr(args, "func", None)  # every command sets func (add-ons too)
    if command is None:
        parser.print_help(sys.stderr)
        return USAGE
    try:
        return command(args)
    except UsageError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return USAGE
    except (ConfigError, PluginLoadError, PluginValidationError, ToolhooksError) as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        if isinstance(exc, (PluginLoadError, PluginValidationError)):
            print(
                f"{PROG}: run `toolhooks doctor` for every check and how to fix it", file=sys.stderr
            )
        return PROBLEMS
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`toolhooks logs | head`): stop quietly, like other tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
