"""``toolhooks approvals list | show | approve | deny | vote | grants | revoke``: decide from a terminal.

The commands work on the approval store the config selects, the same one the agent uses:
``[state] url`` (or ``$TOOLHOOKS_STATE_URL``): the shared Redis store; otherwise the queue
route's SQLite file (``[approvals] db``, or ``--db``). An approval is named by its short id (the
first characters of its id, as ``list`` and the agent's stderr line show it) or any prefix that
matches one approval; a prefix that matches several is an error that lists them.
Exit codes: 0 ok, 1 for an unknown, ambiguous, already decided or expired id, a decision the
request does not allow, or a store that cannot be read (one line naming it), 2 for bad usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..stores._contract import STATES, ApprovalStore
from ._approval_decisions import cmd_approve, cmd_deny, cmd_revoke
from ._approval_store import Failed, open_store
from ._approval_views import cmd_grants, cmd_list, cmd_show
from ._approval_votes import cmd_vote
from ._commands import help_of
from ._common import add_config_option, print_json

Handler = Callable[[argparse.Namespace, ApprovalStore], int]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``approvals`` and its sub-commands; each sets ``func`` to a handler returning an int."""
    parser = subparsers.add_parser(
        "approvals",
        help=help_of("approvals"),
        description="List and decide the approvals an agent is waiting on or deferred, in the "
        "store the config selects ([state] url, else the [approvals] db file).",
    )
    parser.set_defaults(func=lambda args: _usage(parser))
    commands = parser.add_subparsers(dest="approvals_command", metavar="COMMAND")

    listing = commands.add_parser("list", help="approvals still pending (--all: every one)")
    listing.add_argument("--all", action="store_true", help="include decided, used and expired")
    listing.add_argument("--state", choices=STATES, action="append", help="only these states")
    listing.add_argument("--limit", type=int, default=200, help="at most this many (newest)")
    listing.set_defaults(func=_with_store(cmd_list))

    show = commands.add_parser("show", help="everything about one approval, params included")
    show.add_argument("id", metavar="ID", help="a short id or any unique prefix of the id")
    show.set_defaults(func=_with_store(cmd_show))

    approve = commands.add_parser(
        "approve", help="allow the call (once; --always; --params: edit, then allow)"
    )
    approve.add_argument("id", metavar="ID", help="a short id or any unique prefix of the id")
    approve.add_argument("--always", action="store_true", help="allow-always instead of once")
    given = approve.add_mutually_exclusive_group()
    given.add_argument("--params", metavar="JSON", help="run these params instead (an edit)")
    given.add_argument("--params-file", metavar="FILE", help="--params read from a JSON file")
    approve.add_argument("--reason", metavar="TEXT", help="recorded with the decision")
    approve.set_defaults(func=_with_store(cmd_approve))

    deny = commands.add_parser("deny", help="refuse the call")
    deny.add_argument("id", metavar="ID", help="a short id or any unique prefix of the id")
    deny.add_argument("--reason", metavar="TEXT", help="told to the model with the denial")
    deny.set_defaults(func=_with_store(cmd_deny))

    voting = commands.add_parser(
        "vote", help="your vote on an approval a team policy governs (proven by OS user/token)"
    )
    voting.add_argument("id", metavar="ID", help="a short id or any unique prefix of the id")
    voting.add_argument("decision", choices=("allow", "deny"), help="your vote")
    voting.add_argument("--reason", metavar="TEXT", help="recorded with the vote")
    voting.set_defaults(func=_with_store(cmd_vote))

    grants = commands.add_parser("grants", help="allow-always grants still in force")
    grants.set_defaults(func=_with_store(cmd_grants))

    revoke = commands.add_parser("revoke", help="remove allow-always grants")
    revoke.add_argument("grant", metavar="GRANT", nargs="?", help="a grant id or unique prefix")
    revoke.add_argument("--plugin", help="every grant of this plugin")
    revoke.add_argument("--tool", help="every grant for this tool")
    revoke.add_argument("--sender", help="every grant of this sender")
    revoke.add_argument("--all", action="store_true", help="every grant")
    revoke.set_defaults(func=_with_store(cmd_revoke))

    for command in (approve, deny):
        command.add_argument("--by", metavar="NAME", help="who decided (default: your user name)")
    for command in (approve, deny, voting):
        command.add_argument(
            "--token-env",
            metavar="NAME",
            help="the variable holding your token, where your OS user is shared "
            "(default: TOOLHOOKS_APPROVER_TOKEN)",
        )
    for command in (listing, show, approve, deny, voting, grants, revoke):
        command.add_argument("--json", action="store_true", help="print JSON")
        command.add_argument(
            "--db", metavar="PATH", help="the SQLite approvals file (default: [approvals] db)"
        )
        add_config_option(command)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _with_store(handler: Handler) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        store, exists = open_store(args)
        where = getattr(store, "where", type(store).__name__)
        if not exists:
            if handler in (cmd_list, cmd_grants):
                if args.json:
                    print_json([])
                else:
                    print(f"No approvals: no database at {where} (nothing was ever deferred).")
                return 0
            raise Failed(f"no approvals database at {where}")
        args.where = where
        try:
            return handler(args, store)
        finally:
            store.close()

    command.__doc__ = handler.__doc__
    return command
