"""``approvals list | show | grants``: what is pending, decided and granted, for a person to read."""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime
from typing import Any

from ..approvals._policy import still_needed
from ..stores._contract import ApprovalStore, StoredApproval
from ._approval_store import find, handles
from ._common import print_json
from ._table import pairs, render


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


def stamp(when: float) -> str:
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
        shown = row.to_dict()
        if row.policy is not None:
            shown["votes"] = [vote.to_dict() for vote in store.votes(row.id)]
        print_json(shown)
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
        ("created", stamp(row.created_at)),
        ("expires", stamp(row.expires_at)),
        ("digest", row.digest),
    ]
    if row.rewritten_by:
        fields.append(("rewritten", ", ".join(f"{k} by {v}" for k, v in row.rewritten_by.items())))
    if row.decided_at is not None:
        fields.append(("decided", f"{stamp(row.decided_at)} by {row.decided_by or '-'}"))
    if row.reason:
        fields.append(("reason", row.reason))
    if row.consumed_at is not None:
        fields.append(("used", stamp(row.consumed_at)))
    fields.extend(_team_fields(row, store, now))
    print(pairs((f"{name}:", value) for name, value in fields))
    _params("params (as approvers see them):", row.params)
    if row.decided_params is not None:
        _params("edited params (what the edit runs, if the chain allows them):", row.decided_params)
    return 0


def _team_fields(row: StoredApproval, store: ApprovalStore, now: float) -> list[tuple[str, object]]:
    """A team's approval: its policy, the votes so far, who may still vote, escalation."""
    policy = row.policy
    if policy is None:
        return []
    votes = store.votes(row.id)
    allows = sum(1 for v in votes if v.decision == "allow")
    found: list[tuple[str, object]] = [
        ("policy", f"{policy['name']}: {allows} of {policy['quorum']} allows needed"),
        ("votes", ", ".join(f"{v.person} {v.decision} via {v.channel}" for v in votes) or "-"),
    ]
    if row.state == "pending":
        found.append(("may vote", ", ".join(still_needed(policy, votes, now)) or "nobody"))
    if policy.get("escalate_at") is not None:
        found.append(
            ("escalation", f"{', '.join(policy['escalate_to'])} at {stamp(policy['escalate_at'])}")
        )
    found.append(("on expiry", str(policy.get("on_expiry", "deny"))))
    return found


def _params(label: str, params: Any) -> None:
    text = json.dumps(params, indent=2, sort_keys=True, ensure_ascii=False)
    print(label + "\n" + "\n".join("  " + line for line in text.splitlines()))


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
            stamp(g.created_at),
        ]
        for g in found
    ]
    print(render(["GRANT", "PLUGIN", "TOOL", "SENDER", "SESSION", "BY", "SINCE"], rows))
    return 0
