"""The approval store: what a paused call needs to be finished later, in this process or another.

One small interface (:class:`ApprovalStore`), kept in memory (``_memory.py``), in a SQLite
file (``_sqlite.py``) or in Redis (``_redis.py``). A row goes ``pending`` -> ``decided`` (someone
answered out of band: the CLI, the desk, another process) -> ``consumed`` (a resume took it,
exactly once). A pending row past ``expires_at`` reads as ``expired``. allow-always grants live
in the same store. Over 300 lines on purpose: the contract is the records, the interface and the
rules every backend shares (matching, retention), so the three backends cannot drift apart.
"""

import builtins
import json
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, runtime_checkable

from .._public import public
from ..records._errors import ToolhooksError
from ..records._frozen import thaw
from ..records._models import ToolCall
from ..records._results import ApprovalRequest, PendingApproval
from ..records._sender import Sender

State = Literal["pending", "decided", "consumed", "expired"]
STATES: tuple[State, ...] = ("pending", "decided", "consumed", "expired")
DEFAULT_DEFER_TTL_S = 86_400.0
DEFAULT_RETENTION_S = 7 * 86_400.0
SHORT_ID_CHARS = 8


class StoreError(ToolhooksError):
    """The store cannot be used (a file that is not a database, a directory); says which."""


