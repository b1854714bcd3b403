"""``[plugins.workspace_guard]``: the model that validates the table, imported only when a table
with keys is given or someone reads ``WorkspaceGuard.Config`` (see ``_guard``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ._guard import DEFAULT_RISKY, DEFAULT_SECRETS, DEFAULT_WORKSPACE, REPLACEMENT


class WorkspaceGuardConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workspace: str = Field(default=DEFAULT_WORKSPACE, min_length=1)
    risky_commands: list[str] = Field(default_factory=lambda: list(DEFAULT_RISKY))
    redact: list[str] = Field(default_factory=lambda: list(DEFAULT_SECRETS))
    replacement: str = REPLACEMENT
