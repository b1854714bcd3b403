"""Codex CLI's hook protocol (written against Codex CLI 0.171.0's hook schema).

Codex copies Claude Code's hooks (``PreToolUse`` / ``PostToolUse``, the same payload fields,
``hookSpecificOutput``) with stricter answers, taken from the JSON schemas in the 0.171 binary
(``pre-tool-use.command.output``, ``post-tool-use.command.output``) and its error messages:

- ``permissionDecision: "ask"`` is unsupported, and Codex then runs the command: toolhooks never
  answers ask here (an approval goes to the ``[approvals]`` route or is denied with its id);
- ``permissionDecision: "allow"`` is accepted only with ``updatedInput`` (a rewrite), whose
  shell input must keep a string ``command``; a plain allow says nothing;
- a deny needs a non-empty ``permissionDecisionReason``;
- after: ``additionalContext`` only; ``updatedMCPToolOutput`` is "unsupported", so a redaction
  or trim is recorded as not applied;
- no ``PostToolUseFailure``: a failed command is a ``PostToolUse`` too;
- ``UserPromptSubmit`` (``user-prompt-submit.command.input``: ``session_id``, ``prompt``,
  ``turn_id``, ...) is the user's prompt, toolhooks' trusted input for ``from`` rules; its
  answer is ``{}``, so the prompt goes on unchanged.

Settings: ``.codex/hooks.json`` (project) or ``~/.codex/hooks.json`` (user); hooks need
``[features] hooks = true`` in Codex's config.toml, and Codex runs a project's hooks only once
someone trusted them (``/hooks``; ``--dangerously-bypass-hook-trust`` in automation). Stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._claude import ClaudeStyleProtocol
from ._names import CODEX


class CodexProtocol(ClaudeStyleProtocol):
    name = "codex"
    schema_version = "codex 0.171.0"
    events: Mapping[str, str] = {
        "PreToolUse": "before",
        "PostToolUse": "after",
        "UserPromptSubmit": "prompt",
    }
    names: Mapping[str, str] = CODEX
    matcher = ".*"
    before_caps = frozenset({"rewrite", "context"})
    after_caps = frozenset({"context"})
    failure_caps = frozenset({"context"})
    install_note = (
        "Codex runs hooks only with [features] hooks = true in its config.toml, and a "
        "project's hooks only once you trust them (/hooks in Codex)"
    )

    def refuse_after(self, name: str, reason: str) -> dict[str, Any]:
        text = f"toolhooks could not check this result: {reason}"
        return {
            "decision": "block",
            "reason": text,
            "hookSpecificOutput": {"hookEventName": name, "additionalContext": text},
        }


PROTOCOL = CodexProtocol()
