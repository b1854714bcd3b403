"""Each agent's prompt-submit hook: the user's prompt is the session's trusted input.

Claude Code and Codex CLI ``UserPromptSubmit``, Gemini CLI ``BeforeAgent``, ... : parsed as the
``prompt`` phase, recorded with ``rt.trust`` (a ``from`` rule does not hold for a value the user
typed), answered so the agent sends the prompt on unchanged, and wired by install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bridge_support import FIXTURES, raw
from toolhooks import Runtime
from toolhooks.agents import AgentBridge
from toolhooks.agents._protocol import HookReply, protocol
from toolhooks.agents._run import LABELS_FILE, run_in_process
from toolhooks.stores import SQLiteLabelStore

TYPED = {"staging-eu.example.com", "ops-team@example.com"}
"""Tokens of the prompt every fixture below carries."""

PROMPTS = {
    # agent: (its prompt event, the session id in the fixture, the reply that lets it through)
    "claude-code": ("UserPromptSubmit", "92f29842-84fb-42d7-815f-f9172cb71001", {}),
    "codex": ("UserPromptSubmit", "019a7c3e-5f21-7d40-9b8e-2c4a6f1d0e93", {}),
    "gemini": ("BeforeAgent", "5b0e3f4a-91c2-4d7e-8a6b-0f2d1c3e4b5a", {}),
    "cursor": ("beforeSubmitPrompt", "c0ffee00-1111-4222-8333-444455556666", {"continue": True}),
    "copilot": ("userPromptSubmitted", "7f3c2a10-5b6e-4d8f-9a01-23456789abcd", {}),
    "windsurf": ("pre_user_prompt", "traj-5d2c9e1a", None),
    "cline": ("UserPromptSubmit", "1796410800123", {"cancel": False}),
}


def prompt_payload(agent: str) -> dict[str, Any]:
    """The agent's prompt payload: a raw one, or a golden fixture's first case."""
    event = PROMPTS[agent][0]
    doc: dict[str, Any] = json.loads((FIXTURES / agent / f"{event}.json").read_text())
    return doc["cases"][0]["payload"] if "cases" in doc else doc


def lets_it_through(agent: str, reply: HookReply) -> None:
    expected = PROMPTS[agent][2]
    assert reply.exit_code == 0, reply
    assert json.loads(reply.stdout or "null") == expected, reply.stdout


@pytest.mark.parametrize("agent", list(PROMPTS))
def test_the_prompt_is_parsed_as_trusted_input(agent: str) -> None:
    event = protocol(agent).parse(prompt_payload(agent))
    assert event.phase == "prompt"
    assert event.event_name == PROMPTS[agent][0]
    assert event.session_id == PROMPTS[agent][1]
    assert "staging-eu.example.com" in event.params["prompt"]


@pytest.mark.parametrize("agent", list(PROMPTS))
def test_the_bridge_records_the_prompt_and_lets_it_through(agent: str, tmp_path: Path) -> None:
    session = PROMPTS[agent][1]
    rt = Runtime(config={"approvals": {"db": str(tmp_path / "a.db")}}, load_entrypoints=False)
    bridge = AgentBridge(rt)
    try:
        reply = bridge.handle(agent, raw(prompt_payload(agent)))
    finally:
        bridge.close()
    lets_it_through(agent, reply)
    rt.label_store.record(session, ["outside"], {*TYPED, "evil@example.net"})
    assert rt.label_store.provenance(session, TYPED, ["outside"]) is None
    assert rt.label_store.provenance(session, {"evil@example.net"}, ["outside"]) is not None
    assert rt.label_store.provenance("another-session", TYPED, ["outside"]) is None  # unlabelled
    rt.label_store.record("another-session", ["outside"], TYPED)
    assert rt.label_store.provenance("another-session", TYPED, ["outside"]) is not None


@pytest.mark.parametrize("agent", list(PROMPTS))
def test_a_hook_process_keeps_the_prompt_for_the_next_one(agent: str, tmp_path: Path) -> None:
    session = PROMPTS[agent][1]
    config = tmp_path / "toolhooks.toml"
    config.write_text(
        f'[approvals]\ndb = "{tmp_path / "approvals.db"}"\n\n'
        '[[rules]]\nid = "no-rm"\ntools = ["exec"]\ncommand = ["rm"]\ndecision = "deny"\n'
    )
    reply = run_in_process(agent, raw(prompt_payload(agent)), config=config)
    lets_it_through(agent, reply)
    store = SQLiteLabelStore(tmp_path / LABELS_FILE)
    try:
        store.record(session, ["outside"], {"staging-eu.example.com", "other.example.net"})
        assert store.provenance(session, {"staging-eu.example.com"}, ["outside"]) is None
        assert store.provenance(session, {"other.example.net"}, ["outside"]) is not None
    finally:
        store.close()


@pytest.mark.parametrize("agent", list(PROMPTS))
def test_without_rules_a_prompt_needs_no_runtime(agent: str, tmp_path: Path) -> None:
    config = tmp_path / "toolhooks.toml"
    config.write_text(f'[approvals]\ndb = "{tmp_path / "approvals.db"}"\n')
    reply = run_in_process(agent, raw(prompt_payload(agent)), config=config)
    lets_it_through(agent, reply)
    assert not (tmp_path / LABELS_FILE).exists()


@pytest.mark.parametrize("agent", list(PROMPTS))
def test_a_prompt_toolhooks_cannot_record_still_goes_through(agent: str) -> None:
    reply = protocol(agent).refuse(prompt_payload(agent), "the label store is not writable")
    lets_it_through(agent, reply)


@pytest.mark.parametrize("agent", list(PROMPTS))
def test_install_wires_the_prompt_event_and_undo_removes_it(agent: str, tmp_path: Path) -> None:
    proto = protocol(agent)
    command = f"toolhooks hook {agent}"
    wired = proto.wire({}, command)
    event = PROMPTS[agent][0]
    assert command in json.dumps(wired[event] if agent == "cline" else wired["hooks"][event])
    assert event not in json.dumps(proto.unwire(wired, command))


def test_cursor_never_holds_back_a_prompt_when_the_hook_fails() -> None:
    wired = protocol("cursor").wire({}, "toolhooks hook cursor")
    [entry] = wired["hooks"]["beforeSubmitPrompt"]
    assert entry["command"] == "toolhooks hook cursor" and "failClosed" not in entry
    assert wired["hooks"]["preToolUse"][0]["failClosed"] is True  # tool calls still fail closed


def test_cline_keeps_a_prompt_hook_file_toolhooks_did_not_write() -> None:
    theirs = "#!/bin/sh\necho '{\"cancel\": false}'\n"
    wired = protocol("cline").wire({"UserPromptSubmit": theirs}, "toolhooks hook cline")
    assert wired["UserPromptSubmit"] == theirs  # one file per event: theirs stays
    assert "exec toolhooks hook cline" in wired["PreToolUse"]  # tool calls are still checked
