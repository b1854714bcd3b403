"""An exec call's shell analysis (``toolhooks.kit``) as facts a Cedar policy tests with set
operations: Cedar has no "for some element" over a set, so each fact is a flat set of strings that
``contains`` / ``containsAny`` answer, keyed by program where a fact belongs to one.

``context.exec``:

- ``programs``: every program the script runs, wrappers seen through and counted too
  (``sudo rm -rf x`` runs ``sudo`` and ``rm``), as basenames.
- ``subcommands``: ``"<program> <first argument>"`` for each command (``"git push"``).
- ``flags``: ``"<program> <flag>"`` and ``"<program> <first argument> <flag>"`` for every option
  (``-rf`` gives ``-r``, ``-f`` and ``-rf``, as ``[[rules]]`` read a single-dash word: it and
  each of its characters; ``--force=x`` gives ``--force``; nothing after ``--``): ``"rm -r"``,
  ``"git push --force"``. A program or first argument holding a space gives no joined fact.
- ``args``: every non-option argument, as written after quote removal.
- ``paths``: every path the commands touch, absolute (``..`` collapsed, ``~`` expanded, symlinks
  resolved); ``names``: the last part of each (``".env"``).
- ``hosts``: every host the commands name (URLs, ssh and scp targets, proxies).
- ``opaque``: the script cannot be seen through (``eval``, ``curl ... | sh``, a program name that
  is an expansion): what it runs is unknown. ``unknown``: some word is an expansion that could
  be any word (``rm -$X b``).

Every call has ``context.exec``; a call of another tool has empty sets there.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from typing import Any, Final

from toolhooks.kit import Command, analyse_argv, analyse_script, command_hosts, command_paths

EXEC_TOOLS: Final = frozenset({"exec", "bash"})
COMMAND_PARAMS: Final = ("command", "cmd", "commands", "argv", "script")
CWD_PARAMS: Final = ("cwd", "workdir", "working_directory", "directory", "dir_path")
FACTS: Final = ("programs", "subcommands", "flags", "args", "paths", "names", "hosts")


def empty() -> dict[str, Any]:
    facts: dict[str, Any] = {name: [] for name in FACTS}
    facts["opaque"] = False
    facts["unknown"] = False
    return facts


EMPTY: Final = empty()


def exec_facts(params: Mapping[str, Any], *, project: str, home: str) -> dict[str, Any]:
    """The facts of an exec call's command (see the module docstring)."""
    cwd = project
    for name in CWD_PARAMS:
        value = params.get(name)
        if isinstance(value, str) and value:
            cwd = os.path.normpath(os.path.join(project, os.path.expanduser(value)))
            break
    scripts: list[str] = []
    argvs: list[list[str]] = []
    opaque = False
    for name in COMMAND_PARAMS:
        value = params.get(name)
        if value in (None, "", [], ()):
            continue
        if isinstance(value, str):
            scripts.append(value)
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            if name == "commands":
                scripts.append("\n".join(value))
            else:
                argvs.append(list(value))
        else:
            opaque = True  # a command given as something no shell runs: cannot be seen through
    if not scripts and not argvs:
        facts = empty()
        facts["opaque"] = True  # an exec call whose command cannot be read
        return facts
    sets: dict[str, dict[str, None]] = {name: {} for name in FACTS}
    unknown = False
    folders: dict[str, str] = {}
    analysed = [analyse_script(text, cwd=cwd, home=home) for text in scripts]
    analysed += [analyse_argv(argv, cwd=cwd, home=home) for argv in argvs]
    for script in analysed:
        opaque = opaque or script.opaque is not None
        for command in script.commands:
            unknown = _command(command, sets, home, folders) or unknown
    facts = {name: list(found) for name, found in sets.items()}
    facts["opaque"] = opaque
    facts["unknown"] = unknown
    return facts


def command_text(params: Mapping[str, Any]) -> str | None:
    """The command an exec call runs, as one line (for reasons and examples)."""
    for name in COMMAND_PARAMS:
        value = params.get(name)
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return shlex.join(value)
    return None


def _command(
    command: Command, sets: dict[str, dict[str, None]], home: str, folders: dict[str, str]
) -> bool:
    """Adds one command's facts; True when one of its words cannot be known."""
    program = command.program
    unknown = program is None
    if program:
        sets["programs"][program] = None
    skip = set(command.option_values)
    first: str | None = None
    options: list[str] = []
    after_dashes = False
    for index, word in enumerate(command.argv[1:], start=1):
        text = word.text
        if text is None:
            unknown = True
            continue
        if index in skip:
            continue
        if not after_dashes and text == "--":
            after_dashes = True
            continue
        if not after_dashes and len(text) > 1 and text.startswith("-"):
            options.append(text)
            continue
        sets["args"][text] = None
        if first is None:
            first = text
    # A program or first argument holding a space would spell another command's fact
    # ("git push" -f is not git's push -f): such a word gives no joined fact.
    if program and not _spaced(program):
        if first is not None and _spaced(first):
            first = None
        if first is not None:
            sets["subcommands"][f"{program} {first}"] = None
        for option in options:
            for flag in _flags(option):
                sets["flags"][f"{program} {flag}"] = None
                if first is not None:
                    sets["flags"][f"{program} {first} {flag}"] = None
    for path in command_paths(command, home=home, folders=folders):
        sets["paths"][path] = None
        name = path.rstrip("/").rsplit("/", 1)[-1]
        if name:
            sets["names"][name] = None
    for host in command_hosts(command):
        sets["hosts"][host] = None
    return unknown


def _spaced(word: str) -> bool:
    return any(char.isspace() for char in word)


def _flags(option: str) -> list[str]:
    """The flags one option word holds, read as ``[[rules]]`` read them (so a Cedar policy and
    a rule decide alike, and ``rules export --cedar`` can say so): a long option up to ``=``;
    a single-dash word itself (up to ``=``) and each of its characters (``-f;`` holds ``-f``)."""
    if option.startswith("--"):
        return [option.split("=", 1)[0]]
    found = dict.fromkeys([option.split("=", 1)[0]])
    found.update(dict.fromkeys(f"-{char}" for char in option[1:]))
    return list(found)
