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
over the same runs. The target is issue #22's: toolhooks' own time under 5 % of the framework's
cost per call. That own time is split in two: the runtime's (``rt.acall`` less the tool inside,
``rt.is_visible`` for the model turn) and the adapter's glue (the rest).

Clocks (``--clock cpu``, the default): whole runs on the process CPU clock (PydanticAI runs a
sync tool on a worker thread, whose time a thread clock would miss), the hooks on the thread CPU
clock of the event loop's thread, so that waiting for a core on a loaded machine counts on
neither side. ``--clock wall`` times everything on ``perf_counter``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
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
# The clock of the hooks' own time (set by ``use``).
own_clock: Callable[[], float] = time.thread_time


def use(clock: str) -> None:
    """``cpu``: runs on the process CPU clock, hooks on their thread's; ``wall``: perf_counter."""
    global own_clock
    timing.clock = time.process_time if clock == "cpu" else time.perf_counter
    own_clock = time.thread_time if clock == "cpu" else time.perf_counter


class TimedCapability(ToolhooksCapability):
    """The capability, adding up the time spent in its own hooks (the tool's call left out), and
    within it the time in the runtime's methods."""

    spent = 0.0
    calls = 0
    in_runtime = 0.0
    inner = 0.0  # the tool's own call, so far

    def __post_init__(self) -> None:
        super().__post_init__()
        for method in ("acall", "aresume", "is_visible"):
            setattr(self.runtime, method, self._timed_runtime(getattr(self.runtime, method)))

    def _timed_runtime(self, method: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            inner, start = self.inner, own_clock()
            result = method(*args, **kwargs)
            if not asyncio.iscoroutine(result):
                self.in_runtime += own_clock() - start
                return result

            async def awaited() -> Any:
                try:
                    return await result
                finally:
                    self.in_runtime += own_clock() - start - (self.inner - inner)

            return awaited()

        return timed

    async def prepare_tools(self, ctx: Any, tool_defs: list[Any]) -> list[Any]:
        started = own_clock()
        try:
            return await super().prepare_tools(ctx, tool_defs)
        finally:
            self.spent += own_clock() - started

    async def after_node_run(self, ctx: Any, *, node: Any, result: Any) -> Any:
        started = own_clock()
        try:
            return await super().after_node_run(ctx, node=node, result=result)
        finally:
            self.spent += own_clock() - started

    async def run_tool(self, ctx: Any, name: str, tool_args: Any, tool: Any, inner: Any) -> Any:
        started = own_clock()
        timed = TimedInner(inner, self)
        try:
            return await super().run_tool(ctx, name, tool_args, tool, timed)
        finally:
            self.spent += own_clock() - started - timed.spent
            self.calls += 1


class TimedInner:
    """The toolset below the guard, timing the tool's own call so that it can be left out."""

    def __init__(self, inner: Any, guard: TimedCapability) -> None:
        self.inner = inner
        self.guard = guard
        self.spent = 0.0

    async def call_tool(self, *args: Any) -> Any:
        started = own_clock()
        try:
            return await self.inner.call_tool(*args)
        finally:
            spent = own_clock() - started
            self.spent += spent
            self.guard.inner += spent


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


def measure(calls: int, rounds: int, clock: str = "cpu") -> dict[str, float]:
    use(clock)
    with tempfile.TemporaryDirectory() as log_dir:
        rows, close, guard = contenders(calls, log_dir)
        try:
            timings = timing.compare(rows, rounds=rounds, target_s=0.05)
        finally:
            close()
    inside = guard.spent / guard.calls
    in_runtime = guard.in_runtime / guard.calls
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
        "toolhooks_runtime_per_call": in_runtime,
        "toolhooks_adapter_per_call": inside - in_runtime,
        "share": toolhooks / framework,
        "share_inside": inside / framework,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args()
    calls, rounds = (3, 2) if args.quick else (args.calls, args.rounds)
    result = measure(calls, rounds, args.clock)
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
    print(
        f"| of which the runtime (acall, is_visible) | | {micro(result['toolhooks_runtime_per_call'])} |"
    )
    print(f"| of which the adapter's glue | | {micro(result['toolhooks_adapter_per_call'])} |")
    print()
    print(f"toolhooks / framework per call, paired difference: {result['share']:.1%}")
    verdict = "met" if result["share_inside"] < TARGET else "NOT met"
    print(
        f"toolhooks / framework per call, measured directly: {result['share_inside']:.1%} "
        f"(target: under 5 %: {verdict})"
    )


if __name__ == "__main__":
    main()
