"""Resolving an approval a hook asked for: remembered grants, the approver, timeouts, decisions."""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ._driver import AwaitIt, Pipeline, RunInThread, TimedOut
from ._models import new_id
from ._results import DECISIONS, ApprovalDecision, Decision, PendingApproval

Approver = Callable[[PendingApproval], str | ApprovalDecision | Awaitable[Any]]

DENIED_BY_USER = "Denied by user"
TIMED_OUT = "Approval timed out"
NO_ROUTE = "Approval unavailable (no approval route)"


class ApprovalUnavailable(RuntimeError):
    """Raised by an approver (or route) that has nobody to ask; the call is denied with its text."""


@dataclass(frozen=True)
class Resolution:
    decision: Decision
    reason: str | None
    remembered: bool = False
    by: str | None = None


def _normalise(raw: Any) -> tuple[str | None, str | None, str | None]:
    fields: tuple[Any, Any, Any]
    if isinstance(raw, ApprovalDecision):
        fields = (raw.decision, raw.reason, raw.by)
    elif isinstance(raw, str):
        fields = (raw, None, None)
    elif isinstance(raw, Mapping):
        fields = (raw.get("decision"), raw.get("reason"), raw.get("by"))
    else:
        return None, None, None
    # Plain str copies: a str subclass must not be able to compare equal to "allow-once".
    decision, reason, by = (str.__str__(f) if isinstance(f, str) else None for f in fields)
    return decision, reason, by


class ApprovalBook:
    """allow-always grants, keyed by (plugin, tool, sender id); thread-safe."""

    def __init__(self) -> None:
        self._grants: set[tuple[str, str, str | None]] = set()
        self._lock = threading.Lock()

    def granted(self, key: tuple[str, str, str | None]) -> bool:
        return key in self._grants

    def grant(self, key: tuple[str, str, str | None]) -> None:
        with self._lock:
            self._grants.add(key)

    def revoke(
        self, plugin: str | None = None, tool: str | None = None, sender: str | None = None
    ) -> int:
        """Forget matching grants (None matches anything); returns how many were removed."""
        with self._lock:
            doomed = {
                key
                for key in self._grants
                if (plugin is None or key[0] == plugin)
                and (tool is None or key[1] == tool)
                and (sender is None or key[2] == sender)
            }
            self._grants -= doomed
            return len(doomed)

    def grants(self) -> list[tuple[str, str, str | None]]:
        return sorted(self._grants, key=lambda k: (k[0], k[1], k[2] or ""))


def make_pending(call: Any, plugin: str, request: Any, digest: str) -> PendingApproval:
    return PendingApproval(
        id=f"appr_{new_id()}",
        call=call,
        plugin=plugin,
        request=request,
        digest=digest,
        expires_at=time.time() + request.timeout_s,
    )


def ask(approver: Approver | None, pending: PendingApproval) -> Pipeline[Resolution]:
    """Ask ``approver`` and turn whatever happens into a :class:`Resolution` (never raises)."""
    if approver is None:
        return Resolution("deny", NO_ROUTE)
    request = pending.request
    try:
        if inspect.iscoroutinefunction(approver) or inspect.iscoroutinefunction(
            getattr(approver, "__call__", None)  # noqa: B004 - async callable objects
        ):
            raw = yield AwaitIt(cast(Awaitable[Any], approver(pending)), request.timeout_s)
        else:
            # The approver may block on a human; run it where its timeout can be enforced.
            raw = yield RunInThread(approver, (pending,), request.timeout_s)
            if inspect.isawaitable(raw):
                raw = yield AwaitIt(raw, max(0.001, pending.expires_at - time.time()))
    except TimedOut:
        return Resolution("deny", TIMED_OUT)
    except ApprovalUnavailable as exc:
        return Resolution("deny", f"Approval unavailable ({exc})")
    except Exception as exc:
        return Resolution("deny", f"Approval failed: {type(exc).__name__}: {exc}")
    if time.time() > pending.expires_at + 0.5:
        return Resolution("deny", TIMED_OUT)
    try:
        decision, reason, by = _normalise(raw)
    except Exception as exc:  # a mapping that raises while it is read
        return Resolution("deny", f"Approval failed: {type(exc).__name__}: {exc}")
    if decision not in DECISIONS or decision not in request.allowed_decisions:
        shown = decision if decision is not None else type(raw).__name__
        return Resolution("deny", f"{DENIED_BY_USER} (decision {shown!r} is not allowed)", by=by)
    if decision == "deny":
        return Resolution(
            "deny", f"{DENIED_BY_USER}: {reason}" if reason else DENIED_BY_USER, by=by
        )
    return Resolution(cast(Decision, decision), reason, by=by)
