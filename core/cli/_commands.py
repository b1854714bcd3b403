"""The table of ``toolhooks`` commands: each name, the module that implements it, its help line.

``toolhooks --help`` (and ``--version``) is answered from this table alone. A command's module,
and what it imports (pydantic, pluggy, the runtime), is imported only when that command runs:
importing every command up front made ``--help`` several times slower than Python's own start
(BENCHMARKS.md, choices made for speed).

A module named here has ``add_parser(subparsers)``, which adds the command (``help=`` from
:func:`help_of`) with ``func`` set to a function taking the parsed args and returning the exit
code. Commands from other distributions come from the ``toolhooks.commands`` entry-point group
instead (see ``_extensions``).
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "init": (
        "toolhooks.cli._init",
        "write toolhooks.toml from a starter policy, check it, optionally wire an agent's hook",
    ),
    "demo": (
        "toolhooks.cli._demo",
        "run a bundled agent transcript through the real pipeline and show every decision",
    ),
    "plugins": (
        "toolhooks.cli._plugins",
        "list the plugins: name, version, distribution, source, priority, hooks, tools, mode",
    ),
    "explain": (
        "toolhooks.cli._explain",
        "the effective tool policy for a sender / agent / origin, and a tool's handler chain",
    ),
    "doctor": (
        "toolhooks.cli._doctor",
        "check the config, every plugin, priority ties, folders and the approval store",
    ),
    "logs": (
        "toolhooks.cli._logs",
        "read the JSONL event log (filter by trace, call, session, time, event; --follow)",
    ),
    "test": (
        "toolhooks.cli._cases",
        "run policy test cases (*.cases.toml): each call and the decision it must get",
    ),
    "new": (
        "toolhooks.cli._new",
        "start a plugin package: entry point, example hooks, tests, policy cases, CI",
    ),
    "rules": (
        "toolhooks.cli._rules",
        "import an agent's own permission rules as [[rules]]; export [[rules]] as Cedar",
    ),
    "replay": (
        "toolhooks.cli._replay",
        "feed a recorded transcript (JSONL) through the pipeline and print every decision",
    ),
    "whatif": (
        "toolhooks.cli._whatif",
        "replay an event log's calls under another config and show every decision that changes",
    ),
    "approvals": (
        "toolhooks.cli._approvals",
        "list and decide approvals, list and revoke allow-always grants",
    ),
    "hook": (
        "toolhooks.cli._hook",
        "answer a coding agent's hook event (Claude Code, Codex, Gemini, ...); install the hooks",
    ),
    "agentd": (
        "toolhooks.cli._agentd",
        "the daemon that answers coding agents' hooks in milliseconds (start, --status, --stop)",
    ),
    "serve": (
        "toolhooks.cli._serve",
        "the approvals desk: a web page to decide, edit and watch tool calls (toolhooks[web])",
    ),
}
"""name -> (module, one-line help), in the order ``toolhooks --help`` lists them."""


def help_of(name: str) -> str:
    """The one-line help of the built-in command ``name`` (what ``toolhooks --help`` shows)."""
    return COMMANDS[name][1]
