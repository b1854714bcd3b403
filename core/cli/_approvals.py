"""``toolhooks approvals list | show ID | approve ID [--always] | deny ID``: the queue route's desk.

The agent process waits on the SQLite store (``[approvals] db``); these commands read and decide
it from another terminal. Exit codes: 0 ok, 1 for an unknown, already decided or expired id (or a
decision the request does not allow), with the reason on stderr.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import json
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from .._config import discover, load_config
from .._errors import ConfigError
from .._queue import ApprovalQueue, QueuedApproval
from .._routes import printable
from .._state import StateUnavailable
from ._approvals_redis import RedisDesk, shared_state
from ._table import pairs, render

Command = Callable[[argparse.Namespace], int]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``approvals`` and its sub-commands; each sets ``func`` to a handler returning an int."""
    parser = subparsers.add_parser(
        "approvals",
        help="list and decide approvals waiting in the queue route's database",
        description="List and decide approvals waiting in the queue route's SQLite database.",
    )
    parser.set_defaults(func=lambda args: _usage(parser))
    commands = parser.add_subparsers(dest="approvals_command", metavar="COMMAND")

    listing = commands.add_parser("list", help="approvals still pending (--all: every one)")
    listing.add_argument("--all", action="store_true", help="include decided and expired ones")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(func=cmd_list)

    show = commands.add_parser("show", help="everything about one approval, params included")
    show.add_argument("id", metavar="ID")
    show.add_argument("--json", action="store_true", help="print a JSON object")
    show.set_defaults(func=cmd_show)

    approve = commands.add_parser("approve", help="allow the call (once, or --always)")
    approve.add_argument("id", metavar="ID")
    approve.add_argument("--always", action="store_true", help="allow-always instead of allow-once")
    approve.add_argument("--by", metavar="NAME", help="who decided (default: your user name)")
    approve.set_defaults(func=cmd_approve)

    deny = commands.add_parser("deny", help="refuse the call")
    deny.add_argument("id", metavar="ID")
    deny.add_argument("--reason", metavar="TEXT", help="told to the model with the denial")
    deny.add_argument("--by", metavar="NAME", help="who decided (default: your user name)")
    deny.set_defaults(func=cmd_deny)

    for command in (listing, show, approve, deny):
        command.add_argument(
            "--db",
            metavar="PATH",
            help="the approvals database (default: [approvals] db in config)",
        )
        command.add_argument(
            "--config",
            metavar="FILE",
            default=argparse.SUPPRESS,
            help="the config file naming the database (default: $TOOLHOOKS_CONFIG, then "
            "toolhooks.toml, then [tool.toolhooks] in pyproject.toml)",
        )


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _db_path(args: argparse.Namespace) -> Path:
    """--db, else ``[approvals] db`` from --config or the discovered config (relative: cwd)."""
    if args.db:
        return Path(args.db)
    given: str | None = getattr(args, "config", None)
    found = Path(given) if given else discover()[0]
    return Path(load_config(found).approvals.db)


def _fail(message: str) -> int:
    print(f"toolhooks approvals: {printable(message, keep='')}", file=sys.stderr)
    return 1


def _ago(when: float, now: float) -> str:
    seconds = int(abs(now - when))
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    text = (
        f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
    )
    return f"in {text}" if when > now else f"{text} ago"


def _stamp(when: float) -> str:
    return datetime.fromtimestamp(when).astimezone().isoformat(timespec="seconds")


def _state(row: QueuedApproval, now: float) -> str:
    if row.status == "pending":
        return f"expires {_ago(row.expires_at, now)}"
    if row.status == "expired":
        return f"expired {_ago(row.expires_at, now)}"
    who = f" by {row.decided_by}" if row.decided_by else ""
    return f"decided{who} {_ago(row.decided_at or row.created_at, now)}"


def _opened(handler: Callable[[argparse.Namespace, ApprovalQueue | None], int]) -> Command:
    """Run ``handler`` with the store (None if its file does not exist), closed afterwards."""

    @functools.wraps(handler)
    def command(args: argparse.Namespace) -> int:
        try:
            state = shared_state(args)
            path = _db_path(args)
        except ConfigError as exc:
            return _fail(str(exc))
        if state is not None:  # [state] url: the fleet's shared approval store
            try:
                return handler(args, RedisDesk(state))  # type: ignore[arg-type]
            except StateUnavailable as exc:
                return _fail(str(exc))
        if not path.is_file():
            return handler(args, None)
        with ApprovalQueue(path) as queue:
            return handler(args, queue)

    return command


