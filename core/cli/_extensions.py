"""Commands other distributions add to ``toolhooks`` (entry-point group ``toolhooks.commands``).

An entry point names a function ``add_parser(subparsers)`` that adds the subcommand named like
the entry point, exactly like the built-in command modules do:
``mcp = "toolhooks_mcp._cli:add_parser"``. The add-on is imported only when its command runs
(``toolhooks --help`` lists it from the entry point alone). A broken add-on costs one line on
stderr naming its distribution, when its command is used; the other commands never notice.
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from typing import Any

GROUP = "toolhooks.commands"


def extension_commands() -> dict[str, metadata.EntryPoint]:
    """The installed add-on commands by name; the entry points are read, nothing is imported."""
    found: dict[str, metadata.EntryPoint] = {}
    for entry_point in sorted(metadata.entry_points(group=GROUP), key=lambda ep: ep.name):
        found.setdefault(entry_point.name, entry_point)
    return found


def _label(entry_point: metadata.EntryPoint) -> str:
    dist = entry_point.dist
    return f"{dist.name} {dist.version}" if dist is not None else entry_point.value


def listed_help(entry_point: metadata.EntryPoint) -> str:
    """What ``toolhooks --help`` says of an add-on command without importing the add-on: its
    distribution's summary and name."""
    dist = entry_point.dist
    about = dist.metadata if dist is not None else None
    summary = about["Summary"].strip() if about is not None and "Summary" in about else ""
    return f"{summary} ({_label(entry_point)})" if summary else f"from {_label(entry_point)}"


def add_extension_command(subparsers: Any, entry_point: metadata.EntryPoint) -> bool:
    """Import one add-on and let it register; False, with one line on stderr, when it fails."""
    before = set(subparsers.choices)
    try:
        add_parser = entry_point.load()
        add_parser(subparsers)
    except Exception as exc:
        for name in set(subparsers.choices) - before:  # a half-registered command goes
            _forget(subparsers, name)
        reason = " ".join(str(exc).split()) or type(exc).__name__
        print(
            f"toolhooks: the {entry_point.name!r} commands of {_label(entry_point)} failed to "
            f"load ({type(exc).__name__}: {reason}); other commands work",
            file=sys.stderr,
        )
        return False
    return True


def _forget(subparsers: Any, name: str) -> None:
    subparsers.choices.pop(name, None)
    subparsers._choices_actions[:] = [
        action
        for action in subparsers._choices_actions
        if not (isinstance(action, argparse.Action) and action.dest == name)
    ]
