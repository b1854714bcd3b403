"""Unknown programs read both ways: a program the analysis does not know may run its arguments
(``gosu root rm -rf x``, ``docker run img rm -rf /``), so a command whose program is neither a
wrapper nor known to leave its arguments alone is also read as a wrapper of the rest, from each
word that is a program someone cares about (strictest wins).

Two places read this way. The walker, from each word that is a wrapper, a shell or an
interpreter (``gosu root bash -c 'rm -rf x'``: the script is parsed again, as for ``sudo``); and
:func:`readings`, from each word that is the program of one of the caller's rules (the analysis
does not know the rules: the rules plugin passes their programs).
"""

from __future__ import annotations

from collections.abc import Container, Iterable

from .._public import public
from ._interpreters import interpreter
from ._programs import PROGRAMS
from ._records import Command, new_command
from ._wrappers import SHELLS, WRAPPERS

LEAVE_ARGUMENTS_ALONE = frozenset(
    {
        # words and text
        "echo",
        "printf",
        "cat",
        "tac",
        "nl",
        "head",
        "tail",
        "wc",
        "sort",
        "uniq",
        "cut",
        "paste",
        "join",
        "tr",
        "fold",
        "fmt",
        "column",
        "rev",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "diff",
        "cmp",
        "comm",
        "jq",
        "yq",
        "base64",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "cksum",
        "xxd",
        "od",
        "hexdump",
        "strings",
        "less",
        "more",
        "tee",
        "man",
        "help",
        "info",
        "whatis",
        "apropos",
        # files
        "ls",
        "ll",
        "tree",
        "file",
        "stat",
        "du",
        "df",
        "touch",
        "mkdir",
        "rmdir",
        "rm",
        "cp",
        "mv",
        "ln",
        "chmod",
        "chown",
        "chgrp",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "mktemp",
        "install",
        "shred",
        "truncate",
        "unlink",
        "gzip",
        "gunzip",
        "zcat",
        "bzip2",
        "xz",
        "unxz",
        "zstd",
        "unzip",
        "7z",
        # the shell's own and the system's
        ":",
        "true",
        "false",
        "test",
        "[",
        "[[",
        "pwd",
        "cd",
        "pushd",
        "popd",
        "export",
        "unset",
        "set",
        "shift",
        "declare",
        "typeset",
        "local",
        "readonly",
        "read",
        "return",
        "exit",
        "wait",
        "jobs",
        "fg",
        "bg",
        "kill",
        "killall",
        "pkill",
        "pgrep",
        "ps",
        "top",
        "htop",
        "uname",
        "hostname",
        "id",
        "whoami",
        "groups",
        "date",
        "sleep",
        "which",
        "type",
        "whereis",
        "uptime",
        "free",
        "lsof",
        "history",
        "clear",
        "tput",
        "stty",
        "seq",
        "yes",
        "expr",
        "bc",
        "printenv",
        # package managers installing names, build and test tools reading files
        "apt",
        "apt-get",
        "apt-cache",
        "dpkg",
        "brew",
        "yum",
        "dnf",
        "apk",
        "pacman",
        "pip",
        "pip3",
        "pipx",
        "make",
        "gmake",
        "cmake",
        "ninja",
        "pytest",
        "ruff",
        "mypy",
        "black",
        "isort",
        "flake8",
        "pylint",
        "eslint",
        "prettier",
        "tsc",
    }
)
"""Programs known to leave their arguments alone: no argument of theirs is ever run as a
command (those that run one in an option are in the program tables, read there)."""


def reads_as_wrapper(program: str) -> bool:
    """Whether a command of ``program`` is also read as a wrapper of its later words: it is no
    wrapper (those are seen through), no shell or interpreter (their scripts are read), has no
    table (its facts say what it runs) and is not known to leave its arguments alone."""
    return (
        program not in LEAVE_ARGUMENTS_ALONE
        and program not in WRAPPERS
        and program not in PROGRAMS
        and program.rstrip("0123456789.-") not in SHELLS
        and interpreter(program) is None
    )


def readings(commands: Iterable[Command], programs: Container[str]) -> tuple[Command, ...]:
    """``commands``, each followed by its readings as a wrapper: for a command whose program
    :func:`reads_as_wrapper`, the rest of its argv from each later word (not the last, not an
    option) whose name is in ``programs`` (``gosu root rm -rf x`` is also ``rm -rf x``)."""
    out: list[Command] = []
    for command in commands:
        out.append(command)
        program = command.program
        argv = command.argv
        if not program or len(argv) < 3 or not reads_as_wrapper(program):
            continue
        for i in range(1, len(argv) - 1):
            text = argv[i].text
            if not text or text[0] == "-":
                continue
            name = text.rpartition("/")[2]
            if name not in programs:
                continue
            out.append(
                new_command(
                    name,
                    argv[i:],
                    command.redirects,
                    command.cwd,
                    (*command.via, f"{program} (read as a wrapper)"),
                    command.text,
                    tuple(v - i for v in command.option_values if v > i),
                    command.cwds,
                    command.assignments,
                    command.read_redirects,
                )
            )
    return tuple(out)


public("toolhooks.kit", readings, reads_as_wrapper)
