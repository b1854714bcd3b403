"""``approvals vote ID allow | deny``: a person's vote on an approval a team policy governs.

Who votes is proven, never typed: the OS user this command runs as, when exactly one person of
``[approvals.people]`` has it as ``os_user``; or that person's token, read from the environment
variable ``--token-env`` names (default ``$TOOLHOOKS_APPROVER_TOKEN``; never an argument, which
``ps`` would show), required where several people share the OS user.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
import time
from typing import Any

from ..approvals._policy import still_needed
from ..approvals._team import Team, VoteRefused, cast
from ..config._settings import LoadedConfig
from ..stores._contract import ApprovalStore, StoredApproval, Tally
from ._approval_store import Failed, find
from ._common import print_json, read_config
from ._table import clean

TOKEN_ENV = "TOOLHOOKS_APPROVER_TOKEN"


def _os_user() -> str | None:
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment
        return None


DELIVERY_WAIT_S = 30.0
"""How long a vote from the CLI waits for its notifications before the command exits."""


def voter(config: LoadedConfig, args: argparse.Namespace) -> str:
    """The person running this command, proven by OS user and / or token; Failed if unproven."""
    if not config.approvals.people:
        raise Failed("no [approvals.people] in the config: nobody can vote")
    if getattr(args, "by", None):
        raise Failed("--by cannot say who votes: a vote is proven by your OS user or token")
    token_env = getattr(args, "token_env", None) or TOKEN_ENV
    token = os.environ.get(token_env) or None
    try:
        return Team(config).by_os_user(_os_user(), token)
    except VoteRefused as exc:
        raise Failed(str(exc)) from None


def vote(
    args: argparse.Namespace,
    store: ApprovalStore,
    decision: Any,
    params: dict[str, Any] | None = None,
) -> int:
    """Cast the proven person's vote on ``args.id``; prints what it did and who is still needed."""
    config = read_config(args)
    person = voter(config, args)
    team = Team(config)
    row = find(store, args.id)
    try:
        tally = cast(
            store, row.id, person, decision, "cli", reason=getattr(args, "reason", None),
            params=params, team=team,
        )  # fmt: skip
    except VoteRefused as exc:
        raise Failed(str(exc)) from None
    # The command is done when its notifications are (an agent never waits for them).
    if not team.notifier(store).drain(DELIVERY_WAIT_S):
        print("toolhooks: some notifications are not delivered yet", file=sys.stderr)
    if args.json:
        print_json(_tally_json(tally))
        return 0
    print(describe_tally(tally, person))
    return 0


def _tally_json(tally: Tally) -> dict[str, Any]:
    row = tally.row
    return {
        "approval": row.to_dict(),
        "votes": [v.to_dict() for v in tally.votes],
        "counted": tally.counted,
        "decided": tally.decided,
        "still_needed": []
        if row.policy is None
        else still_needed(row.policy, tally.votes, time.time()),
    }


def describe_tally(tally: Tally, person: str) -> str:
    row = tally.row
    what = f"{row.short_id} ({clean(row.tool)}: {clean(row.title)})"
    if not tally.counted:
        return f"{what}: {person} had voted already; one vote each"
    if tally.decided:
        return f"{what}: {row.decision} by {row.decided_by}"
    return f"{what}: {person}'s vote counted; {votes_line(row, tally)}"


def votes_line(row: StoredApproval, tally: Tally) -> str:
    """``1 of 2 allows; still needed: bob, carol``."""
    if row.policy is None:
        return ""
    allows = sum(1 for v in tally.votes if v.decision == "allow")
    needed = still_needed(row.policy, tally.votes, time.time())
    return f"{allows} of {row.policy['quorum']} allows; may still vote: {', '.join(needed) or 'nobody'}"


def cmd_vote(args: argparse.Namespace, store: ApprovalStore) -> int:
    """``approvals vote ID allow|deny [--reason TEXT] [--token-env NAME]``."""
    return vote(args, store, args.decision)
