"""``ApprovalRequest``: a hook's request that a human approve the call before it runs.

A plain record with hand checks, not a pydantic model: a pydantic class costs every process
that imports the records about 10 M instructions to create, and the first one built in a process
about 100 M more (pydantic's plugin scan; callgrind), which a command-line hook pays on every
tool call. It keeps the model's interface that callers use (keyword construction with the same
names and aliases, ``model_validate``, ``model_construct``, ``model_dump``; frozen; equal by
value) and its rules; a bad field raises :class:`ApprovalRequestError`, a ``ValueError`` that
names the field, with pydantic's wording.
"""

import math
from collections.abc import Mapping
from typing import Any, Literal

from .._public import public

DecisionName = Literal["allow-once", "allow-always", "deny", "edit", "defer"]
"""What an approver may answer. "defer" is always allowed; "edit" only when the request lists it."""
DECISIONS: tuple[DecisionName, ...] = ("allow-once", "allow-always", "deny", "edit", "defer")
DEFAULT_ALLOWED: tuple[DecisionName, ...] = ("allow-once", "allow-always", "deny")
Severity = Literal["info", "warning", "critical"]
_SEVERITIES = ("info", "warning", "critical")
_FIELDS = (
    "title",
    "description",
    "severity",
    "timeout_s",
    "allowed_decisions",
    "timeout_behavior",
)
_ALIASES = {
    "timeoutS": "timeout_s",
    "allowedDecisions": "allowed_decisions",
    "timeoutBehavior": "timeout_behavior",
}
_DEFAULTS: dict[str, Any] = {
    "severity": "warning",
    "timeout_s": 120.0,
    "allowed_decisions": DEFAULT_ALLOWED,
    "timeout_behavior": "deny",
}


class ApprovalRequestError(ValueError):
    """A field of an approval request that breaks its rules; ``field`` is its name ("" for the
    request as a whole)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def _choices(values: tuple[str, ...]) -> str:
    quoted = [f"'{value}'" for value in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _text(data: Mapping[str, Any], name: str, longest: int) -> str:
    if name not in data:
        raise ApprovalRequestError(name, "Field required")
    value = data[name]
    if not isinstance(value, str):
        raise ApprovalRequestError(name, "Input should be a valid string")
    if not value:
        raise ApprovalRequestError(name, "String should have at least 1 character")
    if len(value) > longest:
        raise ApprovalRequestError(name, f"String should have at most {longest} characters")
    return str(value)


def _timeout(value: Any) -> float:
    # Strict, as the model was: a number, not a bool or a numeric string.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ApprovalRequestError("timeout_s", "Input should be a valid number")
    seconds = float(value)
    if math.isnan(seconds):  # NaN would compare false everywhere and never time out
        raise ApprovalRequestError("timeout_s", "Value error, timeout_s must be a number")
    return min(600.0, max(1.0, seconds))


def _decisions(value: Any) -> tuple[DecisionName, ...]:
    if not isinstance(value, (list, tuple)):
        raise ApprovalRequestError("allowed_decisions", "Input should be a valid tuple")
    for index, item in enumerate(value):
        if item not in DECISIONS or not isinstance(item, str):
            raise ApprovalRequestError(
                f"allowed_decisions.{index}", f"Input should be {_choices(DECISIONS)}"
            )
    if not value:
        raise ApprovalRequestError(
            "allowed_decisions", "Tuple should have at least 1 item after validation, not 0"
        )
    return tuple(value)


def _named(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with aliases resolved and ``timeoutMs`` (OpenClaw's milliseconds) in seconds."""
    named: dict[str, Any] = {}
    for key, value in data.items():
        name = _ALIASES.get(key, key) if isinstance(key, str) else key
        if key == "timeoutMs":
            continue
        if name not in _FIELDS:
            raise ApprovalRequestError(str(key), "Extra inputs are not permitted")
        named[name] = value
    if "timeoutMs" in data:
        if "timeout_s" in named:
            raise ApprovalRequestError(
                "", "Value error, give either timeout_s or timeoutMs, not both"
            )
        milliseconds = data["timeoutMs"]
        if isinstance(milliseconds, (int, float)) and not isinstance(milliseconds, bool):
            named["timeout_s"] = milliseconds / 1000
        else:
            named["timeout_s"] = milliseconds
    return named


class ApprovalRequest:
    """A hook's request that a human approve the call before it runs.

    ``timeout_s``: how long an approver may take while the call waits (clamped to 1 to 600 s;
    ``timeoutS``, or ``timeoutMs`` in milliseconds); then "Approval timed out". A deferred
    approval waits ``[approvals] defer_ttl_s`` instead. ``allowed_decisions``: what the approver
    may answer; any other answer is a deny ("edit" only when listed; "defer" always).
    ``timeout_behavior``: only "deny" exists (accepted for OpenClaw compatibility).
    """

    __slots__ = _FIELDS

    title: str
    description: str
    severity: Severity
    timeout_s: float
    allowed_decisions: tuple[DecisionName, ...]
    timeout_behavior: Literal["deny"]

    def __init__(self, **data: Any) -> None:
        named = _named(data)
        values = {
            "title": _text(named, "title", 80),
            "description": _text(named, "description", 512),
            "severity": named.get("severity", "warning"),
            "timeout_s": _timeout(named.get("timeout_s", 120.0)),
            "allowed_decisions": _decisions(named.get("allowed_decisions", DEFAULT_ALLOWED)),
            "timeout_behavior": named.get("timeout_behavior", "deny"),
        }
        if values["severity"] not in _SEVERITIES or not isinstance(values["severity"], str):
            raise ApprovalRequestError("severity", f"Input should be {_choices(_SEVERITIES)}")
        if values["timeout_behavior"] != "deny" or not isinstance(values["timeout_behavior"], str):
            raise ApprovalRequestError("timeout_behavior", "Input should be 'deny'")
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def model_validate(cls, data: Any) -> "ApprovalRequest":
        """A checked request from a mapping (an ``ApprovalRequest`` is returned as it is)."""
        if isinstance(data, cls):
            return data
        if not isinstance(data, Mapping):
            raise ApprovalRequestError(
                "", "Input should be a valid dictionary or instance of ApprovalRequest"
            )
        return cls(**{str(key): value for key, value in data.items()})

    @classmethod
    def model_construct(cls, **values: Any) -> "ApprovalRequest":
        """A request made without any check (the fields given, defaults for the rest)."""
        made = object.__new__(cls)
        for name in _FIELDS:
            if name in values or name in _DEFAULTS:
                object.__setattr__(made, name, values.get(name, _DEFAULTS.get(name)))
        return made

    def model_dump(self) -> dict[str, Any]:
        return {name: getattr(self, name, None) for name in _FIELDS}

    def __setattr__(self, name: str, value: Any) -> None:
        raise ApprovalRequestError(name, "Instance is frozen")

    def __delattr__(self, name: str) -> None:
        raise ApprovalRequestError(name, "Instance is frozen")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    def __hash__(self) -> int:
        return hash(tuple(self.model_dump().values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.model_dump().items())
        return f"ApprovalRequest({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restored, (self.model_dump(),))


def _restored(values: dict[str, Any]) -> ApprovalRequest:
    return ApprovalRequest.model_construct(**values)


public("toolhooks", ApprovalRequest)
