"""A team's approval in Slack: the message with Approve / Deny buttons, and the click that votes.

The message shows the tool, the params, the requester, the rule and the votes so far; it is
posted once (``chat.postMessage``) and updated with each vote (``chat.update``). A click reaches
``toolhooks serve`` at :data:`CALLBACK_PATH`; :func:`interaction` takes it only when Slack's
signature over ``v0:<timestamp>:<body>`` verifies with a target's signing secret, the timestamp
is under five minutes old, and the same signed request was not seen before (the signature is
claimed in the approval store, so a replay to another desk process is refused too). The voter is
the person whose ``slack`` id clicked; the button carries the approval's digest, so a click on a
message about other params counts for nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

from ..config._team import Slack, secret_of
from ..stores._contract import ApprovalStore, StoredApproval, Vote
from ._policy import rule_of, still_needed

CALLBACK_PATH = "/slack/interactions"
MAX_AGE_S = 300.0
"""Slack's advice: refuse a request whose timestamp is more than five minutes from now."""
REPLAY_TTL_S = 2 * MAX_AGE_S
PARAMS_SHOWN = 2500
ALLOW_ACTION = "toolhooks_allow"
DENY_ACTION = "toolhooks_deny"
MESSAGE_TTL_S = 30 * 86_400.0
POSTING_S = 15.0
"""One process posts an approval's message; the others wait this long for where it went."""


def slack_signature(secret: str, timestamp: str, body: bytes) -> str:
    """Slack's ``X-Slack-Signature`` for ``body`` sent at ``timestamp``: ``v0=<hex>``."""
    base = b"v0:" + timestamp.encode("ascii") + b":" + body
    return "v0=" + hmac.new(secret.encode("utf-8"), base, hashlib.sha256).hexdigest()


def verified(
    secret: str, timestamp: str | None, given: str | None, body: bytes, now: float
) -> str | None:
    """None when the request is Slack's and fresh; else why not."""
    if not timestamp or not given:
        return "unsigned request"
    try:
        sent = int(timestamp)
    except ValueError:
        return "bad timestamp"
    if abs(now - sent) > MAX_AGE_S:
        return "stale request (more than 5 minutes old)"
    if not hmac.compare_digest(slack_signature(secret, timestamp, body), given):
        return "bad signature"
    return None


def _text(row: StoredApproval, votes: tuple[Vote, ...]) -> str:
    return f"Approval {row.short_id}: {row.title} (tool {row.tool})"


def _clip(text: str) -> str:
    return text if len(text) <= PARAMS_SHOWN else text[:PARAMS_SHOWN] + " …"


def blocks(row: StoredApproval, votes: tuple[Vote, ...]) -> list[dict[str, Any]]:
    """The message: what would run, who asked, under which rule, the votes so far, buttons."""
    policy = row.policy or {}
    params = json.dumps(row.params, indent=1, sort_keys=True, ensure_ascii=False, default=repr)
    allows = [v.person for v in votes if v.decision == "allow"]
    rule = rule_of(row.plugin, row.description)
    asked = f"rule {rule}" if rule else f"asked by {row.plugin}"
    lines = [
        f"*{_plain(row.title)}*",
        f"tool `{_plain(row.tool)}` · requester {_plain(row.sender_id or '-')} · "
        f"{_plain(asked)} · policy {_plain(str(policy.get('name', '-')))}",
        f"votes: {len(allows)} of {policy.get('quorum', 1)} allows"
        + (f" ({', '.join(allows)})" if allows else ""),
    ]
    if row.state == "pending":
        needed = still_needed(policy, votes, time.time()) if policy else []
        lines.append(f"may still vote: {', '.join(needed) or 'nobody'}")
    else:
        lines.append(f"*{row.state}*: {row.decision or '-'} by {row.decided_by or '-'}")
    found: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(lines)}},
        {"type": "section", "text": {"type": "mrkdwn", "text": f"```{_clip(params)}```"}},
    ]
    if row.state == "pending":
        value = json.dumps({"a": row.id, "d": row.digest}, separators=(",", ":"))
        found.append(
            {
                "type": "actions",
                "block_id": f"toolhooks:{row.short_id}",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": "Approve"},
                        "style": "primary",
                        "action_id": ALLOW_ACTION,
                        "value": value,
                    },
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": "Deny"},
                        "style": "danger",
                        "action_id": DENY_ACTION,
                        "value": value,
                    },
                ],
            }
        )
    return found


def _plain(text: str) -> str:
    """Caller text shown as text: Slack's mrkdwn control characters escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def client(target: Slack) -> Any:
    from slack_sdk import WebClient

    if target.base_url is None:
        return WebClient(token=secret_of(target.bot_token))
    return WebClient(token=secret_of(target.bot_token), base_url=target.base_url)


def _posted_elsewhere(store: ApprovalStore, key: str) -> str | None:
    """Where the message another process is posting went, once it says (None: it never did)."""
    deadline = time.monotonic() + POSTING_S
    while time.monotonic() < deadline:
        held = store.claimed(key)
        if held is not None:
            return held
        time.sleep(0.05)
    return None


def post_or_update(
    store: ApprovalStore, name: str, target: Slack, row: StoredApproval, votes: tuple[Vote, ...]
) -> None:
    """Post the approval's message once; update it afterwards (any process: the store keeps
    where it is)."""
    web = client(target)
    key = f"slack-message:{name}:{row.id}"
    held = store.claimed(key)
    if held is None and not store.claim(f"{key}:posting", POSTING_S):
        held = _posted_elsewhere(store, key)  # another process is posting it: update that one
    if held is not None:
        channel, _, ts = held.partition(" ")
        web.chat_update(channel=channel, ts=ts, text=_text(row, votes), blocks=blocks(row, votes))
        return
    sent = web.chat_postMessage(
        channel=target.channel, text=_text(row, votes), blocks=blocks(row, votes)
    )
    store.claim(key, MESSAGE_TTL_S, value=f"{sent['channel']} {sent['ts']}")
