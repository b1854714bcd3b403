"""What hooks return, what after-hooks see, and what ``Runtime.call`` gives back.

Over 300 lines on purpose: these are the records of one protocol (a hook's answer, the approval
it asks for, the outcome the caller reads), each small, read together when writing a plugin.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._public import public
from ._approval_request import DECISIONS as DECISIONS
from ._approval_request import DEFAULT_ALLOWED as DEFAULT_ALLOWED
from ._approval_request import ApprovalRequest as ApprovalRequest
from ._approval_request import ApprovalRequestError
from ._approval_request import DecisionName as DecisionName
from ._errors import HookResultError
from ._methods import FACTORY, dataclass_methods
from ._models import UNSET, Status, ToolCall, slot_setters


class ToolError(Exception):
    """Raised by a tool: the call ends with status "error" and exactly ``content`` for the model."""

    def __init__(self, content: str) -> None:
        super().__init__(content)
        self.content = str(content)


@dataclass_methods(frozen=False)
@dataclass(slots=True, init=False, repr=False, eq=False)
class BeforeToolCallResult:
    """A before_tool_call decision. Every field left at its default means "no opinion"."""

    block: bool = False
    block_reason: str | None = None
    params: Mapping[str, Any] | None = None
    require_approval: ApprovalRequest | Mapping[str, Any] | None = None

    def __init__(
        self,
        block: bool = False,
        block_reason: str | None = None,
        params: Mapping[str, Any] | None = None,
        require_approval: ApprovalRequest | Mapping[str, Any] | None = None,
    ) -> None:
        # The public records' __init__ is written in the class: a generated one is compiled
        # from source at every start (docs/decisions/plain-records.md).
        self.block = block
        self.block_reason = block_reason
        self.params = params
        self.require_approval = require_approval


@dataclass_methods(frozen=False)
@dataclass(slots=True, init=False, repr=False, eq=False)
class AfterToolCallResult:
    """An after_tool_call change to the result. ``value`` is UNSET unless given."""

    content: str | None = None
    value: Any = UNSET
    note: str | None = None
    truncated: bool | None = None
    artifact: str | None = None
    labels: tuple[str, ...] | None = None
    """Labels for the result (``"secret"``, ``"outside"``): a scanner says what it found, and
    rules act on it (``session`` and ``from`` conditions). Given labels add up across handlers."""

    def __init__(
        self,
        content: str | None = None,
        value: Any = UNSET,
        note: str | None = None,
        truncated: bool | None = None,
        artifact: str | None = None,
        labels: tuple[str, ...] | None = None,
    ) -> None:
        self.content = content
        self.value = value
        self.note = note
        self.truncated = truncated
        self.artifact = artifact
        self.labels = labels


_BEFORE_KEYS = {
    "block": "block",
    "block_reason": "block_reason",
    "blockReason": "block_reason",
    "params": "params",
    "require_approval": "require_approval",
    "requireApproval": "require_approval",
}
_AFTER_KEYS = {"content", "value", "note", "truncated", "artifact", "labels"}
LABEL_LIMIT = 128
"""The longest label name a hook may give."""


def coerce_before(value: Any) -> BeforeToolCallResult | None:
    """Normalise a before_tool_call return value, or raise :class:`HookResultError`."""
    if value is None:
        return None
    if isinstance(value, BeforeToolCallResult):
        result = value
    elif isinstance(value, Mapping):
        fields: dict[str, Any] = {}
        for key, item in value.items():
            target = _BEFORE_KEYS.get(key) if isinstance(key, str) else None
            if target is None:
                raise HookResultError(
                    f"unknown key {key!r} (expected block, block_reason, params, require_approval)"
                )
            fields[target] = item
        result = BeforeToolCallResult(**fields)
    else:
        raise HookResultError(
            f"returned {type(value).__name__}; expected BeforeToolCallResult, dict or None"
        )
    if type(result.block) is not bool:
        raise HookResultError(f"block must be a bool, got {type(result.block).__name__}")
    if result.block_reason is not None and not isinstance(result.block_reason, str):
        raise HookResultError("block_reason must be a string")
    if result.params is not None and type(result.params) is not dict:
        if not isinstance(result.params, Mapping):
            raise HookResultError(f"params must be a mapping, got {type(result.params).__name__}")
        result.params = dict(result.params)  # read once, here: a mapping may raise on access
    request = result.require_approval
    if request is not None:
        if isinstance(request, ApprovalRequest):
            # An instance may come from model_construct() (never validated): check its fields too.
            request = request.model_dump()
        elif not isinstance(request, Mapping):
            raise HookResultError("require_approval must be an ApprovalRequest or a mapping")
        try:
            result.require_approval = ApprovalRequest.model_validate(request)
        except ApprovalRequestError as exc:
            raise HookResultError(f"require_approval.{exc.field}: {exc.message}") from None
    return result


def coerce_after(value: Any) -> AfterToolCallResult | None:
    """Normalise an after_tool_call return value, or raise :class:`HookResultError`."""
    if value is None:
        return None
    if isinstance(value, AfterToolCallResult):
        result = value
    elif isinstance(value, Mapping):
        unknown = [key for key in value if key not in _AFTER_KEYS]
        if unknown:
            raise HookResultError(
                f"unknown key {unknown[0]!r} (expected content, value, note, labels)"
            )
        result = AfterToolCallResult(**value)
    else:
        raise HookResultError(
            f"returned {type(value).__name__}; expected AfterToolCallResult, dict or None"
        )
    if result.content is not None and not isinstance(result.content, str):
        raise HookResultError(f"content must be a string, got {type(result.content).__name__}")
    if result.note is not None and not isinstance(result.note, str):
        raise HookResultError("note must be a string")
    if result.artifact is not None and not isinstance(result.artifact, str):
        raise HookResultError("artifact must be a string")
    if result.truncated is not None and type(result.truncated) is not bool:
        raise HookResultError(f"truncated must be a bool, got {type(result.truncated).__name__}")
    if result.labels is not None:
        result.labels = _labels(result.labels)
    return result


def _labels(value: Any) -> tuple[str, ...]:
    """Given labels as a tuple of distinct names; a lone string is one label."""
    if isinstance(value, str):
        value = (value,)
    elif not isinstance(value, (list, tuple, set, frozenset)):
        raise HookResultError(f"labels must be a list of strings, got {type(value).__name__}")
    for label in value:
        if not isinstance(label, str) or not label or len(label) > LABEL_LIMIT:
            raise HookResultError(
                f"labels: each is a non-empty string of at most {LABEL_LIMIT} characters,"
                f" got {label!r}"
            )
    return tuple(dict.fromkeys(value))


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, init=False, repr=False, eq=False)
class ToolResult:
    """The running result after-hooks see, read-only; earlier handlers' changes are applied.

    Assigning a field raises ``dataclasses.FrozenInstanceError`` and a JSON-like ``value`` is a
    read-only copy: a hook changes the result only through the ``AfterToolCallResult`` it
    returns, and never its ``status``.
    """

    status: Status
    value: Any = None
    content: str = ""
    error: str | None = None
    duration_ms: float | None = None
    error_kind: str | None = None
    """Why a non-ok call ended: unknown_tool, invalid_params, exception, policy, approval."""
    labels: frozenset[str] = frozenset()
    """The labels earlier after_tool_call handlers gave the result."""

    def __init__(
        self,
        status: Status,
        value: Any = None,
        content: str = "",
        error: str | None = None,
        duration_ms: float | None = None,
        error_kind: str | None = None,
        labels: frozenset[str] = frozenset(),
    ) -> None:
        # Each slot's own setter, not object.__setattr__ (as a frozen dataclass's __init__
        # does): 0.4 µs against 0.65 µs a result (timeit, idle 2-core EPYC); see Outcome.
        s_status, s_value, s_content, s_error, s_duration, s_kind, s_labels = _RESULT_SETTERS
        s_status(self, status)
        s_value(self, value)
        s_content(self, content)
        s_error(self, error)
        s_duration(self, duration_ms)
        s_kind(self, error_kind)
        s_labels(self, labels)


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class PendingApproval:
    """An approval the runtime is waiting on; ``call`` carries the frozen params.

    ``id`` is the full id, ``short_id`` a short handle a human can type. ``digest`` binds the
    approval to tool, params, sender and session. ``proposed_params`` are the params as the model
    proposed them and ``rewritten_by`` names the plugin that last wrote each changed field;
    ``schema`` is the tool's JSON Schema (for an editor), None for a tool the runtime does not know.
    """

    id: str
    short_id: str = ""
    call: ToolCall
    plugin: str
    request: ApprovalRequest
    digest: str
    expires_at: float
    proposed_params: dict[str, Any] = field(default_factory=dict)
    rewritten_by: dict[str, str] = field(default_factory=dict)
    schema: dict[str, Any] | None = None

    def __init__(
        self,
        *,
        id: str,
        short_id: str = "",
        call: ToolCall,
        plugin: str,
        request: ApprovalRequest,
        digest: str,
        expires_at: float,
        proposed_params: dict[str, Any] = FACTORY,
        rewritten_by: dict[str, str] = FACTORY,
        schema: dict[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "short_id", short_id)
        object.__setattr__(self, "call", call)
        object.__setattr__(self, "plugin", plugin)
        object.__setattr__(self, "request", request)
        object.__setattr__(self, "digest", digest)
        object.__setattr__(self, "expires_at", expires_at)
        object.__setattr__(
            self, "proposed_params", {} if proposed_params is FACTORY else proposed_params
        )
        object.__setattr__(self, "rewritten_by", {} if rewritten_by is FACTORY else rewritten_by)
        object.__setattr__(self, "schema", schema)

    def to_dict(self) -> dict[str, Any]:
        from ._frozen import thaw

        return {
            "id": self.id,
            "short_id": self.short_id,
            "call": self.call.to_dict(),
            "plugin": self.plugin,
            "request": self.request.model_dump(),
            "digest": self.digest,
            "expires_at": self.expires_at,
            "proposed_params": thaw(self.proposed_params),
            "rewritten_by": dict(self.rewritten_by),
            "schema": self.schema,
        }


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Outcome:
    """What ``Runtime.call`` returns: the decision and the text for the conversation."""

    status: Status
    content: str
    call_id: str
    trace_id: str
    tool: str = ""
    value: Any = None
    params: dict[str, Any] | None = None
    blocked_by: str | None = None
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    truncated: bool = False
    artifact: str | None = None
    approval: DecisionName | None = None
    """The decision that let the call run (None when no approval was asked)."""
    rewritten_by: dict[str, str] = field(default_factory=dict)
    """Fields a before_tool_call hook changed, with the plugin that last wrote each."""
    pending: PendingApproval | None = None
    """Status "pending": the approval to finish with ``Runtime.resume``."""
    content_changed: bool = False
    """After hooks changed the text the tool's own result rendered to (a redaction, a trim):
    an adapter must not hand the model a structured copy of the original result."""

    def __init__(
        self,
        *,
        status: Status,
        content: str,
        call_id: str,
        trace_id: str,
        tool: str = "",
        value: Any = None,
        params: dict[str, Any] | None = None,
        blocked_by: str | None = None,
        reason: str | None = None,
        notes: list[str] | None = None,
        truncated: bool = False,
        artifact: str | None = None,
        approval: DecisionName | None = None,
        rewritten_by: dict[str, str] | None = None,
        pending: PendingApproval | None = None,
        content_changed: bool = False,
    ) -> None:
        # Written by hand, with each slot's own setter: a frozen dataclass's __init__ sets every
        # field through object.__setattr__, 2.2-2.5 µs an outcome against 1.1 µs here (timeit,
        # idle 2-core EPYC), and every call makes one. The fields above stay the reference.
        (
            s_status,
            s_content,
            s_call_id,
            s_trace_id,
            s_tool,
            s_value,
            s_params,
            s_blocked_by,
            s_reason,
            s_notes,
            s_truncated,
            s_artifact,
            s_approval,
            s_rewritten_by,
            s_pending,
            s_content_changed,
        ) = _OUTCOME_SETTERS
        s_status(self, status)
        s_content(self, content)
        s_call_id(self, call_id)
        s_trace_id(self, trace_id)
        s_tool(self, tool)
        s_value(self, value)
        s_params(self, params)
        s_blocked_by(self, blocked_by)
        s_reason(self, reason)
        s_notes(self, [] if notes is None else notes)
        s_truncated(self, truncated)
        s_artifact(self, artifact)
        s_approval(self, approval)
        s_rewritten_by(self, {} if rewritten_by is None else rewritten_by)
        s_pending(self, pending)
        s_content_changed(self, content_changed)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "tool": self.tool,
            "content": self.content,
            "params": self.params,
            "blocked_by": self.blocked_by,
            "reason": self.reason,
            "notes": list(self.notes),
            "call_id": self.call_id,
            "trace_id": self.trace_id,
            "truncated": self.truncated,
            "artifact": self.artifact,
            "approval": self.approval,
            "rewritten_by": dict(self.rewritten_by),
            "pending": None if self.pending is None else self.pending.to_dict(),
            "content_changed": self.content_changed,
        }


_RESULT_SETTERS = slot_setters(ToolResult)
_OUTCOME_SETTERS = slot_setters(Outcome)


public(
    "toolhooks",
    AfterToolCallResult,
    BeforeToolCallResult,
    Outcome,
    PendingApproval,
    ToolError,
    ToolResult,
)
