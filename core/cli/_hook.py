"""``toolhooks hook AGENT``: answer one coding agent's hook event (stdin) in its own protocol.

The agent runs it around every tool call (``toolhooks hook install AGENT`` wires it). It reads
the event, runs it through the pipeline in this process and writes the agent's answer verbatim,
exiting with the code the agent reads. ``toolhooks hook install`` comes with the install
engine (``toolhooks.agents._install``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from pathlib import Path

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
    from ..agents._protocol import MAX_PAYLOAD_BYTES
    from ..agents._run import run_in_process

    limit = MAX_PAYLOAD_BYTES * 4  # the bridge refuses past the configured limit, with a reason
    raw = sys.stdin.buffer.read(limit + 1)
    given = getattr(args, "config", None)
    # No --config: the run discovers it, so a $TOOLHOOKS_CONFIG naming nothing is refused in
    # the agent's protocol (fail closed) instead of running with no policy at all.
    reply = run_in_process(args.agent, raw, config=Path(given) if given else None)
    # Verbatim, not through the command line's safe stream: the agent parses these bytes.
    for fd, text in ((1, reply.stdout), (2, reply.stderr)):
        if text:
            with contextlib.suppress(OSError):
                os.write(fd, text.encode("utf-8", "surrogatepass"))
    return reply.exit_code
