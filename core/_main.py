"""The ``toolhooks`` console script: ``toolhooks hook AGENT`` straight to the hook client, every
other command line to ``toolhooks.cli``.

Stdlib only. A coding agent runs ``toolhooks hook AGENT`` around each tool call and waits for
it, so that path must cost little more than the interpreter's start: the hook client
(``toolhooks.agents._client``) imports neither the command line (argparse, the command table)
nor pydantic, pluggy or the runtime; the daemon it talks to holds those. ``toolhooks hook
install``, ``toolhooks hook AGENT --help`` and any other command line go to ``toolhooks.cli``.
"""

from __future__ import annotations

import sys

AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot", "windsurf", "cline")
"""The agents ``toolhooks hook`` answers (``toolhooks.agents._protocol.PROTOCOLS``' keys; a test
keeps the two equal without this module importing that one)."""
HELP = frozenset({"-h", "--help"})


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) >= 2 and args[0] == "hook" and args[1] in AGENTS and not HELP & set(args):
        from .agents._client import main as hook

        return hook(args[1], args[2:])
    from .cli import main as command_line

    return command_line(args)
