"""Running one adapter scenario through a driver, and every assertion it makes."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..records._decisions import ApprovalDecision
from ..records._results import PendingApproval
from ..runtime._runtime import Runtime
from ._fixtures import EventRecorder
from ._scenario_parts import make_tools
from ._scenario_records import AgentRun, Driver, Scenario, approval_view


def check(scenario: Scenario, driver: Driver, *, workdir: Path, is_async: bool = False) -> None:
    """Run ``scenario`` through ``driver`` on a fresh runtime and assert everything it expects."""
    ran: list[tuple[str, dict[str, Any]]] = []
    asked: list[dict[str, Any]] = []
    answers = list(scenario.answers)

    def next_answer(view: Mapping[str, Any]) -> Mapping[str, Any]:
        asked.append(dict(view["params"]))
        assert answers, f"{scenario.name}: asked a human more often than the scenario answers"
        return answers.pop(0)

    def inline_approver(pending: PendingApproval) -> ApprovalDecision:
        answer = next_answer(approval_view(pending))
        return ApprovalDecision(**answer)

    recorder = EventRecorder()
    runtime = Runtime(
        plugins=[*scenario.plugins(), recorder],
        config=scenario.config(workdir),
        approver=driver.approver() if scenario.pauses else inline_approver,
        load_entrypoints=False,
    )
    try:
        tools = make_tools(ran)
        proposals = [dict(p) for p in scenario.proposals]
        if is_async:
            transcript = asyncio.run(driver.arun(runtime, tools, proposals, next_answer))
        else:
            transcript = driver.run(runtime, tools, proposals, next_answer)
    finally:
        runtime.close()
    _assert_transcript(scenario, transcript, ran, asked, answers)
    _assert_one_call_each(scenario, recorder)


def _assert_transcript(
    scenario: Scenario,
    transcript: AgentRun,
    ran: list[tuple[str, dict[str, Any]]],
    asked: list[dict[str, Any]],
    unused_answers: list[dict[str, Any]],
) -> None:
    expect, name = scenario.expect, scenario.name
    messages = transcript.messages
    assert len(expect.seen) == len(expect.errors) == len(scenario.proposals), name
    assert [m.tool for m in messages] == [p["name"] for p in scenario.proposals], (
        f"{name}: the model was given results for {[m.tool for m in messages]}"
    )
    for message, text, is_error in zip(messages, expect.seen, expect.errors, strict=True):
        assert text in message.content, f"{name}: {text!r} not in {message.content!r}"
        assert message.is_error is is_error, f"{name}: is_error={message.is_error} for {message}"
    for message in messages:
        for secret in expect.never_seen:
            assert secret not in message.content, f"{name}: the model saw {secret!r}"
    assert ran == list(expect.ran), f"{name}: the tools ran as {ran}"
    assert asked == list(expect.asked), f"{name}: the human was shown {asked}"
    assert not unused_answers, f"{name}: answers never asked for: {unused_answers}"
    assert transcript.offered, f"{name}: the driver reported no model turn"
    for offered in transcript.offered:
        assert not (offered & expect.hidden), f"{name}: the model was shown {offered}"


def _assert_one_call_each(scenario: Scenario, recorder: EventRecorder) -> None:
    by_call: dict[str | None, list[str]] = {}
    for event in recorder.events:
        by_call.setdefault(event.call_id, []).append(event.event)
    assert len(by_call) == len(scenario.proposals), (
        f"{scenario.name}: {len(by_call)} call ids for {len(scenario.proposals)} proposals"
    )
    for call_id, names in by_call.items():
        assert names.count("tool.proposed") == 1, f"{scenario.name}: {call_id}: {names}"
        assert names.count("tool.injected") == 1, f"{scenario.name}: {call_id}: {names}"
        assert names[-1] == "tool.injected", f"{scenario.name}: {call_id}: {names}"
