"""GitHub Copilot's hooks (Copilot CLI and the Copilot cloud agent) in toolhooks' terms.

Written against GitHub's hooks reference for Copilot CLI and the cloud agent (hook files
``version: 1``), as stored from github/docs at commit 05da5bc3 (late 2026). Sources:

- https://docs.github.com/en/copilot/reference/hooks-reference (github/docs
  ``content/copilot/reference/hooks-reference.md``): where hook files live (``.github/hooks/*.json``
  in the repository, ``~/.copilot/hooks/*.json`` for the user, policy files), the command entry
  (``type``, ``bash``, ``powershell``, ``command``, ``cwd``, ``env``, ``timeoutSec``, default 30 s),
  the events and their payloads in two spellings (camelCase events send camelCase fields;
  PascalCase events send VS Code's snake_case ones with Claude Code's tool names), the
  ``preToolUse`` answer ``{permissionDecision: allow|deny|ask, permissionDecisionReason,
  modifiedArgs}``, the ``postToolUse`` answer ``{modifiedResult, additionalContext}``, exit codes
  (``preToolUse``: 2 or a crash denies, a timeout lets the call through; ``postToolUseFailure``: 2
  appends stdout to the failure the model reads) and the tool names (``bash``, ``view``,
  ``create``, ``edit``, ...).
- https://docs.github.com/en/copilot/reference/hooks-configuration (the cloud agent's earlier page:
  ``toolArgs`` as a JSON string; only ``deny`` processed there).

What Copilot can take: a deny whose reason the model reads; ``ask`` (Copilot CLI's own prompt; the
cloud agent has no user and treats it as deny); rewritten arguments; after a successful tool, a
replaced result and context for the model; after a failed one, guidance for the model. The user's
prompt (``userPromptSubmitted``, whose output Copilot does not process) is the session's trusted
input for ``from`` rules, answered with ``{}``. It gives no
tool-call id (the bridge pairs before and after itself). MCP tools are named ``<server>-<tool>``
and the server's name may itself hold dashes, so they keep Copilot's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _fields, _hooklists
from ._places import hook_settings_path
from ._protocol import AgentProtocol, HookAnswer, HookEvent, HookReply, ProtocolError, user_prompt
from ._replies import denial, json_reply

AGENT = "copilot"
TIMEOUT_S = 600  # a timed-out preToolUse hook lets the call through: stay above [approvals] wait_s

EVENTS = {"preToolUse": "before", "postToolUse": "after", "postToolUseFailure": "after"}
"""The events ``toolhooks hook install copilot`` wires (camelCase: Copilot's own spelling)."""
PASCAL_EVENTS = {"PreToolUse": "before", "PostToolUse": "after", "PostToolUseFailure": "after"}
PROMPT_EVENTS = frozenset({"userPromptSubmitted", "UserPromptSubmit"})
"""The user's prompt (``prompt``; ``sessionId`` / ``session_id``): toolhooks' trusted input for
``from`` rules. Copilot does not process this hook's output, so the prompt always goes on;
install wires the camelCase one."""

OTHER_FIELDS = {
    "source": "sessionStart",
    "reason": "sessionEnd",
    "prompt": "userPromptSubmitted",
    "stopReason": "agentStop",
    "errorContext": "errorOccurred",
    "trigger": "preCompact",
    "notification_type": "notification",
    "agentName": "subagentStart",
}
"""A camelCase payload names no event: a field only that event sends tells which it is."""

TOOL_NAMES = {
    "bash": "exec",
    "powershell": "exec",
    "view": "read",
    "grep": "read",
    "rg": "read",
    "glob": "read",
    "create": "write",
    "edit": "edit",
    "str_replace_editor": "edit",
    "apply_patch": "apply_patch",
    "web_fetch": "web_fetch",
    "web_search": "web_search",
    "task": "sessions_spawn",
    # the names PascalCase (VS Code compatible) payloads use
    "Bash": "exec",
    "Read": "read",
    "Grep": "read",
    "Glob": "read",
    "Write": "write",
    "Edit": "edit",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "Agent": "sessions_spawn",
    "Task": "sessions_spawn",
}
CONVERSATION_TOOLS = frozenset(
    {"ask_user", "update_todo", "report_intent", "AskUserQuestion", "TodoWrite"}
)
"""Tools that only talk to the user: not governed (phase ``other``)."""


class CopilotProtocol:
    name = AGENT
    schema_version = (
        "Copilot hooks version 1 (docs.github.com hooks reference, github/docs 05da5bc3)"
    )
    events: Mapping[str, str] = {**EVENTS, "userPromptSubmitted": "prompt"}

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        event_name = self.event_name(payload)
        phase = EVENTS.get(event_name) or PASCAL_EVENTS.get(event_name)
        pascal = event_name in PASCAL_EVENTS
        session = _fields.optional_text(payload, "session_id" if pascal else "sessionId")
        cwd = _fields.optional_text(payload, "cwd")
        if event_name in PROMPT_EVENTS:
            return self._prompt(event_name, payload, cwd)
        if phase is None:
            return self._other(event_name, payload, session, cwd)
        name_key, args_key = ("tool_name", "tool_input") if pascal else ("toolName", "toolArgs")
        original = _fields.text(payload, name_key, agent=AGENT)
        if original in CONVERSATION_TOOLS:
            return self._other(event_name, payload, session, cwd)
        params = _fields.arguments(payload.get(args_key), agent=AGENT, key=args_key)
        result, failed = self._result(event_name, payload, pascal)
        return HookEvent(
            agent=AGENT,
            phase=phase,
            event_name=event_name,
            tool=TOOL_NAMES.get(original, original),
            original_tool=original,
            params=params,
            call_id=None,
            session_id=session,
            cwd=cwd,
            result=result,
            failed=failed,
            raw=payload,
        )

    @staticmethod
    def event_name(payload: Mapping[str, Any]) -> str:
        """The event: named in VS Code compatible payloads, told by the fields in Copilot's own."""
        named = payload.get("hook_event_name")
        if named is not None:
            if named in PASCAL_EVENTS or named in EVENTS:
                return str(named)
            if isinstance(named, str) and named:
                return named  # another event (SessionStart, Stop, ...): no tool call
            raise ProtocolError("copilot payload: 'hook_event_name' must be a non-empty string")
        if "toolName" in payload:
            if "toolResult" in payload:
                return "postToolUse"
            return "postToolUseFailure" if isinstance(payload.get("error"), str) else "preToolUse"
        for field, event in OTHER_FIELDS.items():
            if field in payload:
                return event
        raise ProtocolError(
            "copilot payload: no 'toolName' and no field of a known Copilot hook event"
        )

    @staticmethod
    def _result(event_name: str, payload: Mapping[str, Any], pascal: bool) -> tuple[Any, bool]:
        if event_name.lower() == "posttoolusefailure":
            return payload.get("error"), True
        if event_name.lower() != "posttooluse":
            return None, False
        outcome = payload.get("tool_result" if pascal else "toolResult")
        if not isinstance(outcome, Mapping):
            return outcome, False
        kind = outcome.get("result_type" if pascal else "resultType")
        text = outcome.get("text_result_for_llm" if pascal else "textResultForLlm")
        return (outcome if text is None else text), kind in ("failure", "denied", "error")

    def _other(
        self, event_name: str, payload: Mapping[str, Any], session: str | None, cwd: str | None
    ) -> HookEvent:
        return HookEvent(
            agent=AGENT,
            phase="other",
            event_name=event_name,
            tool="",
            original_tool=str(payload.get("toolName") or payload.get("tool_name") or ""),
            params={},
            call_id=None,
            session_id=session,
            cwd=cwd,
            raw=payload,
        )

    @staticmethod
    def _prompt(event_name: str, payload: Mapping[str, Any], cwd: str | None) -> HookEvent:
        return user_prompt(
            AGENT,
            event_name,
            payload.get("prompt"),
            session_id=_fields.optional_text(payload, "sessionId", "session_id"),
            cwd=cwd,
            raw=payload,
        )

    def capabilities(self, event: HookEvent) -> frozenset[str]:
        """What this event's answer can carry beyond allow / deny."""
        if event.phase == "before":
            return frozenset({"rewrite", "ask"})
        if event.phase == "after" and event.failed:  # a success cannot stand in for a failure
            return frozenset({"context"})
        if event.phase == "after":
            return frozenset({"context", "replace_result"})
        return frozenset()

    def render(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        if event.phase in ("other", "prompt"):
            return json_reply({})
        if event.phase == "after":
            return self._after(event, answer)
        reason = denial(answer, agent="Copilot", can_ask=True, can_rewrite=True)
        if reason is not None:
            return json_reply(deny(reason))
        if answer.action == "ask":
            body = {"permissionDecision": "ask"}
            if answer.reason:
                body["permissionDecisionReason"] = answer.reason
            return json_reply(body)
        if answer.action == "rewrite":
            return json_reply({"modifiedArgs": dict(answer.params or {})})
        # allow: nothing to say, so Copilot's own permission rules still apply
        return json_reply({})

    @staticmethod
    def _after(event: HookEvent, answer: HookAnswer) -> HookReply:
        if event.event_name.lower() == "posttoolusefailure":
            # a failed tool takes guidance as stdout with exit code 2 (command hooks)
            if answer.context:
                return HookReply(stdout=answer.context, exit_code=2)
            return json_reply({})
        body: dict[str, Any] = {}
        if answer.result_text is not None and not event.failed:
            body["modifiedResult"] = {
                "resultType": "success",
                "textResultForLlm": answer.result_text,
            }
        if answer.context:
            body["additionalContext"] = answer.context
        return json_reply(body)

    def refuse(self, payload: Mapping[str, Any] | None, reason: str) -> HookReply:
        if payload is not None and _is_prompt(payload):
            # Never hold back the user's prompt: a prompt not recorded as trusted only makes
            # ``from`` rules stricter (fail closed on the calls, not on the user).
            return json_reply({}, stderr=reason)
        # exit 2 denies a preToolUse call even if stdout were lost; stdout says why
        return json_reply(deny(reason), exit_code=2, stderr=reason)

    def settings_path(self, scope: str, project: Path, home: Path) -> Path:
        return hook_settings_path(self.name, scope, project, home)

    def wire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        entry = {"type": "command", "bash": command, "powershell": command, "timeoutSec": TIMEOUT_S}
        wired = _hooklists.wire(
            settings, self.events, entry, command_keys=COMMAND_KEYS, agent=AGENT
        )
        return wired if "version" in wired else {"version": 1, **wired}

    def unwire(self, settings: dict[str, Any], command: str) -> dict[str, Any]:
        return _hooklists.unwire(settings, command, command_keys=COMMAND_KEYS)


COMMAND_KEYS = ("bash", "powershell", "command")


def _is_prompt(payload: Mapping[str, Any]) -> bool:
    """A prompt event, as far as a payload toolhooks could not read tells."""
    named = payload.get("hook_event_name")
    if named is not None:
        return named in PROMPT_EVENTS
    return "prompt" in payload and "toolName" not in payload


def deny(reason: str) -> dict[str, str]:
    return {"permissionDecision": "deny", "permissionDecisionReason": reason}


PROTOCOL: AgentProtocol = CopilotProtocol()
