"""``[agents]``: how coding agents' hooks (``toolhooks hook AGENT``) run through the runtime."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEADLINE_S = 25.0
"""The default and the ceiling of ``deadline_s`` (``toolhooks.agents._project.DEADLINE_S``, which
the stdlib hook client reads; a test keeps the two equal)."""
MAX_PAYLOAD_BYTES = 8 * 1024 * 1024
"""The default of ``max_payload_bytes``: a hook event larger than this is refused (fail closed)."""


class AgentsTable(BaseModel):
    """``[agents]`` (all keys optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sender: str | None = Field(default=None, min_length=1, max_length=256, strict=True)
    """The sender of every agent call (``[tools.by_sender]``, grants); None: the OS user."""
    on_error: Literal["deny", "allow"] = "deny"
    """When toolhooks itself fails (no runtime, a crash): deny the call (fail closed), or let the
    agent go on as if no hook were installed. A payload toolhooks cannot read is always denied."""
    wait_s: float | None = Field(default=None, ge=0, le=590, allow_inf_nan=False)
    """How long a hook waits for an approval on the queue / desk before it denies the call with
    the approval's id; None: ``[approvals] wait_s``, else the request's timeout. Cut to
    ``deadline_s`` less 5 s, so the hook answers before its deadline."""
    deadline_s: float = Field(default=DEADLINE_S, ge=0.5, le=DEADLINE_S, allow_inf_nan=False)
    """How long ``toolhooks hook`` may take before it refuses the call itself: it only goes
    down, since the default is under the shortest hook timeout an agent documents (30 s) and an
    agent that gives up on a hook may run the call. An approval waits at most this, less 5 s."""
    ask_agent: bool = True
    """Let an agent with its own permission prompt (Claude Code, Gemini CLI) ask its user when an
    approval allows ``allow-once``; False: always the ``[approvals]`` route."""
    idle_timeout_s: float = Field(default=900.0, gt=0, allow_inf_nan=False)
    """``toolhooks agentd``: the daemon exits after this long without a hook."""
    max_payload_bytes: int = Field(default=MAX_PAYLOAD_BYTES, ge=1024, strict=True)
    """A hook event larger than this is refused in the agent's protocol (and logged)."""
    http_port: int | None = Field(default=None, ge=0, le=65535, strict=True)
    """``toolhooks agentd`` also answers Claude Code's ``type: "http"`` hook on
    ``http://127.0.0.1:PORT/hook/claude-code`` (token in ``.toolhooks/agentd.token``); 0: any
    free port, written to ``.toolhooks/agentd.port``. None: no HTTP listener."""
