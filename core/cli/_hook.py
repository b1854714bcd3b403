"""``toolhooks hook AGENT``: answer one coding agent's hook event (stdin) in its own protocol.

The agent runs it around every tool call (``toolhooks hook install AGENT`` wires it), through
the console script's dispatcher (``toolhooks._main``), which goes straight to the hook client.
Reached through the command line instead, it is the client's ``--no-daemon``: the event runs in
a child process under the hook's deadline (``toolhooks.agents._client``), and the agent's answer
is written verbatim, exiting with the code the agent reads. ``toolhooks hook install`` comes
with the install engine (``toolhooks.agents._install``).
"""

from __future__ import annotations

import argparse
import importlib

from ._commands import help_of
from ._options import add_config_option

AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot", "windsurf", "cline")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook",
        help=help_of("hook"),
        description="Answer one coding agent's hook event, read on stdin, in the agent's own "
        "protocol: toolhooks' policy, plugins, approvals and audit log in front of the agent's "
        "tools.",
    )
    actions = parser.add_subparsers(title="agents", dest="agent", metavar="AGENT")
    for agent in AGENTS:
        one = actions.add_parser(agent, help=f"answer one {agent} hook event read on stdin")
        add_config_option(one)
        one.set_defaults(func=answer)
    try:
        install = importlib.import_module("toolhooks.agents._install")
    except ImportError:  # the install engine is not built yet
        return
    install.add_install_parser(actions)


def answer(args: argparse.Namespace) -> int:
    from ..agents._client import main

    given = getattr(args, "config", None)
    # No --config: the client discovers it, so a $TOOLHOOKS_CONFIG naming nothing is refused in
    # the agent's protocol (fail closed) instead of running with no policy at all.
    return main(args.agent, ["--no-daemon", *(["--config", given] if given else [])])
