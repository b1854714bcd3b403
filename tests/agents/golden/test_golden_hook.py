"""The golden fixtures through the real ``toolhooks hook AGENT`` process, both directions.

Cursor, Copilot, Windsurf and Cline cannot run on this machine, so their published hook schemas
stand in for them: each fixture's payload goes on the stdin of the real console script, with a
throwaway plugin installed as a real distribution deciding what the fixture's answer says (a
block for ``rm -rf``, a rewrite of ``original``, an approval for ``needs-approval``, a redaction
of ``ghp_secret`` after the call), and the reply must be what the agent reads. A text the bridge
words itself (an approval's reason, a denial naming a change it cannot carry) must contain what
the fixture's reply says toolhooks meant; everything else is compared whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fixture_cases import AGENTS, Case, cases, reply_matches
from toolhooks.agents import protocol

pytest.importorskip(
    "toolhooks.agents._run", reason="toolhooks hook AGENT (issue #26) not built yet"
)

TOOLHOOKS = str(Path(sys.executable).parent / "toolhooks")
BLOCK_REASON = "fixture guard: rm -rf is not allowed"

GUARD = """
import json
from toolhooks import hookimpl


class Guard:
    priority = 1000

    @hookimpl
    def before_tool_call(self, call):
        text = json.dumps(dict(call.params))
        if "rm -rf" in text:
            return {"block": True, "block_reason": "fixture guard: rm -rf is not allowed"}
        if '.env"' in text:
            return {"block": True, "block_reason": "fixture guard: .env files are not readable"}
        if "original" in text:
            return {"params": {
                key: value.replace("original", "rewritten") if isinstance(value, str) else value
                for key, value in call.params.items()
            }}
        if "needs-approval" in text:
            return {"require_approval": {
                "title": "Touch a file",
                "description": "touch needs-approval.txt",
                "allowed_decisions": ["allow-once", "allow-always", "deny"],
                "timeout_s": 60,
            }}
        return None

    @hookimpl
    def after_tool_call(self, call, result):
        content = result.content or ""
        if "ghp_secret" in content or "API_KEY=secret" in content:
            redacted = content.replace("ghp_secret", "[REDACTED]").replace("secret", "[REDACTED]")
            return {"content": redacted}
        return None
"""

CONFIG = """
[agents]
sender = "fixture-tester"

[approvals]
db = "{work}/approvals.db"
{approvals}

