"""Commands other distributions add to ``toolhooks`` (entry-point group ``toolhooks.commands``).

An entry point names a function ``add_parser(subparsers)`` that adds one or more subcommands,
exactly like the built-in command modules do: ``mcp = "toolhooks_mcp._cli:add_parser"``. A
broken add-on costs one line on stderr naming its distribution; the other commands still work.
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from typing import Any

GROUP = "toolhooks.commands"


def add_extension_commands(subparsers: Any) -> None:
    """Let every installed add-on register its commands on ``subparsers``."""
    for entry_point in sorted(metadata.entry_points(group=GROUP), key=lambda ep: ep.name):
        dist = entry_point.dist
        label = f"{dist.name} {dist.version}" if dist is not None else entry_point.value
        before = set(subparsers.choices)
        try:
            add_parser = entry_point.load()
            add_parser(subparsers)
        except Exception as exc:
            for name in set(subparsers.choices) - before:  # a half-registered command goes
                _forget(subparsers, name)
            reason = " ".join(str(exc).split()) or type(exc).__name__
            print(
                f"toolhooks: the {entry_point.name!r} commands of {label} failed to load "
                f"({type(exc).__name__}: {reason}); other commands work",
                file=sys.stderr,
            )


def _forget(subparsers: Any, name: str) -> None:
    subparsers.choices.pop(name, None)
    subparsers._choices_actions[:] = [
        action
        for action in subparsers._choices_actions
        if not (isinstance(action, argparse.Action) and action.dest == name)
    ]
