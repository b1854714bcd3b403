"""The agent-neutral records every agent protocol and the bridge share (core/agents/_protocol.py)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from toolhooks.agents import PROTOCOLS, HookAnswer, HookEvent, HookReply, ProtocolError, protocol


def event(**changes: object) -> HookEvent:
    fields: dict[str, object] = {
        "agent": "claude-code",
        "phase": "before",
        "event_name": "PreToolUse",
        "tool": "exec",
        "original_tool": "Bash",
        "params": {"command": "ls"},
        "call_id": "toolu_1",
        "session_id": "s1",
        "cwd": "/tmp",
        "raw": {"tool_name": "Bash"},
    }
    fields.update(changes)
    return HookEvent(**fields)  # type: ignore[arg-type]


def test_records_are_frozen_and_keyword_only() -> None:
    reply = HookReply(stdout="{}")
    assert (reply.stderr, reply.exit_code) == ("", 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        reply.exit_code = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        HookReply("{}")  # type: ignore[misc]
    assert event().result is None and event().failed is False


def test_a_phase_or_action_outside_the_vocabulary_is_refused() -> None:
    with pytest.raises(ValueError, match="phase"):
        event(phase="during")
    with pytest.raises(ValueError, match="action"):
        HookAnswer(action="maybe")
    with pytest.raises(ValueError, match="new params"):
        HookAnswer(action="rewrite")
    assert HookAnswer(action="rewrite", params={"command": "ls -l"}).params == {"command": "ls -l"}


def test_an_unknown_agent_is_a_protocol_error_naming_the_known_ones() -> None:
    with pytest.raises(ProtocolError, match=r"unknown agent 'vim'.*claude-code"):
        protocol("vim")
    assert set(PROTOCOLS) == {
        "claude-code",
        "codex",
        "gemini",
        "cursor",
        "copilot",
        "windsurf",
        "cline",
    }


def test_the_protocol_module_imports_only_the_stdlib() -> None:
    # The hook client imports it before any daemon answers: pydantic or the runtime would cost
    # the hundreds of milliseconds the daemon exists to save.
    code = (
        "import sys, toolhooks.agents._protocol as p;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('pydantic', 'pluggy') or m.startswith(('toolhooks.runtime', 'toolhooks.config')));"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