[plugins.event_log]
path = "{work}/events.jsonl"
"""


@pytest.fixture
def hook(install_dist, tmp_path):
    """Runs ``toolhooks hook AGENT`` with ``stdin``; returns the finished process."""
    site = install_dist("fixture-guard", {"fixture_guard": GUARD}, {"guard": "fixture_guard:Guard"})
    config = tmp_path / "toolhooks.toml"
    config.write_text(CONFIG.format(work=tmp_path, approvals=""))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")},
        "PYTHONPATH": str(site),
        "TOOLHOOKS_CONFIG": str(config),
        "HOME": str(tmp_path),
    }

    def run(agent: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [TOOLHOOKS, "hook", agent], input=stdin, env=env, cwd=tmp_path,
            capture_output=True, timeout=120,
        )  # fmt: skip

    def toolhooks(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [TOOLHOOKS, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
        )

    def start(agent: str, stdin: bytes) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [TOOLHOOKS, "hook", agent], env=env, cwd=tmp_path,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert process.stdin is not None
        process.stdin.write(stdin)
        process.stdin.close()
        return process

    run.log = tmp_path / "events.jsonl"  # type: ignore[attr-defined]
    run.config = config  # type: ignore[attr-defined]
    run.toolhooks = toolhooks  # type: ignore[attr-defined]
    run.start = start  # type: ignore[attr-defined]
    yield run
    stop_daemons_of(config)


def stop_daemons_of(config: Path) -> None:
    """End a toolhooks daemon the test's hooks started (its environment names this test's
    config), so none outlives the test."""
    marker = f"TOOLHOOKS_CONFIG={config}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker in environ.split(b"\0"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGTERM)


def through_the_bridge(case: Case) -> bool:
    """Whether the guard brings the fixture's answer about: a decision before a call (a loop
    warning is the loop detector's, not the guard's), a redaction after one whose before event
    the fixture gives, or a no-op."""
    answer = case.data["answer"]
    if "context" in answer:
        return False
    if case.data["event"].get("phase") == "other":
        return True
    if case.data["event"].get("phase") == "after":
        return "before" in case.data and "[REDACTED]" in answer.get("result_text", "[REDACTED]")
    return answer["action"] in ("deny", "allow", "rewrite", "ask")


def worded_by_the_bridge(expected: Any, answer: dict[str, Any]) -> Any:
    """The fixture's reply where the bridge words the text itself: an approval's reason must
    name the approval ("Touch a file"), a denial naming a change must show the new input."""
    if isinstance(expected, dict):
        return {key: worded_by_the_bridge(value, answer) for key, value in expected.items()}
    if not isinstance(expected, str):
        return expected
    if answer["action"] == "ask" and expected == answer.get("reason"):
        return "re:.*Touch a file.*"
    if answer["action"] == "rewrite" and expected.startswith("re:"):
        return "re:.*echo rewritten > made.txt.*"
    return expected


def one_of_each_kind(found: list[Case]) -> list[Case]:
    """A case per agent, phase and action (the events install wires first): each process costs
    a runtime's start-up, and cases of one kind take the same way through the bridge (every
    case goes through the protocols in test_golden_protocols)."""
    chosen: dict[tuple[str, ...], Case] = {}
    for case in sorted(found, key=lambda c: c.event not in protocol(c.agent).events):
        phase = case.data["event"]["phase"] if "event" in case.data else "refused"
        answer = case.data.get("answer", {})
        kind = (
            case.agent,
            phase,
            answer.get("action", "stdin" in case.data),
            "result_text" in answer,
        )
        chosen.setdefault(kind, case)
    return sorted(chosen.values(), key=lambda c: c.id)


@pytest.mark.parametrize(
    "case",
    one_of_each_kind([c for c in cases(refusals=False) if through_the_bridge(c)]),
    ids=lambda c: c.id,
)
def test_fixture_through_toolhooks_hook(case: Case, hook) -> None:
    if "before" in case.data:  # the call's before event, so the after event is its second half
        hook(case.agent, json.dumps(case.data["before"]).encode())
    done = hook(case.agent, case.stdin)
    expected = worded_by_the_bridge(case.data["reply"], case.data["answer"])
    problem = reply_matches(expected, done.stdout.decode(), done.stderr.decode(), done.returncode)
    assert not problem, problem
    if "before" in case.data:  # both halves are one call in the audit log, with the agent's name
        log = [json.loads(line) for line in hook.log.read_text().splitlines() if line.strip()]
        proposed = [e for e in log if e["event"] == "tool.proposed"]
        finished = [e for e in log if e["event"] == "tool.finished"]
        assert len(proposed) == len(finished) == 1, [e["event"] for e in log]
        assert proposed[0]["call_id"] == finished[0]["call_id"]
        assert proposed[0]["agent_id"] == case.agent
        assert proposed[0]["tool"] == case.data["event"]["tool"]


@pytest.mark.parametrize("case", one_of_each_kind(cases(refusals=True)), ids=lambda c: c.id)
def test_unreadable_stdin_fails_closed_through_toolhooks_hook(case: Case, hook) -> None:
    done = hook(case.agent, case.stdin)
    problem = reply_matches(
        case.data["reply"], done.stdout.decode(), done.stderr.decode(), done.returncode
    )
    assert not problem, problem


@pytest.mark.parametrize("agent", AGENTS)
def test_a_huge_event_fails_closed_in_the_agents_protocol(agent: str, hook) -> None:
    refusal = next(c for c in cases(refusals=True) if c.agent == agent)
    huge = json.dumps({"padding": "x" * 10_000_000}).encode()
    done = hook(agent, huge)
    problem = reply_matches(
        refusal.data["reply"], done.stdout.decode(), done.stderr.decode(), done.returncode
    )
    assert not problem, problem


@pytest.mark.parametrize("agent", ["windsurf", "cline"])
def test_an_approval_the_agent_cannot_ask_for_waits_on_the_queue(agent: str, hook, tmp_path):
    """Windsurf and Cline have no prompt a hook can raise: the approval goes to the
    ``[approvals]`` queue, the hook waits, and a person's decision lets the call run."""
    hook.config.write_text(CONFIG.format(work=tmp_path, approvals='route = "queue"\nwait_s = 60'))
    case = next(
        c for c in cases(refusals=False) if c.agent == agent and c.data["answer"]["action"] == "ask"
    )
    with hook.start(agent, case.stdin) as waiting:
        deadline = time.monotonic() + 60
        pending: list[dict[str, Any]] = []
        while not pending and time.monotonic() < deadline and waiting.poll() is None:
            listed = hook.toolhooks("approvals", "list", "--state", "pending", "--json")
            pending = json.loads(listed.stdout or "[]") if listed.returncode == 0 else []
            time.sleep(0.1)
        assert pending, "the hook never asked the queue"
        assert waiting.poll() is None, "the hook answered before anyone decided"
        decided = hook.toolhooks("approvals", "approve", str(pending[0]["id"]), "--by", "fixture")
        assert decided.returncode == 0, decided.stderr
        waiting.wait(timeout=60)
        assert waiting.stdout is not None and waiting.stderr is not None
        stdout, stderr = waiting.stdout.read(), waiting.stderr.read()
    allowed = next(
        c.data["reply"]
        for c in cases(refusals=False)
        if c.agent == agent
        and c.data["answer"]["action"] == "allow"
        and "context" not in c.data["answer"]
    )
    problem = reply_matches(allowed, stdout.decode(), stderr.decode(), waiting.returncode)
    assert not problem, problem
