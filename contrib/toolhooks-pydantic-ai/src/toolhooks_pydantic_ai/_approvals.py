"""toolhooks approvals in PydanticAI's terms: a deferred approval out, a deferred result back in.

A pending toolhooks approval leaves the run as ``ApprovalRequired`` whose metadata (under the
``"toolhooks"`` key of ``DeferredToolRequests.metadata[tool_call_id]``) is what a human must be
shown. The human's answer comes back as ``ToolApproved`` (allow), ``ToolApproved(override_args=...)``
(edit and allow) or ``ToolDenied`` (deny); :func:`answer_approvals` builds those from toolhooks
decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied
from pydantic_core import to_jsonable_python
from toolhooks import PendingApproval

METADATA_KEY = "toolhooks"
"""The key under which toolhooks puts (and reads) its part of a deferred call's metadata."""

DEFAULT_DENIAL = ToolDenied().message
"""The message PydanticAI gives a bare ``ToolDenied()``: not a reason a human wrote."""

Answer = Mapping[str, Any] | str


def approval_metadata(pending: PendingApproval) -> dict[str, Any]:
    """What a human deciding this approval must see, as JSON-compatible values."""
    request = pending.request
    view: dict[str, Any] = {
        "approval_id": pending.id,
        "short_id": pending.short_id,
        "tool": pending.call.name,
        "params": pending.call.params,
        "proposed_params": pending.proposed_params,
        "rewritten_by": pending.rewritten_by,
        "digest": pending.digest,
        "plugin": pending.plugin,
        "title": request.title,
        "description": request.description,
        "severity": request.severity,
        "allowed_decisions": list(request.allowed_decisions),
        "expires_at": pending.expires_at,
        "schema": pending.schema,
    }
    converted = to_jsonable_python(view)
    assert isinstance(converted, dict)
    return converted


def approval_result(answer: Answer) -> tuple[ToolApproved | ToolDenied, dict[str, Any] | None]:
    """A toolhooks decision as PydanticAI's approval result, plus the metadata to send with it.

    ``answer`` is a decision string or ``{"decision": ..., "params": ..., "by": ..., "reason": ...}``.
    allow-once -> ``ToolApproved()``; edit -> ``ToolApproved(override_args=params)``; deny ->
    ``ToolDenied(reason)``; allow-always -> ``ToolApproved()`` with the decision in the metadata,
    since PydanticAI has no word for it. ``by`` and ``reason`` travel in the metadata too.
    """
    fields: Mapping[str, Any] = {"decision": answer} if isinstance(answer, str) else answer
    decision = fields.get("decision")
    by, reason, params = fields.get("by"), fields.get("reason"), fields.get("params")
    extra = {key: value for key, value in (("by", by), ("reason", reason)) if value is not None}
    if decision == "deny":
        return ToolDenied(reason) if isinstance(reason, str) and reason else ToolDenied(), None
    if decision == "edit":
        if not isinstance(params, Mapping):
            raise ValueError("an 'edit' answer needs 'params': the edited arguments as an object")
        approved = ToolApproved(override_args=dict(params))
    elif decision == "allow-once":
        approved = ToolApproved()
    elif decision == "allow-always":
        approved, extra = ToolApproved(), {**extra, "decision": "allow-always"}
    else:
        raise ValueError(
            f"unknown approval decision {decision!r} (expected allow-once, allow-always, deny, edit)"
        )
    return approved, ({METADATA_KEY: extra} if extra else None)


def answer_approvals(
    requests: DeferredToolRequests, answer: Callable[[dict[str, Any]], Answer]
) -> DeferredToolResults:
    """Ask ``answer`` about every toolhooks approval in ``requests``; PydanticAI's results back.

    ``answer`` receives the approval's metadata (title, description, the frozen params, digest,
    allowed decisions, ...) and returns a decision. Deferred calls that toolhooks did not make
    (a tool's own ``requires_approval``, external calls) are left for the caller to add.
    """
    results = DeferredToolResults()
    for part in requests.approvals:
        view = requests.metadata.get(part.tool_call_id, {}).get(METADATA_KEY)
        if not isinstance(view, dict):
            continue
        approval, metadata = approval_result(answer(view))
        results.approvals[part.tool_call_id] = approval
        if metadata is not None:
            results.metadata[part.tool_call_id] = metadata
    return results


def resume_decision(
    metadata: Any, params: dict[str, Any], frozen: Mapping[str, Any], proposed: Mapping[str, Any]
) -> tuple[str, dict[str, Any] | None, str | None, str | None]:
    """(decision, edited params or None, by, reason) for a call PydanticAI approved.

    PydanticAI re-validates the call before it runs again, so ``params`` are either the model's
    own arguments (approved as they were), the frozen params toolhooks showed, or an editor's
    ``override_args``: only the last is an edit.
    """
    extra = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
    extra = extra if isinstance(extra, Mapping) else {}
    by = extra.get("by") if isinstance(extra.get("by"), str) else None
    reason = extra.get("reason") if isinstance(extra.get("reason"), str) else None
    if params == dict(frozen) or params == dict(proposed):
        decision = "allow-always" if extra.get("decision") == "allow-always" else "allow-once"
        return decision, None, by, reason
    return "edit", params, by, reason