@_opened
def cmd_list(args: argparse.Namespace, queue: ApprovalQueue | None) -> int:
    """``approvals list [--all] [--json]``."""
    rows = [] if queue is None else queue.list(None if args.all else "pending")
    if args.json:
        print(json.dumps([row.to_dict() for row in rows], indent=2, ensure_ascii=False))
        return 0
    if not rows:
        where = "" if queue is not None else f" (no database at {_db_path(args)})"
        print(f"No {'' if args.all else 'pending '}approvals{where}.")
        return 0
    now = time.time()
    table = [[r.id, r.status, r.severity, r.plugin, r.tool, r.title, _state(r, now)] for r in rows]
    headers = ["ID", "STATUS", "SEVERITY", "PLUGIN", "TOOL", "TITLE", "WHEN"]
    print(render(headers, table, flex=[5, 4, 3], status=[1, 2]))
    return 0


def _find(args: argparse.Namespace, queue: ApprovalQueue | None) -> QueuedApproval | None:
    row = None if queue is None else queue.get(args.id)
    if row is None:
        missing = "" if queue is not None else " (the database does not exist)"
        where = getattr(queue, "where", None) or _db_path(args)
        _fail(f"no approval {args.id!r} in {where}{missing}")
    return row


@_opened
def cmd_show(args: argparse.Namespace, queue: ApprovalQueue | None) -> int:
    """``approvals show ID [--json]``."""
    row = _find(args, queue)
    if row is None:
        return 1
    if args.json:
        print(json.dumps(row.to_dict(), indent=2, ensure_ascii=False))
        return 0
    now = time.time()
    fields = [
        ("id", row.id),
        ("status", f"{row.status} ({_state(row, now)})"),
        ("title", row.title),
        ("severity", row.severity),
        ("plugin", row.plugin),
        ("tool", row.tool),
        ("sender", row.sender or "-"),
        ("session", row.session or "-"),
        ("call id", row.call_id or "-"),
        ("allowed", ", ".join(row.allowed_decisions)),
        ("created", _stamp(row.created_at)),
        ("expires", _stamp(row.expires_at)),
        ("digest", row.digest),
    ]
    if row.decided_at is not None:
        fields.append(("decided", f"{_stamp(row.decided_at)} by {row.decided_by or '-'}"))
    if row.reason:
        fields.append(("reason", row.reason))
    if row.consumed_at is not None:
        fields.append(("picked up", _stamp(row.consumed_at)))
    fields.append(("description", row.description))
    print(pairs((f"{name}:", value) for name, value in fields))
    params = json.dumps(row.params, indent=2, sort_keys=True, ensure_ascii=True)
    print("params:\n" + "\n".join("  " + line for line in params.splitlines()))
    return 0


def _decide(args: argparse.Namespace, queue: ApprovalQueue | None, decision: str,
            reason: str | None) -> int:  # fmt: skip
    row = _find(args, queue)
    if queue is None or row is None:
        return 1
    try:
        won = queue.resolve(row.id, decision, by=args.by or _user(), reason=reason)
    except ValueError as exc:
        return _fail(str(exc))
    if won:
        print(f"{row.id}: {decision} ({row.tool}, {printable(row.title, keep='')})")
        return 0
    current = queue.get(row.id) or row
    if current.status == "expired":
        stamp = _stamp(current.expires_at)
        return _fail(f"approval {row.id} expired at {stamp}; nothing to decide")
    who = f" by {current.decided_by}" if current.decided_by else ""
    return _fail(f"approval {row.id} was already decided: {current.status}{who}")


def _user() -> str | None:
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment
        return None


@_opened
def cmd_approve(args: argparse.Namespace, queue: ApprovalQueue | None) -> int:
    """``approvals approve ID [--always] [--by NAME]``."""
    return _decide(args, queue, "allow-always" if args.always else "allow-once", None)


@_opened
def cmd_deny(args: argparse.Namespace, queue: ApprovalQueue | None) -> int:
    """``approvals deny ID [--reason TEXT] [--by NAME]``."""
    return _decide(args, queue, "deny", args.reason)
