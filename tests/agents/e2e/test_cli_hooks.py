"""The real CLIs, offline against the fake model, with a trivial command hook (issue #26).

These pin what toolhooks relies on in each agent: the payload its before/after hooks get, that
the command really runs, and that a deny answered in the agent's protocol stops the command and
reaches the model in its next request.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from agent_clis import HOOK_EVENTS, PACKAGES, Agent, write_project_hooks
from fake_models import TextTurn, ToolTurn
from proxy_sink import ProxySink

AGENTS = list(PACKAGES)
CAPTURE = Path(__file__).parent / "capture_hook.py"
SHELL_TOOL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
DENY_REASON = "toolhooks-e2e: rm -rf is not allowed here"


def deny_answer(agent: str) -> dict[str, object]:
    if agent == "gemini":
        return {"decision": "deny", "reason": DENY_REASON}
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": DENY_REASON,
        }
    }


def captured(out: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("[0-9][0-9]-*.json"))]


@pytest.mark.parametrize("agent_name", AGENTS)
def test_hooks_see_the_call_before_and_after_and_it_runs(
    agent_name, make_agent, fake_model, tmp_path
):
    agent = make_agent(agent_name)
    out = tmp_path / "hook-out"
    write_project_hooks(agent_name, agent.project, f"{sys.executable} {CAPTURE} {out}")
    model = fake_model([ToolTurn(command="echo hello > made.txt"), TextTurn(text="all done")])

    done = agent.run("make a file", model.url)

    assert done.returncode == 0, done.stderr[-3000:]
    assert (agent.project / "made.txt").read_text() == "hello\n"
    events = captured(out)
    before_name, after_names = HOOK_EVENTS[agent_name]
    assert [e["hook_event_name"] for e in events] == [before_name, after_names[0]], events
    before, after = events
    for event in events:
        assert event["tool_name"] == SHELL_TOOL[agent_name]
        assert event["tool_input"]["command"] == "echo hello > made.txt"
        assert event["session_id"]
        assert Path(str(event["cwd"])).resolve() == agent.project.resolve()
    assert before["session_id"] == after["session_id"]
    assert "tool_response" in after
    if agent_name != "gemini":  # Gemini CLI gives its hooks no call id
        assert before["tool_use_id"] == after["tool_use_id"]
        assert before["tool_use_id"] in model.fake.transcript()


@pytest.mark.parametrize("agent_name", AGENTS)
def test_a_deny_stops_the_command_and_the_model_reads_why(
    agent_name, make_agent, fake_model, tmp_path
):
    agent = make_agent(agent_name)
    out = tmp_path / "hook-out"
    out.mkdir()
    before_name, _ = HOOK_EVENTS[agent_name]
    (out / f"answer-{before_name}.json").write_text(json.dumps(deny_answer(agent_name)))
    write_project_hooks(agent_name, agent.project, f"{sys.executable} {CAPTURE} {out}")
    victim = agent.project / "victim"
    victim.mkdir()
    model = fake_model([ToolTurn(command=f"rm -rf {victim}"), TextTurn(text="ok, stopped")])

    done = agent.run("clean up", model.url)

    assert done.returncode == 0, done.stderr[-3000:]
    assert victim.is_dir()
    requests = model.fake.agent_requests()
    assert len(requests) == 2, [r.path for r in model.fake.requests]
    assert DENY_REASON in json.dumps(requests[1].body)


def test_claude_code_http_hook_posts_the_same_json_and_its_deny_holds(make_agent, fake_model):
    received: list[tuple[dict[str, str], dict[str, object]]] = []

    class Hook(BaseHTTPRequestHandler):
        def log_message(self, format, *args):
            return None

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            received.append((dict(self.headers), body))
            answer = deny_answer("claude-code") if body["hook_event_name"] == "PreToolUse" else {}
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        agent = make_agent("claude-code")
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        entry = {
            "type": "http",
            "url": url,
            "headers": {"Authorization": "Bearer $E2E_HOOK_TOKEN"},
            "allowedEnvVars": ["E2E_HOOK_TOKEN"],  # Claude Code expands only listed variables
        }
        settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [entry]}]}}
        (agent.project / ".claude").mkdir()
        (agent.project / ".claude" / "settings.json").write_text(json.dumps(settings))
        victim = agent.project / "victim"
        victim.mkdir()
        model = fake_model([ToolTurn(command=f"rm -rf {victim}"), TextTurn(text="ok")])

        done = agent.run("clean up", model.url, {"E2E_HOOK_TOKEN": "s3cret"})
    finally:
        server.shutdown()
        server.server_close()

    assert done.returncode == 0, done.stderr[-3000:]
    assert victim.is_dir()
    assert DENY_REASON in model.fake.transcript()
    [(headers, body)] = received
    assert headers["Authorization"] == "Bearer s3cret"
    assert body["hook_event_name"] == "PreToolUse"
    assert body["tool_input"] == {"command": f"rm -rf {victim}"}
    assert body["tool_use_id"] in model.fake.transcript()


@pytest.mark.parametrize("agent_name", AGENTS)
def test_nothing_but_the_fake_model_is_contacted(agent_name, agent_install, fake_model, tmp_path):
    """Telemetry, update checks and plugin sync are off: no request goes to the proxy.

    (Clients that ignore HTTP(S)_PROXY, such as Node's built-in fetch, are not caught here.)
    """
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    model = fake_model([ToolTurn(command="echo hi"), TextTurn(text="ok")])
    with ProxySink() as sink:
        agent = Agent(
            name=agent_name,
            bin_dir=agent_install.bin_dir,
            home=tmp_path / "home",
            project=tmp_path / "project",
            proxy=sink.url,
        )
        done = agent.run("say hi", model.url)

    assert done.returncode == 0, done.stderr[-3000:]
    assert len(model.fake.agent_requests()) == 2
    assert sink.attempts == []
