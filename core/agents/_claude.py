"""Claude Code's hook protocol (written against Claude Code 2.1.332's hook schema).

Events around a tool call: ``PreToolUse`` (before), ``PostToolUse`` and ``PostToolUseFailure``
(after); and ``UserPromptSubmit`` (prompt: the user's words, toolhooks' trusted input for
``from`` rules, answered with a no-op). Payload: ``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``,
``tool_use_id``; after adds ``tool_response`` (``error`` on a failure). Answers are JSON on
stdout with exit 0: before, ``hookSpecificOutput`` with ``permissionDecision`` (deny / ask),
``permissionDecisionReason``, ``updatedInput`` and ``additionalContext``; after,
``hookSpecificOutput.additionalContext`` and ``updatedToolOutput`` (the result the model reads
instead), or ``decision: "block"`` with a ``reason``. A plain allow says nothing, so Claude
Code's own permission rules and prompts still apply. Settings: ``.claude/settings.json``
(project) or ``~/.claude/settings.json`` (user). Codex CLI copies this protocol with a few
differences (``_codex.py``). Stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._hooks_json import (
    HOOK_TIMEOUT_S,
    blocking_exit,
    field,
    json_reply,
    other_event,
    prompt_event,
    tool_input,
    unwire_hooks,
    wire_hooks,
)
from ._names import CLAUDE_CODE, NOT_GOVERNED, toolhooks_name
from ._places import hook_settings_path
from ._protocol import HookAnswer, HookEvent, HookReply, ProtocolError


class ClaudeStyleProtocol:
    """Claude Code's protocol; the class attributes are where Codex CLI differs."""

    name = "claude-code"
    schema_version = "claude-code 2.1.332"
    events: Mapping[str, str] = {
        "PreToolUse": "before",
        "PostToolUse": "after",
        "PostToolUseFailure": "after",
        "UserPromptSubmit": "prompt",
    }
    names: Mapping[str, str] = CLAUDE_CODE
    matcher = "*"
    before_caps = frozenset({"rewrite", "ask", "context"})
    after_caps = frozenset({"context", "replace_result"})
    failure_caps = frozenset({"context"})

    # -- reading -----------------------------------------------------------------------------

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        name = field(payload, "hook_event_name")
        assert name is not None
        phase = self.events.get(name)
        if phase is None:
            raise ProtocolError(f"{self.name} sent an event toolhooks does not know: {name!r}")
        if phase == "prompt":
            return prompt_event(self.name, name, payload)
        original = field(payload, "tool_name")
        assert original is not None
        tool = toolhooks_name(self.names, original)
        if tool == NOT_GOVERNED:
            return other_event(self.name, name, payload)
        failed = name.endswith("Failure")
        result: Any = None
        if phase == "after":
            result = payload.get("error") if failed else payload.get("tool_response")
        return HookEvent(
            agent=self.name,
            phase=phase,
            event_name=name,
            tool=tool,
            original_tool=original,
            params=tool_input(payload),
            call_id=field(payload, "tool_use_id", required=False),
            session_id=field(payload, "session_id", required=False),
            cwd=field(payload, "cwd", required=False),
            result=result,
            failed=failed,
            raw=payload,
        )

    def capabilities(self, event: HookEvent) -> frozenset[str]:
        if event.phase == "before":
            return self.before_caps
        if event.phase == "after":
            return self.failure_caps if event.failed else self.after_caps
        return frozenset()

    # -- answering ---------------------------------------------------------------------------

    def render(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        if event.phase == "before":
            return json_reply(self._before(event, answer))
        if event.phase == "after":
            return json_reply(self._after(event, answer))
        return json_reply({})

    def _before(self, event: HookEvent, answer: HookAnswer) -> dict[str, Any]:
        out: dict[str, Any] = {"hookEventName": event.event_name}
        action = answer.action
        if action == "ask" and "ask" not in self.before_caps:
            action = "deny"  # an agent without a prompt: never let "ask" mean "run it"
        if action in ("deny", "ask"):
            out["permissionDecision"] = action
            out["permissionDecisionReason"] = answer.reason or "Blocked by toolhooks"
        elif action == "rewrite":
            assert answer.params is not None
            out.update(self.rewrite(answer.params))
        if answer.context and "context" in self.before_caps:
            out["additionalContext"] = answer.context
        return {"hookSpecificOutput": out} if len(out) > 1 else {}

    def rewrite(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The before answer's fields that make the agent run ``params`` instead."""
        return {"permissionDecision": "allow", "updatedInput": dict(params)}

    def _after(self, event: HookEvent, answer: HookAnswer) -> dict[str, Any]:
        caps = self.capabilities(event)
        out: dict[str, Any] = {"hookEventName": event.event_name}
        if answer.result_text is not None and "replace_result" in caps:
            out["updatedToolOutput"] = answer.result_text
        if answer.context and "context" in caps:
            out["additionalContext"] = answer.context
        return {"hookSpecificOutput": out} if len(out) > 1 else {}

    def refuse(self, payload: Mapping[str, Any] | None, reason: str) -> HookReply:
        name = payload.get("hook_event_name") if payload is not None else None
        phase = self.events.get(name) if isinstance(name, str) else None
        if phase == "before":
            return json_reply(
                {
                    "hookSpecificOutput": {
                        "hookEventName": name,
                        "permissionDecision": "deny",
                        "permissionDecisionReason": f"toolhooks: {reason}",
                    }
                }
            )
        if phase == "after":
            return json_reply(self.refuse_after(str(name), reason))
        if phase == "prompt":
            # Never erase the user's prompt: a prompt not recorded as trusted only makes
            # ``from`` rules stricter (fail closed on the calls, not on the user).
            return json_reply({})
        return blocking_exit(reason)

    def refuse_after(self, name: str, reason: str) -> dict[str, Any]:
        """The tool ran but toolhooks could not check its result: the model is told, and (where
        the agent lets a hook replace it) does not read the unchecked result."""
        text = f"toolhooks could not check this result, so it is withheld: {reason}"
        out: dict[str, Any] = {"hookEventName": name, "additionalContext": text}
        if name == "PostToolUse":
            out["updatedToolOutput"] = text
        return {"decision": "block", "reason": text, "hookSpecificOutput": out}

    # -- installing --------------------------------------------------------------------------

    def settings_path(self, scope: str, project: Path, home: Path) -> Path:
        return hook_settings_path(self.name, scope, project, home)

    def handler(self, command: str) -> dict[str, Any]:
        return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}

    def wire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        return wire_hooks(settings, self.events, self.handler(command), self.matcher)

    def unwire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        return unwire_hooks(settings, command)


PROTOCOL = ClaudeStyleProtocol()
