"""Each golden fixture through its agent's protocol module: what toolhooks reads from the payload,
and the reply it renders for the fixture's decision, in the agent's own protocol."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fixture_cases import AGENTS, Case, cases, matches, reply_matches
from toolhooks.agents import HookAnswer, ProtocolError, protocol
from toolhooks.agents._protocol import CAPABILITIES

ANSWERS = cases(refusals=False)
REFUSALS = cases(refusals=True)


def test_every_agent_has_fixtures_for_every_wired_event_and_its_refusals() -> None:
    for agent in AGENTS:
        covered = {case.event for case in ANSWERS if case.agent == agent}
        assert set(protocol(agent).events) <= covered, agent
        assert any(case.agent == agent for case in REFUSALS), agent


def test_the_fixtures_cover_blocked_allowed_rewritten_and_approval_answers() -> None:
    for agent in AGENTS:
        actions = {c.data["answer"]["action"] for c in ANSWERS if c.agent == agent}
        assert {"deny", "allow", "rewrite", "ask", "none"} <= actions, agent


@pytest.mark.parametrize("case", ANSWERS, ids=lambda c: c.id)
def test_payload_reads_as_the_event_the_fixture_names(case: Case) -> None:
    event = protocol(case.agent).parse(case.data["payload"])
    assert (event.agent, event.event_name) == (case.agent, case.event)
    assert event.raw == case.data["payload"]
    for field, expected in case.data["event"].items():
        actual = getattr(event, field)
        actual = dict(actual) if field == "params" else actual
        assert matches(expected, actual), f"{field}: {actual!r}, expected {expected!r}"


@pytest.mark.parametrize("case", ANSWERS, ids=lambda c: c.id)
def test_answer_renders_as_the_agent_reads_it(case: Case) -> None:
    agent = protocol(case.agent)
    event = agent.parse(case.data["payload"])
    reply = agent.render(event, HookAnswer(**case.data["answer"]))
    problem = reply_matches(case.data["reply"], reply.stdout, reply.stderr, reply.exit_code)
    assert not problem, problem


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.id)
def test_unreadable_payload_is_refused_in_the_agents_protocol(case: Case) -> None:
    agent = protocol(case.agent)
    try:
        payload = json.loads(case.stdin)
    except ValueError:
        payload = None
    else:
        with pytest.raises(ProtocolError) as raised:
            agent.parse(payload)
        assert case.data["error"] in str(raised.value)
    reply = agent.refuse(payload, "toolhooks could not read this hook call")
    problem = reply_matches(case.data["reply"], reply.stdout, reply.stderr, reply.exit_code)
    assert not problem, problem


@pytest.mark.parametrize("agent", AGENTS)
def test_capabilities_name_only_what_the_bridge_knows(agent: str) -> None:
    for case in ANSWERS:
        if case.agent == agent:
            parsed = protocol(agent).parse(case.data["payload"])
            assert protocol(agent).capabilities(parsed) <= CAPABILITIES


@pytest.mark.parametrize("agent", AGENTS)
def test_a_protocol_module_imports_only_the_stdlib_and_its_package(agent: str) -> None:
    # The stdlib hook client imports the one protocol it speaks before any daemon answers.
    code = (
        "import sys; before = set(sys.modules);"
        f"from toolhooks.agents import protocol; protocol({agent!r});"
        "print(sorted(m for m in set(sys.modules) - before"
        " if m.split('.')[0] not in sys.stdlib_module_names"
        " and m not in ('toolhooks', 'toolhooks.agents') and not m.startswith('toolhooks.agents._')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
