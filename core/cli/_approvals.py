"""``toolhooks approvals list | show | approve | deny | grants | revoke``: decide from a terminal.

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
import getpass
import json
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ..config._settings import LoadedConfig
from ..records._errors import ParamsError, ToolhooksError
from ..records._frozen import freeze_params, thaw
from ..stores._contract import STATES, AmbiguousId, ApprovalStore, Grant, StoredApproval, id_key
from ..stores._state import state_from
from ._commands import help_of
from ._common import UsageError, add_config_option, print_json, read_config
from ._table import clean, pairs, render

Handler = Callable[[argparse.Namespace, ApprovalStore], int]
HANDLE_CHARS = 8


class Failed(ToolhooksError):
    """A command that cannot do what was asked; the message is the one line shown (exit 1)."""


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
    for command in (listing, show, approve, deny, grants, revoke):
        command.add_argument("--json", action="store_true", help="print JSON")
        command.add_argument(
            "--db", metavar="PATH", help="the SQLite approvals file (default: [approvals] db)"
        )
        add_config_option(command)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


# -- the store -------------------------------------------------------------------------------------


def open_store(args: argparse.Namespace) -> tuple[ApprovalStore, bool]:
    """The store the config selects, and whether it exists yet (a missing file is not made)."""
    if args.db:
        return _sqlite(Path(args.db), None)
    config = read_config(args)
    state = state_from(config.state)
    if state is not None:
        from ..stores._redis import RedisStore

        return RedisStore(state, retention_s=config.approvals.retention_s), True
    return _sqlite(Path(config.approvals.db), config)


def _sqlite(path: Path, config: LoadedConfig | None) -> tuple[ApprovalStore, bool]:
    from ..stores._sqlite import SQLiteStore

    path = path.expanduser()
    if path.is_dir():
        raise Failed(f"{path} is a directory, not an approvals database")
    retention = config.approvals.retention_s if config is not None else None
    store = SQLiteStore(path) if retention is None else SQLiteStore(path, retention)
    exists = path.is_file()
    if exists:
        store.open()
    return store, exists


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


def find(store: ApprovalStore, key: str) -> StoredApproval:
    """The one approval ``key`` names (full id, short id or a unique prefix)."""
    try:
        row = store.get(key.strip())
    except AmbiguousId as exc:
        shown = []
        for match in exc.matches[:10]:
            found = store.get(match)
            what = "" if found is None else f" ({found.tool}, {found.state})"
            shown.append(f"{id_key(match)}{what}")
        more = f" and {len(exc.matches) - 10} more" if len(exc.matches) > 10 else ""
        raise Failed(
            f"{key!r} matches {len(exc.matches)} approvals: {', '.join(shown)}{more}; "
            "type more of the id"
        ) from None
    if row is None:
        raise Failed(f"no approval {key!r} in {getattr(store, 'where', 'the store')}")
    return row


# -- showing ---------------------------------------------------------------------------------------


def handles(ids: list[str]) -> dict[str, str]:
    """Each id's shortest prefix (at least 8 characters) that no other listed id shares."""
    keys = {i: id_key(i) for i in ids}
    shown: dict[str, str] = {}
    for approval_id, key in keys.items():
        size = HANDLE_CHARS
        while size < len(key) and any(
            other != approval_id and k.startswith(key[:size]) for other, k in keys.items()
        ):
            size += 1
        shown[approval_id] = key[:size]
    return shown


def _ago(when: float, now: float) -> str:
    seconds = int(abs(now - when))
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    text = (
        f"{days}d{hours:02d}h"
        if days
        else f"{hours}h{minutes:02d}m"
        if hours
        else f"{minutes}m{secs:02d}s"
        if minutes
        else f"{secs}s"
    )
    return f"in {text}" if when > now else f"{text} ago"


def _stamp(when: float) -> str:
    return datetime.fromtimestamp(when).astimezone().isoformat(timespec="seconds")


