"""A team policy as an approval's row keeps it (``StoredApproval.policy``, a plain dict made by
``Team.snapshot``): who may vote when, who is still needed, how long it is kept."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..stores._contract import Vote

KEEP_S = 10 * 365 * 86_400.0
"""``on_expiry = "keep"``: the deadline a kept approval is stored with (ten years: never, for
anyone waiting; a finite number, so that every backend stores and compares it alike)."""


def rule_of(plugin: str, description: str) -> str | None:
    """The rule id of a ``rules`` plugin's request: its description starts ``Rule '<id>':``."""
    if plugin != "rules" or not description.startswith("Rule '"):
        return None
    end = description.find("'", 6)
    return None if end < 0 else description[6:end]


def stored_until(policy: Mapping[str, Any] | None, expires_at: float) -> float:
    """A kept approval (``on_expiry = "keep"``) waits until someone decides; others until
    ``expires_at``."""
    if policy is not None and policy.get("on_expiry") == "keep":
        return time.time() + KEEP_S
    return expires_at


def needs_votes(policy: Mapping[str, Any] | None) -> bool:
    """A policy whose decision only votes make: more than one person, or escalation."""
    return policy is not None and (policy["quorum"] > 1 or policy["escalate_at"] is not None)


def may_vote(policy: Mapping[str, Any], person: str, now: float) -> bool:
    """An approver, or (after the escalation time) one of those it escalates to."""
    if person in policy["approvers"]:
        return True
    escalate_at = policy.get("escalate_at")
    return escalate_at is not None and now >= escalate_at and person in policy["escalate_to"]


def still_needed(policy: Mapping[str, Any], votes: Iterable[Vote], now: float) -> list[str]:
    """Who may still vote (no vote of theirs yet), for the desk and the notifications."""
    voted = {v.person for v in votes}
    everyone = list(policy["approvers"])
    if policy.get("escalate_at") is not None and now >= policy["escalate_at"]:
        everyone += [p for p in policy["escalate_to"] if p not in everyone]
    barred = set() if policy["requester_may_approve"] else set(policy["requesters"])
    return [p for p in everyone if p not in voted and p not in barred]
