"""Interpreters: where one takes its program from (inline code, a file, or its stdin)."""

from __future__ import annotations

import functools
import re

from ._options import Options, read_options
from ._records import Word
from ._wrappers import SHELLS

_VERSIONED = re.compile(r"([a-z]+?)[0-9.]*(?:-[0-9.]+)?\Z")


class _Kind:
    __slots__ = ("inline", "module", "spec")

    def __init__(
        self, spec: Options, inline: frozenset[str], module: frozenset[str] = frozenset()
    ) -> None:
        self.spec = spec
        self.inline = inline
        self.module = module


_SHELL = _Kind(
    Options(
        short_values="oO",
        long_values=frozenset({"rcfile", "init-file", "command"}),
        long_flags=frozenset(
            {
                "login",
                "norc",
                "noprofile",
                "posix",
                "restricted",
                "verbose",
                "version",
                "help",
                "debugger",
                "noediting",
                "interactive",
                "no-execute",
                "private",
                "no-config",
                "profile",
            }
        ),
        plus=True,
    ),
    inline=frozenset({"-c", "--command"}),
)
_PYTHON = _Kind(Options(short_values="cmWXQ"), inline=frozenset({"-c"}), module=frozenset({"-m"}))
_PERL = _Kind(Options(short_values="eEIMm"), inline=frozenset({"-e", "-E"}))
_RUBY = _Kind(Options(short_values="eIrCEFx"), inline=frozenset({"-e"}))
_NODE = _Kind(
    Options(
        short_values="eprC",
        long_values=frozenset(
            {"eval", "print", "require", "import", "loader", "input-type", "conditions"}
        ),
        long_flags=frozenset(
            {
                "check",
                "interactive",
                "inspect",
                "inspect-brk",
                "trace-warnings",
                "no-warnings",
                "experimental-modules",
                "watch",
                "test",
                "version",
                "help",
            }
        ),
    ),
    inline=frozenset({"-e", "-p", "--eval", "--print"}),
)
_OTHER = _Kind(Options(short_values="ecfr"), inline=frozenset({"-e", "-c", "-r"}))

INTERPRETERS: dict[str, _Kind] = {
    **dict.fromkeys(SHELLS, _SHELL),
    "python": _PYTHON,
    "pypy": _PYTHON,
    "perl": _PERL,
    "ruby": _RUBY,
    "irb": _RUBY,
    "node": _NODE,
    "nodejs": _NODE,
    "bun": _NODE,
    "deno": _NODE,
    "php": _OTHER,
    "lua": _OTHER,
    "luajit": _OTHER,
    "tclsh": _OTHER,
    "wish": _OTHER,
    "rscript": _OTHER,
    "r": _OTHER,
    "pwsh": _OTHER,
    "powershell": _OTHER,
    "osascript": _OTHER,
    "julia": _OTHER,
    "guile": _OTHER,
    "racket": _OTHER,
    "gawk": _OTHER,
    "jshell": _OTHER,
    "groovy": _OTHER,
    "scala": _OTHER,
    "elixir": _OTHER,
    "erl": _OTHER,
    "swipl": _OTHER,
    "gdb": _OTHER,
}
"""Programs that run a program they read: the shells, and the common language interpreters."""

_SUBCOMMANDS = frozenset({"run", "x", "exec"})


@functools.lru_cache(maxsize=512)
def interpreter(name: str) -> str | None:
    """The interpreter ``name`` is (``python3.12`` is ``python``), or None."""
    lowered = name.lower()
    if lowered in INTERPRETERS:
        return lowered
    match = _VERSIONED.match(lowered)
    if match and match.group(1) in INTERPRETERS:
        return match.group(1)
    return None


def program_source(kind: str, argv: tuple[Word, ...]) -> str | Word:
    """Where the interpreter gets its program: "inline", "stdin", or the operand word."""
    spec = INTERPRETERS[kind]
    read = read_options(argv, 1, spec.spec)
    if any(option in spec.inline for option, _ in read.seen):
        return "inline"
    if any(option in spec.module for option, _ in read.seen):
        return "inline"
    for option, value in read.seen:
        if option in ("--rcfile", "--init-file") and (value is None or value.text is None):
            return value or Word(text=None, source=option)
    if kind in SHELLS and any(o == "-s" for o, _ in read.seen):
        return "stdin"
    index = read.index
    if kind in ("deno", "bun") and index < len(argv) and argv[index].text in _SUBCOMMANDS:
        index += 1
    if read.problem or index >= len(argv):
        return "stdin" if not read.problem else argv[min(index, len(argv) - 1)]
    operand = argv[index]
    if operand.text in ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"):
        return "stdin"
    return operand
