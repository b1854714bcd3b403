"""Claude Code's ``UserPromptSubmit``: the user's prompt is the session's trusted input."""

from __future__ import annotations

import json
from pathlib import Path

from bridge_support import payload, raw
from toolhooks import Runtime
from toolhooks.agents import AgentBridge
from toolhooks.agents._protocol import protocol
from toolhooks.agents._run import LABELS_FILE, run_in_process
from toolhooks.stores import SQLiteLabelStore

SESSION = "92f29842-84fb-42d7-815f-f9172cb71001"


def test_the_prompt_is_parsed_as_trusted_input() -> None:
    event = protocol("claude-code").parse(payload("claude-code", "UserPromptSubmit"))
    assert event.phase == "prompt"
    assert event.session_id == SESSION
    assert "staging-eu.example.com" in event.params["prompt"]


def test_the_bridge_records_the_prompt_and_lets_it_through(tmp_path: Path) -> None:
    rt = Runtime(config={"approvals": {"db": str(tmp_path / "a.db")}}, load_entrypoints=False)
    bridge = AgentBridge(rt)
    try:
        reply = bridge.handle("claude-code", raw(payload("claude-code", "UserPromptSubmit")))
    finally:
        bridge.close()
    assert reply.exit_code == 0
    assert json.loads(reply.stdout or "{}") == {}
    rt.label_store.record(SESSION, ["outside"], {"ops-team@example.com", "evil@example.net"})
    assert rt.label_store.provenance(SESSION, {"ops-team@example.com"}, ["outside"]) is None
    assert rt.label_store.provenance(SESSION, {"evil@example.net"}, ["outside"]) is not None


def test_a_hook_process_keeps_the_prompt_for_the_next_one(tmp_path: Path) -> None:
    config = tmp_path / "toolhooks.toml"
    config.write_text(
        f'[approvals]\ndb = "{tmp_path / "approvals.db"}"\n\n'
        '[[rules]]\nid = "no-rm"\ntools = ["exec"]\ncommand = ["rm"]\ndecision = "deny"\n'
    )
    reply = run_in_process(
        "claude-code", raw(payload("claude-code", "UserPromptSubmit")), config=config
    )
    assert reply.exit_code == 0
    store = SQLiteLabelStore(tmp_path / LABELS_FILE)
    store.record(SESSION, ["outside"], {"staging-eu.example.com", "other.example.net"})
    assert store.provenance(SESSION, {"staging-eu.example.com"}, ["outside"]) is None
    assert store.provenance(SESSION, {"other.example.net"}, ["outside"]) is not None
    store.close()


def test_without_rules_a_prompt_needs_no_runtime(tmp_path: Path) -> None:
    config = tmp_path / "toolhooks.toml"
    config.write_text(f'[approvals]\ndb = "{tmp_path / "approvals.db"}"\n')
    reply = run_in_process(
        "claude-code", raw(payload("claude-code", "UserPromptSubmit")), config=config
    )
    assert reply.exit_code == 0
    assert not (tmp_path / LABELS_FILE).exists()
