"""The adapter scenario kit checked against the plainest driver there is: a loop over rt.call.

If a scenario fails here, the kit (or the core) is wrong, not an adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from toolhooks import Runtime
from toolhooks.testing.scenarios import (
    SCENARIOS,
    AgentRun,
    Answer,
    Scenario,
    ToolMessage,
    check,
)


class PlainLoop:
    """A model that proposes each call in turn, and a host that runs it through ``rt.call``."""

    name = "plain loop"

    def approver(self) -> Any:
        return lambda pending: "defer"

    def run(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        for tool in tools:
            runtime.add_tool(tool)
        messages, offered = [], []
        for proposal in proposals:
            offered.append(frozenset(spec.name for spec in runtime.visible_tools()))
            outcome = runtime.call(proposal)
            messages.append(
                ToolMessage(tool=proposal["name"], content=outcome.content, is_error=not outcome.ok)
            )
        offered.append(frozenset(spec.name for spec in runtime.visible_tools()))
        return AgentRun(messages=tuple(messages), offered=tuple(offered))

    async def arun(
        self,
        runtime: Runtime,
        tools: list[Callable[..., Any]],
        proposals: list[dict[str, Any]],
        answer: Answer,
    ) -> AgentRun:
        for tool in tools:
            runtime.add_tool(tool)
        messages, offered = [], []
        for proposal in proposals:
            offered.append(frozenset(spec.name for spec in runtime.visible_tools()))
            outcome = await runtime.acall(proposal)
            messages.append(
                ToolMessage(tool=proposal["name"], content=outcome.content, is_error=not outcome.ok)
            )
        return AgentRun(messages=tuple(messages), offered=tuple(offered))


# Pausing (defer, then resume) and the hidden-tool block arrive with the approvals issue (#11);
# until then the plain loop runs the scenarios the core already supports.
RUNNABLE = [s for s in SCENARIOS if not s.answers and s.name != "hidden tool"]


@pytest.mark.parametrize("scenario", RUNNABLE, ids=lambda s: s.name)
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_scenario_through_a_plain_loop(scenario: Scenario, is_async: bool, tmp_path) -> None:
    check(scenario, PlainLoop(), workdir=tmp_path, is_async=is_async)


def test_every_scenario_is_well_formed() -> None:
    names = [scenario.name for scenario in SCENARIOS]
    assert len(names) == len(set(names))
    for scenario in SCENARIOS:
        count = len(scenario.proposals)
        assert len(scenario.expect.seen) == len(scenario.expect.errors) == count, scenario.name
        assert len(scenario.expect.asked) == len(scenario.answers), scenario.name


def test_a_driver_that_skips_the_pipeline_fails_the_check(tmp_path) -> None:
    """The check must catch an adapter that runs the tool without toolhooks."""

    class Bypass(PlainLoop):
        def run(self, runtime, tools, proposals, answer):  # type: ignore[override]
            by_name = {tool.__name__: tool for tool in tools}
            messages = []
            for proposal in proposals:
                content = by_name[proposal["name"]](**proposal["params"])
                messages.append(ToolMessage(tool=proposal["name"], content=content, is_error=False))
            return AgentRun(messages=tuple(messages), offered=(frozenset(by_name),))

    rewrite = next(s for s in SCENARIOS if s.name == "params rewrite")
    with pytest.raises(AssertionError, match=r"tools ran as|not in"):
        check(rewrite, Bypass(), workdir=tmp_path)
