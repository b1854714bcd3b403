"""The Slack interaction callback ``toolhooks serve`` answers at ``CALLBACK_PATH``: a verified,
fresh, first-seen click by a person of ``[approvals.people]`` is their vote (``_slack`` says
how each is checked)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs

from ..config._team import secret_of
from ..stores._contract import ApprovalStore, VoteName
from ._slack import ALLOW_ACTION, DENY_ACTION, REPLAY_TTL_S, verified
from ._team import Team, VoteRefused, cast

_DECISIONS: dict[str, VoteName] = {ALLOW_ACTION: "allow", DENY_ACTION: "deny"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """What the callback answers Slack: an HTTP status and a short text (shown to the clicker
    when the status is 200)."""

    status: int
    text: str
    counted: bool = False


def interaction(
    team: Team, store: ApprovalStore, headers: Mapping[str, str], body: bytes, now: float
) -> Reply:
    """A button click from Slack, verified, turned into the clicker's vote."""
    timestamp = headers.get("x-slack-request-timestamp")
    given = headers.get("x-slack-signature")
    targets = [t.slack for t in team.targets.values() if t.slack is not None]
    reasons = []
    for target in targets:
        why = verified(secret_of(target.signing_secret) or "", timestamp, given, body, now)
        if why is None:
            break
        reasons.append(why)
    else:
        return Reply(status=401, text=reasons[0] if reasons else "no Slack target configured")
    assert given is not None
    if not store.claim(f"slack-request:{given}", REPLAY_TTL_S):
        return Reply(status=409, text="replayed request")
    try:
        payload = json.loads(parse_qs(body.decode("utf-8"))["payload"][0])
        user = str(payload["user"]["id"])
        action = payload["actions"][0]
        chosen = json.loads(action["value"])
        approval, digest = str(chosen["a"]), str(chosen["d"])
        decision = _DECISIONS[action["action_id"]]
    except (KeyError, IndexError, TypeError, ValueError, UnicodeDecodeError):
        return Reply(status=400, text="not a toolhooks button")
    person = team.by_slack(user)
    if person is None:
        return Reply(status=200, text=f"Slack user {user} is no person of [approvals.people]")
    try:
        tally = cast(store, approval, person, decision, "slack", digest=digest, team=team)
    except VoteRefused as exc:
        return Reply(status=200, text=f"Not counted: {exc}")
    if not tally.counted:
        return Reply(status=200, text=f"{person} had voted already; one vote each")
    return Reply(status=200, text=f"{person}'s vote counted", counted=True)
