"""toolhooks for PydanticAI: ``Agent(..., capabilities=[ToolhooksCapability(runtime)])``."""

from ._approvals import METADATA_KEY, answer_approvals, approval_metadata, approval_result
from ._capability import PASSTHROUGH, GuardedToolset, ToolhooksCapability
from ._params import json_params

__all__ = [
    "METADATA_KEY",
    "PASSTHROUGH",
    "GuardedToolset",
    "ToolhooksCapability",
    "answer_approvals",
    "approval_metadata",
    "approval_result",
    "json_params",
]
