"""``approvals approve | deny | revoke``: a person's decision, written to the store once."""

from __future__ import annotations

import argparse
import getpass
import json
from pathlib import Path
from typing import Any

from ..records._errors import ParamsError
from ..records._frozen import freeze_params, thaw
from ..stores._contract import ApprovalStore, Grant, StoredApproval
from ._approval_store import Failed, find
from ._approval_views import stamp
from ._common import UsageError, print_json
from ._table import clean


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
    if row.policy is not None and row.state == "pending":  # a team's: it is one person's vote
        from ._approval_votes import vote

        if decision == "allow-always":
            raise Failed(f"approval {row.short_id} is decided by votes: allow it once")
        chosen = {"allow-once": "allow", "deny": "deny", "edit": "edit"}[decision]
        return vote(args, store, chosen, params)
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
        return f"approval {row.short_id} expired at {stamp(row.expires_at)}; nothing to decide"
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