def _status(row: StoredApproval, now: float) -> str:
    """What happened to it, in words."""
    who = f" by {row.decided_by}" if row.decided_by else ""
    if row.state == "pending":
        return f"expires {_ago(row.expires_at, now)}"
    if row.state == "expired":
        return f"expired {_ago(row.expires_at, now)}"
    if row.state == "decided":
        return f"{row.decision}{who} {_ago(row.decided_at or row.created_at, now)}, not yet used"
    if row.decision is None:
        return "closed without a decision (timed out, cancelled or resolved by the agent)"
    return f"{row.decision}{who}, used {_ago(row.consumed_at or now, now)}"


def cmd_list(args: argparse.Namespace, store: ApprovalStore) -> int:
    """``approvals list [--all] [--state S]... [--limit N] [--json]``."""
    states = args.state or (None if args.all else ["pending"])
    rows = store.list(states=states, limit=args.limit)
    if args.json:
        print_json([row.to_dict() for row in rows])
        return 0
    if not rows:
        which = "" if states is None else " " + "/".join(states)
        print(f"No{which} approvals in {args.where}.")
        return 0
    now = time.time()
    short = handles([r.id for r in rows])
    table = [
        [short[r.id], r.state, r.severity, r.tool, r.sender_id or "-", r.title, _status(r, now)]
        for r in rows
    ]
    headers = ["ID", "STATE", "SEVERITY", "TOOL", "SENDER", "TITLE", "WHEN"]
    print(render(headers, table, flex=[5, 3], status=[1, 2], drop=[4]))
    if any(r.state == "pending" for r in rows):
        print("\nDecide with: toolhooks approvals approve ID  (or deny ID; show ID for params)")
    return 0


def cmd_show(args: argparse.Namespace, store: ApprovalStore) -> int:
    """``approvals show ID [--json]``."""
    row = find(store, args.id)
    if args.json:
        print_json(row.to_dict())
        return 0
    now = time.time()
    fields: list[tuple[str, object]] = [
        ("id", row.id),
        ("short id", row.short_id),
        ("state", f"{row.state}: {_status(row, now)}"),
        ("title", row.title),
        ("description", row.description),
        ("severity", row.severity),
        ("plugin", row.plugin),
        ("tool", row.tool),
        ("sender", row.sender_id or "-"),
        ("session", row.session_id or "-"),
        ("call id", row.call_id),
        ("allowed", ", ".join(row.allowed_decisions)),
        ("created", _stamp(row.created_at)),
        ("expires", _stamp(row.expires_at)),
        ("digest", row.digest),
    ]
    if row.rewritten_by:
        fields.append(("rewritten", ", ".join(f"{k} by {v}" for k, v in row.rewritten_by.items())))
    if row.decided_at is not None:
        fields.append(("decided", f"{_stamp(row.decided_at)} by {row.decided_by or '-'}"))
    if row.reason:
        fields.append(("reason", row.reason))
    if row.consumed_at is not None:
        fields.append(("used", _stamp(row.consumed_at)))
    print(pairs((f"{name}:", value) for name, value in fields))
    _params("params (as approvers see them):", row.params)
    if row.decided_params is not None:
        _params("edited params (what the edit runs, if the chain allows them):", row.decided_params)
    return 0


def _params(label: str, params: Any) -> None:
    text = json.dumps(params, indent=2, sort_keys=True, ensure_ascii=False)
    print(label + "\n" + "\n".join("  " + line for line in text.splitlines()))


# -- deciding --------------------------------------------------------------------------------------


def _user() -> str | None:
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment
        return None


