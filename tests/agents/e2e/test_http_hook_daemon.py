"""Claude Code's ``type: "http"`` hook posting to ``toolhooks agentd`` (issue #26 item 2), with
the real CLI offline against the fake model: the daemon's deny holds and reaches the model, the
audit log has the call, and what happens when the daemon is not there (Claude Code's own
``onFailure``), which the docs tell users to set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_clis import Agent
from fake_models import TextTurn, ToolTurn

TOOLHOOKS = [sys.executable, "-m", "toolhooks"]
CONFIG = """\
[agents]
http_port = 0
sender = "e2e-http"

[plugins.event_log]
path = ".toolhooks/events.jsonl"

[tools]
deny = ["exec"]
"""


def wire_http(agent: Agent, url: str, on_failure: str | None = None) -> None:
    """Claude Code's project settings: the http hook on PreToolUse, token from the environment."""
    entry: dict[str, object] = {
        "type": "http",
        "url": url,
        "headers": {"Authorization": "Bearer $TOOLHOOKS_AGENTD_TOKEN"},
        "allowedEnvVars": ["TOOLHOOKS_AGENTD_TOKEN"],
        "timeout": 60,
    }
    if on_failure is not None:
        entry["onFailure"] = on_failure
    settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [entry]}]}}
    (agent.project / ".claude").mkdir(exist_ok=True)
    (agent.project / ".claude" / "settings.json").write_text(json.dumps(settings))


def agentd(agent: Agent, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    return subprocess.run(
        [*TOOLHOOKS, "agentd", *args], cwd=agent.project, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip


@pytest.fixture
def claude(make_agent) -> Agent:
    agent: Agent = make_agent("claude-code")
    (agent.project / "toolhooks.toml").write_text(CONFIG)
    return agent


def test_claude_codes_http_hook_is_answered_by_the_daemon(claude, fake_model):
    started = agentd(claude)
    assert started.returncode == 0, started.stderr
    port = json.loads(started.stdout)["http_port"]
    token = (claude.project / ".toolhooks" / "agentd.token").read_text().strip()
    wire_http(claude, f"http://127.0.0.1:{port}/hook/claude-code", on_failure="block")
    victim = claude.project / "victim"
    victim.mkdir()
    model = fake_model([ToolTurn(command=f"rm -rf {victim}"), TextTurn(text="stopped")])

    done = claude.run("clean up", model.url, {"TOOLHOOKS_AGENTD_TOKEN": token})

    assert done.returncode == 0, done.stderr[-3000:]
    assert victim.is_dir()
    assert "exec" in json.dumps(model.fake.agent_requests()[1].body)  # the policy's reason
    lines = (claude.project / ".toolhooks" / "events.jsonl").read_text().splitlines()
    log = [json.loads(line) for line in lines]
    [proposed] = [e for e in log if e["event"] == "tool.proposed"]
    assert (proposed["agent_id"], proposed["tool"]) == ("claude-code", "exec")
    assert proposed["call_id"] in model.fake.transcript()


@pytest.mark.parametrize(("on_failure", "runs"), [("block", False), (None, True)])
def test_with_no_daemon_listening_only_on_failure_block_stops_the_call(
    claude, fake_model, on_failure, runs
):
    """The HTTP hook cannot start the daemon. Nothing listening: with ``onFailure: "block"``
    Claude Code blocks the call (fail closed); without it the call runs unchecked, which is why
    the docs say to set it or to use the command hook."""
    started = agentd(claude, "--http-port", "0")  # a free port, then nobody on it
    assert started.returncode == 0, started.stderr
    port = json.loads(started.stdout)["http_port"]
    assert agentd(claude, "--stop").returncode == 0
    wire_http(claude, f"http://127.0.0.1:{port}/hook/claude-code", on_failure=on_failure)
    victim = claude.project / "victim"
    victim.mkdir()
    model = fake_model([ToolTurn(command=f"rm -rf {victim}"), TextTurn(text="stopped")])

    done = claude.run("clean up", model.url, {"TOOLHOOKS_AGENTD_TOKEN": "x" * 43})

    assert done.returncode == 0, done.stderr[-3000:]
    assert victim.exists() is not runs


def test_a_wrong_token_is_refused_and_blocks_with_on_failure_block(claude, fake_model):
    started = agentd(claude)
    assert started.returncode == 0, started.stderr
    port = json.loads(started.stdout)["http_port"]
    wire_http(claude, f"http://127.0.0.1:{port}/hook/claude-code", on_failure="block")
    victim = claude.project / "victim"
    victim.mkdir()
    model = fake_model([ToolTurn(command=f"rm -rf {victim}"), TextTurn(text="stopped")])

    done = claude.run("clean up", model.url, {"TOOLHOOKS_AGENTD_TOKEN": "wrong-" * 8})

    assert done.returncode == 0, done.stderr[-3000:]
    assert victim.is_dir()
    log = claude.project / ".toolhooks" / "events.jsonl"
    assert not log.exists() or '"tool.proposed"' not in log.read_text()
    assert Path(claude.project / ".toolhooks" / "agentd.sock").exists()
