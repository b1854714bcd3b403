"""What Claude Code, Codex CLI and Gemini CLI share: a ``hooks`` object in a JSON settings file,
and payloads with ``hook_event_name``, ``tool_name``, ``tool_input``, ``session_id`` and ``cwd``.

Settings shape (all three): ``{"hooks": {EVENT: [{"matcher": M, "hooks": [HANDLER, ...]}]}}``
with ``HANDLER = {"type": "command", "command": ..., "timeout": ...}``. ``wire`` adds one group
per event holding our handler and keeps everything else; ``unwire`` removes every handler that
runs our command, then the groups and events that held nothing else. Stdlib only.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._protocol import HookEvent, HookReply, ProtocolError, user_prompt

HOOK_TIMEOUT_S = 600
"""The hook timeout install writes: an approval may wait on the queue up to ``[agents] wait_s``
(at most 590 s) and the agent must not give up on the hook first (some then run the tool)."""


def wire_hooks(
    settings: dict[str, Any], events: Iterable[str], handler: Mapping[str, Any], matcher: str
) -> dict[str, Any]:
    """``settings`` with ``handler`` in a group of its own under each of ``events``."""
    wired = copy.deepcopy(settings)
    hooks = wired.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ProtocolError('"hooks" in the settings is not an object')
    command = handler["command"]
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ProtocolError(f'"hooks.{event}" in the settings is not a list')
        if any(_runs(group, command) for group in groups):
            continue  # already wired: installing twice changes nothing
        groups.append({"matcher": matcher, "hooks": [dict(handler)]})
    return wired


def unwire_hooks(settings: dict[str, Any], command: str) -> dict[str, Any]:
    """``settings`` without any handler that runs ``command`` (and nothing left empty by that)."""
    unwired = copy.deepcopy(settings)
    hooks = unwired.get("hooks")
    if not isinstance(hooks, dict):
        return unwired
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept.append(group)
                continue
            handlers = [h for h in group["hooks"] if not _is(h, command)]
            if handlers:
                kept.append({**group, "hooks": handlers})
            elif not group["hooks"]:
                kept.append(group)  # someone else's empty group: not ours to remove
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del unwired["hooks"]
    return unwired


def _is(handler: Any, command: str) -> bool:
    return isinstance(handler, dict) and handler.get("command") == command


def _runs(group: Any, command: str) -> bool:
    return isinstance(group, dict) and any(_is(h, command) for h in group.get("hooks") or [])


def field(payload: Mapping[str, Any], name: str, *, required: bool = True) -> str | None:
    """A string field of the payload; ProtocolError when a required one is missing or not text."""
    value = payload.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise ProtocolError(f"the hook event has no {name!r} string")
    return value


def tool_input(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The proposed input: an object (a bare value is kept as ``{"input": value}``)."""
    if "tool_input" not in payload:
        raise ProtocolError("the hook event has no 'tool_input'")
    value = payload["tool_input"]
    return dict(value) if isinstance(value, dict) else {"input": value}


def other_event(agent: str, name: str, payload: Mapping[str, Any]) -> HookEvent:
    """An event that is not about a governed tool call: answered with a no-op."""
    tool = payload.get("tool_name")
    return HookEvent(
        agent=agent,
        phase="other",
        event_name=name,
        tool="",
        original_tool=tool if isinstance(tool, str) else "",
        params={},
        call_id=None,
        session_id=_text(payload.get("session_id")),
        cwd=_text(payload.get("cwd")),
        raw=payload,
    )


def prompt_event(agent: str, name: str, payload: Mapping[str, Any]) -> HookEvent:
    """The user's prompt (``params["prompt"]``): trusted input for the session's ``from`` rules."""
    return user_prompt(
        agent,
        name,
        payload.get("prompt"),
        session_id=_text(payload.get("session_id")),
        cwd=_text(payload.get("cwd")),
        raw=payload,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def json_reply(body: Mapping[str, Any]) -> HookReply:
    """Exit 0 with ``body`` on stdout (``{}`` when empty: go on as if no hook had spoken)."""
    return HookReply(stdout=json.dumps(body, ensure_ascii=False) + "\n")


def blocking_exit(reason: str) -> HookReply:
    """Exit 2 with the reason on stderr: all three agents block the event's action on it.

    For a payload that cannot be read (no event to answer in its own terms); the agents read
    stderr as the reason the model is shown."""
    return HookReply(stdout="", stderr=f"toolhooks: {reason}\n", exit_code=2)


def joined(*parts: str | None) -> str | None:
    """The non-empty parts, one paragraph each; None when there is none."""
    kept = [part for part in parts if part]
    return "\n\n".join(kept) if kept else None
