"""The workspace guard plugin."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from toolhooks import AfterToolCallResult, BeforeToolCallResult, ToolCall, ToolResult, hookimpl
from toolhooks.kit import ConfigOnRead, LazyConfig

if TYPE_CHECKING:
    from ._config import WorkspaceGuardConfig

FILE_TOOLS = ("read", "write", "edit", "apply_patch")
DEFAULT_WORKSPACE = "/workspace"
DEFAULT_RISKY = (r"\brm\s+-[a-z]*r[a-z]*f", r"curl[^|]*\|\s*(ba)?sh", r"\bsudo\b")
DEFAULT_SECRETS = (
    r"sk-[A-Za-z0-9_-]{16,}",  # OpenAI-style keys
    r"AKIA[0-9A-Z]{16}",  # AWS access key ids
    r"ghp_[A-Za-z0-9]{30,}",  # GitHub tokens
)
REPLACEMENT = "[REDACTED]"


class WorkspaceGuard:
    """Rewrite file paths into the workspace, ask before risky commands, redact secrets.

    Installed, it is loaded into every runtime of the environment: so it does nothing at all
    until ``[plugins.workspace_guard]`` sets at least one of its keys (``workspace = "/srv/app"``
    is enough; the other keys keep their defaults).
    """

    priority = 500

    # The pydantic model (``_config``) is imported only when a table with keys is given or
    # someone reads ``WorkspaceGuard.Config``: installed, this plugin is loaded into every
    # runtime, and an unconfigured one (inert) should not cost each process a model class.
    Config = LazyConfig["WorkspaceGuardConfig"](f"{__package__}._config", "WorkspaceGuardConfig")
    if TYPE_CHECKING:
        config: WorkspaceGuardConfig
    else:
        config = ConfigOnRead()  # WorkspaceGuard(): the default model, built if read

    def __init__(self, config: WorkspaceGuardConfig | None = None) -> None:
        self.active = False
        """False until configured: no key of its table was set."""
        self.workspace = DEFAULT_WORKSPACE
        self._risky: list[re.Pattern[str]] = []
        self._secrets: re.Pattern[str] | None = None
        if config is None:
            return  # inert, on the defaults: no model built
        self.config = config
        if not config.model_fields_set:
            return
        self.active = True
        self.workspace = posixpath.normpath(config.workspace)
        self._risky = [re.compile(p) for p in config.risky_commands]
        self._secrets = (
            re.compile("|".join(f"(?:{p})" for p in config.redact)) if config.redact else None
        )

    @hookimpl(tools=["exec", *FILE_TOOLS])
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        if not self.active:
            return None
        if call.name == "exec":
            command = call.params.get("command")
            if isinstance(command, str) and any(p.search(command) for p in self._risky):
                return BeforeToolCallResult(
                    require_approval={
                        "title": "Run a risky shell command?",
                        "description": f"The agent wants to run: {command[:400]}",
                        "severity": "critical",
                    }
                )
            return None
        path = call.params.get("path")
        if not isinstance(path, str):
            return None
        inside = posixpath.normpath(posixpath.join(self.workspace, path))
        if inside != self.workspace and not inside.startswith(self.workspace.rstrip("/") + "/"):
            return BeforeToolCallResult(
                block=True, block_reason=f"Path {path!r} is outside the workspace {self.workspace}"
            )
        if inside != path:
            return BeforeToolCallResult(params={"path": inside})
        return None

    @hookimpl
    def after_tool_call(self, result: ToolResult) -> AfterToolCallResult | None:
        if not self.active or self._secrets is None or result.status != "ok":
            return None
        cleaned, count = self._secrets.subn(self.config.replacement, result.content)
        if not count:
            return None
        return AfterToolCallResult(
            content=cleaned, note=f"[workspace_guard] redacted {count} secret(s) from the result"
        )

    def describe(self) -> dict[str, Any]:
        return {
            "active": self.active,
            "workspace": self.workspace,
            "risky_commands": self.config.risky_commands,
        }
