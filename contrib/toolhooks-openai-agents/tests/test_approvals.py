"""toolhooks approvals through the SDK's own pause: needs_approval, interruptions, approve/reject."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, RunState
from agents.items import ToolCallOutputItem
from agents.result import RunResult
from agents.testing import ScriptedModel, assistant_message, function_call
from toolhooks import ApprovalDecision, PendingApproval, Runtime, ToolCall, hookimpl
from toolhooks.testing import EventRecorder, require
from toolhooks_openai_agents import aresolve, defer_to_sdk, guard_agent, guard_run_config, resolve

CONFIG = RunConfig(tracing_disabled=True)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


class AskFirst:
    """Every call of ``deploy`` needs a human; allow-always and edit are on offer."""

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        return {
            "require_approval": {
                "title": "Deploy?",
                "description": f"deploy {call.params.get('target')}",
                "allowed_decisions": ["allow-once", "allow-always", "deny", "edit"],
            }
        }


class Setup:
    def __init__(self, approver: Any = defer_to_sdk, calls: int = 1) -> None:
        self.ran: list[str] = []

        def deploy(target: str) -> str:
            """Deploy the service."""
            self.ran.append(target)
            return f"deployed to {target}"

        self.events = EventRecorder()
        self.rt = Runtime(
            plugins=[AskFirst(), self.events], approver=approver, load_entrypoints=False
        )
        steps: list[Any] = [
            [function_call("deploy", {"target": "staging"}, call_id=f"call_{i}")]
            for i in range(calls)
        ]
        self.model = ScriptedModel([*steps, [assistant_message("done")]])
        self.agent = guard_agent(self.rt, Agent(name="ops", model=self.model, tools=[deploy]))

    def run(self, loop: asyncio.AbstractEventLoop, start: Any = "go", guarded: bool = True) -> Any:
        config = guard_run_config(self.rt, CONFIG) if guarded else CONFIG
        return loop.run_until_complete(Runner.run(self.agent, start, run_config=config))

    def per_call(self, name: str) -> dict[str | None, int]:
        counts: dict[str | None, int] = {}
        for event in self.events.of(name):
            counts[event.call_id] = counts.get(event.call_id, 0) + 1
        return counts


def outputs(result: RunResult) -> list[Any]:
    return [item.output for item in result.new_items if isinstance(item, ToolCallOutputItem)]


def test_an_approver_that_answers_at_once_never_pauses_the_run(
    loop: asyncio.AbstractEventLoop,
) -> None:
    asked: list[PendingApproval] = []

    def approver(pending: PendingApproval) -> ApprovalDecision:
        asked.append(pending)
        return ApprovalDecision("deny", reason="not today")

    setup = Setup(approver)
    result = setup.run(loop)
    assert result.interruptions == []
    assert outputs(result) == ["Denied by user: not today"]
    assert setup.ran == [] and len(asked) == 1
    assert setup.per_call("tool.injected") == {"call_0": 1}


def test_run_state_approve_runs_the_call_once_with_allow_once(
    loop: asyncio.AbstractEventLoop,
) -> None:
    setup = Setup()
    paused = setup.run(loop)
    [item] = paused.interruptions
    assert setup.ran == [] and setup.events.names()[-1] == "approval.deferred"
    state = paused.to_state()
    state.approve(item)
    result = setup.run(loop, state)
    assert outputs(result) == ["deployed to staging"]
    assert setup.ran == ["staging"]
    [resolved] = setup.events.of("approval.resolved")
    assert (resolved.data["decision"], resolved.data["by"]) == ("allow-once", "openai-agents")
    assert setup.per_call("tool.proposed") == setup.per_call("tool.injected") == {"call_0": 1}


def test_run_state_reject_shows_toolhooks_denial_with_guard_run_config(
    loop: asyncio.AbstractEventLoop,
) -> None:
    setup = Setup()
    paused = setup.run(loop)
    state = paused.to_state()
    state.reject(paused.interruptions[0])
    result = setup.run(loop, state)
    assert outputs(result) == ["Denied by user"]
    assert setup.ran == []
    [injected] = setup.events.of("tool.injected")
    assert injected.data["status"] == "denied"


def test_run_state_reject_without_guard_run_config_is_settled_on_the_next_turn(
    loop: asyncio.AbstractEventLoop,
) -> None:
    setup = Setup()
    paused = setup.run(loop, guarded=False)
    state = paused.to_state()
    state.reject(paused.interruptions[0])
    result = setup.run(loop, state, guarded=False)
    assert outputs(result) == ["Tool execution was not approved."]  # the SDK's own words
    [injected] = setup.events.of("tool.injected")
    assert (injected.call_id, injected.data["status"]) == ("call_0", "denied")


def test_a_decision_recorded_elsewhere_wins_over_the_sdks_approve(
    loop: asyncio.AbstractEventLoop,
) -> None:
    setup = Setup()
    paused = setup.run(loop)
    row = setup.rt.approvals.for_call("call_0")
    assert row is not None and row.state == "pending"
    setup.rt.approvals.decide(row.id, "deny", by="alice", reason="freeze week")
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    result = setup.run(loop, state)
    assert outputs(result) == ["Denied by user: freeze week"]
    assert setup.ran == []


def test_allow_always_through_resolve_lets_the_next_call_through_without_a_pause(
    loop: asyncio.AbstractEventLoop,
) -> None:
    setup = Setup(calls=2)
    paused = setup.run(loop)
    state = paused.to_state()
    resolve(setup.rt, state, paused.interruptions[0], "allow-always", by="bob")
    result = setup.run(loop, state)
    assert result.interruptions == []
    assert setup.ran == ["staging", "staging"]
    assert outputs(result)[-1] == "deployed to staging"


def test_an_edit_the_chain_changes_again_fails_closed_inside_the_tool_call(
    loop: asyncio.AbstractEventLoop,
) -> None:
    class Prefix:
        @hookimpl
        def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
            target = str(call.params.get("target"))
            return {"params": {"target": target if target.startswith("eu-") else f"eu-{target}"}}

    setup = Setup()
    setup.rt.register(Prefix(), name="prefix", priority=100)
    paused = setup.run(loop)
    state = paused.to_state()
    resolve(setup.rt, state, paused.interruptions[0], "edit", params={"target": "prod"})
    result = setup.run(loop, state)
    assert setup.ran == []
    [output] = outputs(result)
    assert "cannot pause inside a tool call" in output
    assert setup.per_call("tool.injected") == {"call_0": 1}


def test_a_call_the_sdk_approved_for_good_cannot_pause_and_is_denied_with_a_reason(
    loop: asyncio.AbstractEventLoop,
) -> None:
    setup = Setup(calls=2)
    paused = setup.run(loop)
    state = paused.to_state()
    state.approve(paused.interruptions[0], always_approve=True)
    result = setup.run(loop, state)
    first, second = outputs(result)
    assert first == "deployed to staging"
    assert second.startswith("Denied by user: a new approval is needed")
    assert "cannot pause inside a tool call" in second
    assert setup.ran == ["staging"]
    assert setup.per_call("tool.injected") == {"call_0": 1, "call_1": 1}


def test_aresolve_denies_with_the_reason_the_human_gave(loop: asyncio.AbstractEventLoop) -> None:
    setup = Setup()
    paused = setup.run(loop)
    state = paused.to_state()
    loop.run_until_complete(
        aresolve(setup.rt, state, paused.interruptions[0], "deny", reason="wrong target")
    )
    result = setup.run(loop, state)
    assert outputs(result) == ["Denied by user: wrong target"]


def test_a_restarted_agent_resumes_a_paused_call_from_the_shared_store(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Pause under one runtime, serialize the run, resume under a new one on the same Redis."""
    url = os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    require(_redis_reachable(url), f"no Redis server at {url} (set TOOLHOOKS_TEST_REDIS_URL)")
    prefix = f"toolhooks-test-{uuid.uuid4().hex[:12]}"
    config = {"state": {"url": url, "key_prefix": prefix}}
    ran: list[str] = []

    def deploy(target: str) -> str:
        """Deploy the service."""
        ran.append(target)
        return f"deployed to {target}"

    def build(rt: Runtime) -> Agent[Any]:
        model = ScriptedModel(
            [
                [function_call("deploy", {"target": "staging"}, call_id="call_0")],
                [assistant_message("done")],
            ]
        )
        return guard_agent(rt, Agent(name="ops", model=model, tools=[deploy]))

    first_events, second_events = EventRecorder(), EventRecorder()
    first = Runtime(
        plugins=[AskFirst(), first_events],
        config=config,
        approver=defer_to_sdk,
        load_entrypoints=False,
    )
    paused = loop.run_until_complete(Runner.run(build(first), "go", run_config=CONFIG))
    saved = paused.to_state().to_string()
    first.close()

    second = Runtime(
        plugins=[AskFirst(), second_events],
        config=config,
        approver=defer_to_sdk,
        load_entrypoints=False,
    )
    agent = build(second)
    state = loop.run_until_complete(RunState.from_string(agent, saved))
    state.approve(state.get_interruptions()[0])
    result = loop.run_until_complete(Runner.run(agent, state, run_config=CONFIG))
    second.close()
    _drop_keys(url, prefix)
    assert ran == ["staging"]
    assert outputs(result) == ["deployed to staging"]
    assert first_events.names().count("tool.proposed") == 1
    assert "tool.injected" not in first_events.names()
    assert second_events.names().count("tool.injected") == 1
    assert "tool.proposed" not in second_events.names()


def _redis_reachable(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


def _drop_keys(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
