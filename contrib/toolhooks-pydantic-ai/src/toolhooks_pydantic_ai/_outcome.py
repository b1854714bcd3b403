"""An Outcome in PydanticAI's terms: the tool's return value, a failure the model reads
(``ToolFailed``), or a deferral a human finishes (``ApprovalRequired``)."""

from __future__ import annotations

from typing import Any

from pydantic_ai.exceptions import ApprovalRequired, ToolFailed
from toolhooks import Outcome

from ._approvals import METADATA_KEY, approval_metadata


def deliver(outcome: Outcome, raw: list[Any]) -> Any:
    """The Outcome in PydanticAI's terms: a return value, a failure, or a deferral."""
    if outcome.status == "pending":
        assert outcome.pending is not None
        raise ApprovalRequired(metadata={METADATA_KEY: approval_metadata(outcome.pending)})
    if not outcome.ok:
        raise ToolFailed(outcome.content)
    # A text result is its own content. Any other value that no hook touched is handed back as it
    # is, for PydanticAI to render its own way (models, multimodal parts); once a hook changed
    # anything, the model gets exactly the text toolhooks settled on.
    untouched = not (outcome.content_changed or outcome.notes or outcome.truncated)
    if raw and untouched and outcome.value is raw[0] and not isinstance(raw[0], str):
        return raw[0]
    return outcome.content