def _edited(args: argparse.Namespace) -> dict[str, Any] | None:
    if args.params is None and args.params_file is None:
        return None
    source = "--params"
    text = args.params
    if args.params_file is not None:
        source = f"--params-file {args.params_file}"
        try:
            text = Path(args.params_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Failed(
                f"cannot read {args.params_file}: {getattr(exc, 'strerror', exc)}"
            ) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Failed(f"{source} is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise Failed(f"{source} must be a JSON object (the whole params to run)")
    try:
        return thaw(freeze_params(value))  # type: ignore[no-any-return]
    except (ParamsError, TypeError, ValueError) as exc:
        raise Failed(f"{source}: {exc}") from None


def decide(
    args: argparse.Namespace,
    store: ApprovalStore,
    decision: str,
    params: dict[str, Any] | None = None,
) -> int:
    row = find(store, args.id)
    if row.state != "pending":
        raise Failed(_why_not(row))
    if decision not in row.allowed_decisions and decision != "deny":
        allowed = ", ".join(row.allowed_decisions)
        hint = " (it does not allow editing its params)" if decision == "edit" else ""
        raise Failed(f"approval {row.short_id} allows {allowed}, not {decision}{hint}")
    by = args.by or _user()
    decided = store.decide(row.id, decision, params=params, by=by, reason=args.reason)
    if decided is None:  # someone else was quicker, or it expired just now
        raise Failed(_why_not(store.get(row.id) or row))
    if args.json:
        print_json(decided.to_dict())
    else:
        print(f"{decided.short_id}: {decision} ({clean(decided.tool)}: {clean(decided.title)})")
    return 0


def _why_not(row: StoredApproval) -> str:
    if row.state == "expired":
        return f"approval {row.short_id} expired at {_stamp(row.expires_at)}; nothing to decide"
    if row.state == "decided" or row.decision is not None:
        who = f" by {row.decided_by}" if row.decided_by else ""
        return f"approval {row.short_id} was already decided: {row.decision}{who}"
    return f"approval {row.short_id} is closed (the agent finished the call without it)"


def cmd_approve(args: argparse.Namespace, store: ApprovalStore) -> int:
    """``approvals approve ID [--always | --params JSON | --params-file FILE] [--by NAME]``."""
    params = _edited(args)
    if params is not None and args.always:
        raise UsageError("--always and --params: an edit is allowed once")
    decision = "edit" if params is not None else "allow-always" if args.always else "allow-once"
    return decide(args, store, decision, params)


def cmd_deny(args: argparse.Namespace, store: ApprovalStore) -> int:
    """``approvals deny ID [--reason TEXT] [--by NAME]``."""
    return decide(args, store, "deny")


# -- grants ----------------------------------------------------------------------------------------


def cmd_grants(args: argparse.Namespace, store: ApprovalStore) -> int:
    """``approvals grants [--json]``."""
    found = store.grants()
    if args.json:
        print_json([grant.to_dict() for grant in found])
        return 0
    if not found:
        print(f"No allow-always grants in {args.where}.")
        return 0
    rows = [
        [
            g.id,
            g.plugin,
            g.tool,
            g.sender or "-",
            g.session or "-",
            g.by or "-",
            _stamp(g.created_at),
        ]
        for g in found
    ]
    print(render(["GRANT", "PLUGIN", "TOOL", "SENDER", "SESSION", "BY", "SINCE"], rows))
    return 0


def _grant(store: ApprovalStore, key: str) -> Grant:
    matches = [
        g
        for g in store.grants()
        if g.id == key or g.id.startswith(key) or g.id.removeprefix("grant_").startswith(key)
    ]
    if not key or not matches:
        raise Failed(f"no grant {key!r} in {getattr(store, 'where', 'the store')}")
    if len(matches) > 1:
        shown = ", ".join(f"{g.id} ({g.tool})" for g in matches[:10])
        raise Failed(f"{key!r} matches {len(matches)} grants: {shown}; type more of the id")
    return matches[0]


def cmd_revoke(args: argparse.Namespace, store: ApprovalStore) -> int:
    """``approvals revoke GRANT | --plugin P --tool T --sender S | --all``."""
    filters = {"plugin": args.plugin, "tool": args.tool, "sender": args.sender}
    if args.grant is None and not any(filters.values()) and not args.all:
        raise UsageError("name a GRANT, or --plugin/--tool/--sender, or --all")
    if args.grant is not None:
        removed = store.revoke(grant_id=_grant(store, args.grant).id, **filters)
    else:
        removed = store.revoke(**filters)
    if not removed and not args.all:
        raise Failed(f"no grant matches in {getattr(store, 'where', 'the store')}")
    if args.json:
        print_json({"revoked": removed})
    else:
        print(f"Revoked {removed} grant{'s' if removed != 1 else ''}.")
    return 0
