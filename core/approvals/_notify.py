"""Telling people of a team's approval where they already are: a signed webhook, Slack.

Never on the agent's time: ``Notifier.send`` puts the message on a bounded queue and returns;
one daemon thread per process delivers, with retries and doubling delays. A queue that is full
(a receiver down for long) drops the newest message and says so on the ``toolhooks`` logger:
the approval itself is in the store whatever happens to its notification.

Webhook: a JSON POST whose ``X-Toolhooks-Signature`` header is ``sha256=`` and the HMAC-SHA256
of the exact body bytes under the target's secret. Slack: ``chat.postMessage`` with Approve /
Deny buttons the first time, ``chat.update`` of that message afterwards (its channel and ``ts``
are kept in the store, so any process that takes a vote updates the same message).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import queue
import threading
import time
import urllib.request
from collections.abc import Iterable, Mapping
from typing import Any

from ..config._team import Slack, Target, Webhook, secret_of
from ..records._log import LazyLogger
from ..stores._contract import ApprovalStore, StoredApproval, Vote
from ._policy import still_needed
from ._slack import post_or_update

logger = LazyLogger("toolhooks")

SIGNATURE_HEADER = "X-Toolhooks-Signature"
QUEUE_SIZE = 1000
SLACK_MESSAGE_TTL_S = 30 * 86_400.0
ALLOW_ACTION = "toolhooks_allow"
DENY_ACTION = "toolhooks_deny"
_STOP = object()


def signature(secret: str, body: bytes) -> str:
    """The ``X-Toolhooks-Signature`` value of ``body``: ``sha256=<hex HMAC-SHA256>``."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def message(event: str, row: StoredApproval, votes: Iterable[Vote]) -> dict[str, Any]:
    """What a webhook receives: the event, the approval (with its digest), its votes, who may
    still vote."""
    cast = list(votes)
    policy = row.policy or {}
    return {
        "event": event,
        "sent_at": time.time(),
        "approval": {
            "id": row.id,
            "short_id": row.short_id,
            "digest": row.digest,
            "tool": row.tool,
            "params": row.params,
            "plugin": row.plugin,
            "title": row.title,
            "description": row.description,
            "requester": row.sender_id,
            "state": row.state,
            "decision": row.decision,
            "decided_by": row.decided_by,
            "expires_at": row.expires_at,
            "policy": policy.get("name"),
            "quorum": policy.get("quorum"),
            "escalate_at": policy.get("escalate_at"),
        },
        "votes": [
            {"person": v.person, "vote": v.decision, "channel": v.channel, "at": v.at} for v in cast
        ],
        "still_needed": still_needed(policy, cast, time.time()) if policy else [],
    }


class Notifier:
    """One process's deliveries to the targets of ``[approvals.notify]``."""

    def __init__(self, targets: Mapping[str, Target], store: ApprovalStore) -> None:
        self.targets = targets
        self.store = store
        self._queue: queue.Queue[Any] = queue.Queue(QUEUE_SIZE)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._busy = 0
        self._idle = threading.Condition(self._lock)

    def send(self, event: str, row: StoredApproval, votes: Iterable[Vote] = ()) -> None:
        """Queue ``event`` for each target the row's policy names; never blocks."""
        names = [] if row.policy is None else list(row.policy.get("notify", ()))
        if not names:
            return
        cast = tuple(votes)
        self._start()
        for name in names:
            target = self.targets.get(name)
            if target is None:
                continue
            with self._lock:
                self._busy += 1
            try:
                self._queue.put_nowait((name, target, event, row, cast))
            except queue.Full:
                with self._lock:
                    self._busy -= 1
                logger.warning(
                    "toolhooks: the notification queue is full; %s of approval %s to %s dropped",
                    event,
                    row.short_id,
                    name,
                )

    def drain(self, timeout_s: float) -> bool:
        """Wait until every queued message is delivered or given up on (a CLI before it exits,
        tests); False when ``timeout_s`` passed first."""
        deadline = time.monotonic() + timeout_s
        with self._idle:
            while self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._work, name="toolhooks-notify", daemon=True
                )
                self._thread.start()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            name, target, event, row, votes = item
            try:
                self.deliver(name, target, event, row, votes)
            except Exception as exc:  # a notification must never take the process down
                logger.warning(
                    "toolhooks: notifying %s of approval %s failed: %s: %s",
                    name,
                    row.short_id,
                    type(exc).__name__,
                    exc,
                )
            finally:
                with self._idle:
                    self._busy -= 1
                    self._idle.notify_all()

    def deliver(
        self, name: str, target: Target, event: str, row: StoredApproval, votes: tuple[Vote, ...]
    ) -> None:
        if target.webhook is not None:
            post_webhook(target.webhook, message(event, row, votes))
        elif target.slack is not None:
            post_or_update(self.store, name, target.slack, row, votes)


def post_webhook(hook: Webhook, body: Mapping[str, Any]) -> None:
    """POST ``body`` signed; retries with doubling delays; raises after the last attempt."""
    data = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()
    secret = secret_of(hook.secret) or ""
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: signature(secret, data),
        "User-Agent": "toolhooks-approvals",
    }
    delay = hook.backoff_s
    for attempt in range(hook.retries + 1):
        try:
            request = urllib.request.Request(hook.url, data=data, headers=headers, method="POST")
            with urllib.request.urlopen(request, timeout=hook.timeout_s) as response:
                if 200 <= response.status < 300:
                    return
        except OSError as exc:  # refused, reset, timed out, an HTTP error status
            if attempt == hook.retries:
                raise ConnectionError(f"{hook.url}: {exc}") from None
        time.sleep(delay)
        delay *= 2


def slack_target(targets: Mapping[str, Target]) -> Iterable[tuple[str, Slack]]:
    """The Slack targets by name."""
    return [(name, t.slack) for name, t in targets.items() if t.slack is not None]