class AmbiguousId(ToolhooksError, LookupError):
    """A short id or prefix that matches more than one approval; ``matches`` lists them."""

    def __init__(self, key: str, matches: Iterable[str]) -> None:
        self.key = key
        self.matches = sorted(matches)
        super().__init__(f"approval id {key!r} is ambiguous: it matches {', '.join(self.matches)}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle and copy rebuild an exception as ``type(self)(*self.args)``: args holds the text.
        return type(self), (self.key, self.matches), self.__dict__


def new_approval_id() -> tuple[str, str]:
    """A random id (no shared per-process prefix) and its short handle: its first characters."""
    token = secrets.token_hex(16)
    return f"appr_{token}", token[:SHORT_ID_CHARS]


def id_key(key: str) -> str:
    """The part of an approval id a user may type a prefix of (without ``appr_``)."""
    return key[5:] if key.startswith("appr_") else key


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredApproval:
    """One approval as the store keeps it; JSON-shaped values only (params are plain dicts)."""

    id: str
    short_id: str
    call_id: str
    trace_id: str
    session_id: str | None = None
    run_id: str | None = None
    agent_id: str | None = None
    sender: dict[str, Any] | None = None
    origin: str = "agent"
    context_window_tokens: int | None = None
    tool: str
    params: dict[str, Any]
    proposed_params: dict[str, Any] = field(default_factory=dict)
    rewritten_by: dict[str, str] = field(default_factory=dict)
    schema: dict[str, Any] | None = None
    plugin: str
    title: str
    description: str
    severity: str = "warning"
    timeout_s: float = 120.0
    allowed_decisions: tuple[str, ...] = ("allow-once", "allow-always", "deny")
    digest: str
    created_at: float
    expires_at: float
    state: State = "pending"
    decision: str | None = None
    decided_params: dict[str, Any] | None = None
    decided_by: str | None = None
    decided_at: float | None = None
    reason: str | None = None
    consumed_at: float | None = None
    quiet: list[dict[str, Any]] = field(default_factory=list)
    """The handlers of the first screening that had no opinion: a resume in another process
    still lists them in the call's ``tool.injected``."""
    policy: dict[str, Any] | None = None
    """The team policy that governs this approval, as it was when asked (``approvals._team``):
    who may vote, the quorum, escalation, expiry. None: one person decides."""

    @property
    def sender_id(self) -> str | None:
        return None if self.sender is None else self.sender.get("id")

    def effective(self, now: float | None = None) -> "StoredApproval":
        """This row as it reads at ``now``: a pending row past its deadline is expired."""
        if self.state == "pending" and self.expires_at <= (time.time() if now is None else now):
            return replace(self, state="expired")
        return self

    def request(self) -> ApprovalRequest:
        return ApprovalRequest.model_validate(
            {
                "title": self.title,
                "description": self.description,
                "severity": self.severity,
                "timeout_s": float(self.timeout_s),
                "allowed_decisions": self.allowed_decisions,
            }
        )

    def call(self, spec: Any = None) -> ToolCall:
        """The paused call with its frozen params, under its own ids."""
        return ToolCall(
            name=self.tool,
            params=self.params,
            id=self.call_id,
            session_id=self.session_id,
            run_id=self.run_id,
            trace_id=self.trace_id,
            agent_id=self.agent_id,
            sender=None if self.sender is None else Sender.coerce(self.sender),
            origin="external" if self.origin == "external" else "agent",
            context_window_tokens=self.context_window_tokens,
            spec=spec,
        )

    def pending(self, spec: Any = None) -> PendingApproval:
        return PendingApproval(
            id=self.id,
            short_id=self.short_id,
            call=self.call(spec),
            plugin=self.plugin,
            request=self.request(),
            digest=self.digest,
            expires_at=self.expires_at,
            proposed_params=dict(self.proposed_params),
            rewritten_by=dict(self.rewritten_by),
            schema=self.schema,
        )

    def to_dict(self) -> dict[str, Any]:
        return {name: _plain(getattr(self, name)) for name in self.__dataclass_fields__}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def stored_from_pending(
    pending: PendingApproval,
    *,
    expires_at: float,
    quiet: Iterable[Mapping[str, Any]] = (),
    policy: dict[str, Any] | None = None,
) -> StoredApproval:
    """The row that records ``pending`` (deferred: its own, longer, deadline)."""
    call, request = pending.call, pending.request
    sender = None if call.sender is None else dict(call.sender.__dict__)
    if sender is not None:
        sender["roles"] = list(sender.get("roles", ()))
    return StoredApproval(
        id=pending.id,
        short_id=pending.short_id,
        call_id=call.id,
        trace_id=call.trace_id,
        session_id=call.session_id,
        run_id=call.run_id,
        agent_id=call.agent_id,
        sender=sender,
        origin=call.origin,
        context_window_tokens=call.context_window_tokens,
        tool=call.name,
        params=thaw(call.params),
        proposed_params=thaw(pending.proposed_params),
        rewritten_by=dict(pending.rewritten_by),
        schema=pending.schema,
        plugin=pending.plugin,
        title=request.title,
        description=request.description,
        severity=request.severity,
        timeout_s=request.timeout_s,
        allowed_decisions=tuple(request.allowed_decisions),
        digest=pending.digest,
        created_at=time.time(),
        expires_at=expires_at,
        quiet=[dict(entry) for entry in quiet],
        policy=policy,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Grant:
    """A remembered allow-always: (plugin, tool, sender); session too when there is no sender."""

    id: str
    plugin: str
    tool: str
    sender: str | None
    session: str | None
    created_at: float
    by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def new(
        cls, *, plugin: str, tool: str, sender: str | None, session: str | None, by: str | None
    ) -> "Grant":
        """A fresh grant: a sender's grant holds in every session, a sender-less one in its own."""
        return cls(
            id=f"grant_{secrets.token_hex(8)}",
            plugin=plugin,
            tool=tool,
            sender=sender,
            session=None if sender is not None else session,
            created_at=time.time(),
            by=by,
        )


def grants_from_json(values: Iterable[str | bytes]) -> list[Grant]:
    """Grants stored as JSON records (SQLite, Redis), oldest first: the order listings show."""
    return sorted((Grant(**json.loads(v)) for v in values), key=lambda g: (g.created_at, g.id))


def grant_matches(grant: Grant, plugin: str, tool: str, sender: str | None,
                  session: str | None) -> bool:  # fmt: skip
    """A sender's grant covers that sender anywhere; a sender-less one only its own session."""
    if grant.plugin != plugin or grant.tool != tool or grant.sender != sender:
        return False
    return sender is not None or grant.session == session


VoteName = Literal["allow", "deny", "edit"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Vote:
    """One person's vote on one approval, bound to the digest of the params they saw."""

    approval_id: str
    person: str
    decision: VoteName
    digest: str
    channel: str
    """How they proved it was them: ``desk``, ``cli``, ``slack``, ``approver``."""
    at: float
    reason: str | None = None
    params: dict[str, Any] | None = None
    """An ``edit`` vote's params: the edited call is a new approval, voted on afresh."""

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True, kw_only=True)
class Tally:
    """What a vote did: ``counted`` (new: not that person's second vote), ``decided`` (it made the
    decision: a deny, an edit, or the allow that met the quorum), the row and all votes after it.
    ``refused`` says why nothing changed (the approval is closed, or the vote is for other
    params)."""

    row: StoredApproval
    votes: tuple[Vote, ...]
    counted: bool = False
    decided: bool = False
    refused: str | None = None


def votes_from_json(values: Iterable[str | bytes]) -> builtins.list[Vote]:
    """Votes stored as JSON (SQLite, Redis), in the order they were cast."""
    return sorted((Vote(**json.loads(v)) for v in values), key=lambda v: (v.at, v.person))


def quorum_decision(votes: Iterable[Vote], quorum: int) -> tuple[str, str, str | None] | None:
    """(decision, by, reason) once ``votes`` decide, else None: a deny or an edit decides at once,
    allows when ``quorum`` distinct people cast one (by: their names, sorted)."""
    allowed: builtins.list[str] = []
    for vote in votes:
        if vote.decision == "deny":
            return "deny", vote.person, vote.reason
        if vote.decision == "edit":
            return "edit", vote.person, vote.reason
        allowed.append(vote.person)
    if len(set(allowed)) >= quorum:
        return "allow-once", ", ".join(sorted(set(allowed))), None
    return None


def closed_reason(row: StoredApproval, vote: Vote) -> str | None:
    """Why ``vote`` cannot count on ``row`` whatever else is true, or None."""
    if row.digest != vote.digest:
        return (
            f"approval {row.short_id} is for other params (digest {row.digest[:12]}, the vote "
            f"is for {vote.digest[:12]}): a vote counts only for exactly what its voter saw"
        )
    if row.state == "expired":
        return f"approval {row.short_id} expired"
    if row.state != "pending":
        return f"approval {row.short_id} was already decided: {row.decision} by {row.decided_by}"
    return None


@runtime_checkable
class ApprovalStore(Protocol):
    """Where pending approvals, their decisions and allow-always grants live."""

    def add(self, approval: StoredApproval) -> None: ...

    def get(self, key: str) -> StoredApproval | None: ...

    def for_call(self, call_id: str) -> StoredApproval | None: ...

    def reusable(self, digest: str, plugin: str) -> StoredApproval | None: ...

    def list(
        self, *, states: Iterable[str] | None = None, limit: int = 200
    ) -> builtins.list[StoredApproval]: ...

    def decide(
        self,
        approval_id: str,
        decision: str,
        *,
        params: Mapping[str, Any] | None = None,
        by: str | None = None,
        reason: str | None = None,
    ) -> StoredApproval | None: ...

    def consume(self, approval_id: str) -> StoredApproval | None: ...

    def wait(self, approval_id: str, timeout_s: float) -> StoredApproval | None: ...

    def grant(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None, by: str | None
    ) -> None: ...

    def is_granted(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None
    ) -> bool: ...

    def grants(self) -> builtins.list[Grant]: ...

    def revoke(
        self,
        *,
        grant_id: str | None = None,
        plugin: str | None = None,
        tool: str | None = None,
        sender: str | None = None,
    ) -> int: ...

    def purge(self, now: float | None = None) -> int: ...

    def close(self) -> None: ...

    def vote(self, vote: Vote, *, quorum: int) -> Tally | None:
        """Record ``vote`` (one per person) and, in the same atomic step, decide the approval
        when the votes do (``quorum_decision``); None: no such approval."""
        ...

    def votes(self, approval_id: str) -> builtins.list[Vote]:
        """The votes on one approval, in the order they were cast."""
        ...

    def claim(self, key: str, ttl_s: float, value: str = "1") -> bool:
        """True for the first claim of ``key`` among every process sharing the store (for
        ``ttl_s``), which keeps ``value`` with it: an escalation that fires once, a Slack request
        seen once, where a Slack message is."""
        ...

    def claimed(self, key: str) -> str | None:
        """The value a live claim of ``key`` keeps, or None."""
        ...


def revoke_matches(grant: Grant, grant_id: str | None, plugin: str | None, tool: str | None,
                   sender: str | None) -> bool:  # fmt: skip
    """None matches anything; a grant id may be given as a unique prefix by the caller."""
    return (
        (grant_id is None or grant.id == grant_id)
        and (plugin is None or grant.plugin == plugin)
        and (tool is None or grant.tool == tool)
        and (sender is None or grant.sender == sender)
    )


def past_retention(row: StoredApproval, now: float, retention_s: float) -> bool:
    """A decided, consumed or expired row whose last change is older than the retention."""
    row = row.effective(now)
    if row.state == "pending":
        return False
    last = max(row.consumed_at or 0.0, row.decided_at or 0.0, row.expires_at, row.created_at)
    if row.state == "decided":
        last = max(row.decided_at or 0.0, row.created_at)
    return last + retention_s <= now


public("toolhooks", AmbiguousId, ApprovalStore, Grant, StoredApproval, StoreError)
