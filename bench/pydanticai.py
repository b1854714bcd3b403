"""What toolhooks adds to a PydanticAI tool call: ``python bench/pydanticai.py [--quick] [--clock wall]``.

(Not ``bench/pydantic_ai.py``: a script's folder comes first on ``sys.path``, and a file of that
name would shadow the framework it measures.)

Three agents run in the same process, interleaved round by round (``timing.compare``), each on its
own ``FunctionModel`` script:

- "PydanticAI, no tool call": the model answers at once. The fixed cost of a run.
- "PydanticAI, N tool calls": the model asks for ``read(path)`` N times, one call per model turn
  (the usual shape of an agent loop), distinct paths, then answers.
- "PydanticAI + toolhooks, N tool calls": the same agent with ``ToolhooksCapability`` over the
  default pipeline (``Runtime`` with the built-ins from their entry points: policy, loop
  detection, result budget, the JSONL event log), as ``bench/pipeline.py`` builds it.

The framework's own cost of one more tool call is (N calls - no call) / N. toolhooks' cost is
measured two ways: (with toolhooks - without) / N, the paired difference of two whole runs timed
within milliseconds of each other (honest but noisy on a shared machine: it is the small
difference of two large numbers), and directly, as the time spent inside the capability's hooks
(``prepare_tools``, the guarded ``call_tool`` less the tool's own call, ``after_node_run``), summed
over the same runs. The target is toolhooks under 5 % of the framework's cost per call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import timing
from pipeline import default_runtime, read
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from timing import micro
from toolhooks_pydantic_ai import ToolhooksCapability

TARGET = 0.05


class TimedCapability(ToolhooksCapability):
    """The capability, adding up the time spent in its own hooks (the tool's call left out)."""

    spent = 0.0
    calls = 0

    async def prepare_tools(self, ctx: Any, tool_defs: list[Any]) -> list[Any]:
        started = timing.clock()
        try:
            return await super().prepare_tools(ctx, tool_defs)
        finally:
            self.spent += timing.clock() - started

    async def after_node_run(self, ctx: Any, *, node: Any, result: Any) -> Any:
        started = timing.clock()
        try:
            return await super().after_node_run(ctx, node=node, result=result)
        finally:
            self.spent += timing.clock() - started

    async def run_tool(self, ctx: Any, name: str, tool_args: Any, tool: Any, inner: Any) -> Any:
        started = timing.clock()
        timed = TimedInner(inner)
        try:
            return await super().run_tool(ctx, name, tool_args, tool, timed)
        finally:
            self.spent += timing.clock() - started - timed.spent
            self.calls += 1


class TimedInner:
    """The toolset below the guard, timing the tool's own call so that it can be left out."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.spent = 0.0

    async def call_tool(self, *args: Any) -> Any:
        started = timing.clock()
        try:
            return await self.inner.call_tool(*args)
        finally:
            self.spent += timing.clock() - started


def script(calls: int) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(message, ModelResponse) for message in messages)
        if turn < calls:
            path = f"src/module_{turn}.py"
            return ModelResponse(parts=[ToolCallPart("read", {"path": path}, f"call_{turn}")])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


def contenders(calls: int, log_dir: str) -> tuple[dict[str, Any], Any, TimedCapability]:
    loop = asyncio.new_event_loop()
    runtime = default_runtime(log_dir)
    guard = TimedCapability(runtime)
    agents = {
        "PydanticAI, no tool call": Agent(script(0), tools=[read]),
        f"PydanticAI, {calls} tool calls": Agent(script(calls), tools=[read]),
        f"PydanticAI + toolhooks, {calls} tool calls": Agent(
            script(calls), tools=[read], capabilities=[guard]
        ),
    }

    def runner(agent: Agent[None, str]) -> Any:
        def run() -> None:
            result = loop.run_until_complete(agent.run("go"))
            assert result.output == "done", result.output

        return run

    def close() -> None:
        runtime.close()
        loop.close()

    return {label: runner(agent) for label, agent in agents.items()}, close, guard


def measure(calls: int, rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as log_dir:
        rows, close, guard = contenders(calls, log_dir)
        try:
            timings = timing.compare(rows, rounds=rounds, target_s=0.05)
        finally:
            close()
    inside = guard.spent / guard.calls
    bare, plain, guarded = (timings[label] for label in rows)
    framework = (plain.median - bare.median) / calls
    # The paired difference, round by round: both runs were timed within milliseconds.
    added = sorted(g - p for g, p in zip(guarded.samples, plain.samples, strict=True))
    toolhooks = added[len(added) // 2] / calls
    return {
        "run_no_call": bare.median,
        "run_with_calls": plain.median,
        "run_with_toolhooks": guarded.median,
        "framework_per_call": framework,
        "toolhooks_per_call": toolhooks,
        "toolhooks_inside_per_call": inside,
        "share": toolhooks / framework,
        "share_inside": inside / framework,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--clock", choices=sorted(timing.CLOCKS), default="cpu")
    args = parser.parse_args()
    timing.use_clock(args.clock)
    calls, rounds = (3, 2) if args.quick else (args.calls, args.rounds)
    result = measure(calls, rounds)
    print(
        f"## PydanticAI: one tool call ({args.clock} clock, {calls} calls a run, {rounds} rounds)"
    )
    print()
    print("| what | per run | per tool call |")
    print("|---|---|---|")
    print(f"| PydanticAI, no tool call | {micro(result['run_no_call'])} | |")
    print(
        f"| PydanticAI, {calls} tool calls | {micro(result['run_with_calls'])} "
        f"| {micro(result['framework_per_call'])} (framework) |"
    )
    print(
        f"| PydanticAI + toolhooks, {calls} tool calls | {micro(result['run_with_toolhooks'])} "
        f"| +{micro(result['toolhooks_per_call'])} (toolhooks, paired difference) |"
    )
    print(
        f"| time inside the capability's hooks | | {micro(result['toolhooks_inside_per_call'])} "
        "(toolhooks, measured directly) |"
    )
    print()
    print(f"toolhooks / framework per call, paired difference: {result['share']:.1%}")
    verdict = "met" if result["share_inside"] < TARGET else "NOT met"
    print(
        f"toolhooks / framework per call, measured directly: {result['share_inside']:.1%} "
        f"(target: under 5 %: {verdict})"
    )


if __name__ == "__main__":
    main()
