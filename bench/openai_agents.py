"""What one more tool call costs an OpenAI Agents SDK run, without and with toolhooks.

``python bench/openai_agents.py [--quick] [--rounds N] [--json FILE]``

Each timed unit is one whole ``Runner.run`` of an agent driven by the SDK's own ``ScriptedModel``
(no network, tracing off). "Per tool call" is a difference, so the fixed cost of a run cancels
out: a run whose model asks for CALLS tool calls, one a turn, minus a run whose model answers at
once, over CALLS. That is what the SDK itself charges for one more model turn + tool call. The
same two runs with the agent behind ``guard_agent`` (and ``guard_run_config``) give the cost with
the adapter. On a shared machine the difference of those medians moves by more than toolhooks
costs, so the guarded tool also times itself in the same runs: the time inside its
``is_enabled``, ``needs_approval`` and ``on_invoke_tool`` minus the time in the SDK's own tool
invoker that it calls. toolhooks' share is that time over the SDK's own per-call cost: issue
#22's "the pipeline's own share inside each framework adapter" (target < 5 %). That time is split
in two: the runtime's (``rt.adecide``, ``rt.acall``, ``rt.is_visible``, less the invoker inside)
and the adapter's glue (the rest: the ``ToolCall``, the JSON arguments, the status kept aside).

The runtime is the default pipeline of bench/pipeline.py (policy profile "coding", loop
detection, result budget, JSONL event log with one write a call, in a temporary directory). The
tool is an ``async def read(path) -> str`` returning about 200 characters (async, so the SDK does
not hop to a worker thread), the paths cycle so that loop detection sees progress. The four runs
are interleaved in one process (bench/timing.py). Clocks (``--clock cpu``, the default): whole
runs on the process CPU clock, toolhooks' own time on the thread CPU clock (the SDK runs the
tool on the loop's thread), so that time spent waiting for a core on a loaded machine counts on
neither side. ``--clock wall`` times everything on ``perf_counter``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE] + [HERE]

import timing  # noqa: E402
from agents import (  # noqa: E402
    Agent,
    FunctionTool,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402
from pipeline import BODY, PATHS, default_runtime  # noqa: E402
from timing import compare, micro  # noqa: E402
from toolhooks_openai_agents import guard_agent, guard_run_config  # noqa: E402

CALLS = 10
_serial = itertools.count()


async def read(path: str) -> str:
    """Read a file (a stand-in: returns a fixed body)."""
    return f"# {path}\n{BODY}"


class Stopwatch:
    """Seconds spent inside the guarded tool's three callbacks, minus the SDK invoker inside;
    and of those, the seconds inside the runtime's methods (the invoker left out too)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.seconds = 0.0
        self.runtime = 0.0
        self.inner = 0.0  # the SDK invoker's own seconds so far

    def around(self, function: Callable[..., Any], own: bool = True) -> Callable[..., Any]:
        """Time ``function``: toolhooks' own time (``own``) or the invoker (taken out)."""

        async def timed(*args: Any, **kwargs: Any) -> Any:
            clock, inner = self.clock, self.inner
            start = clock()
            try:
                result = function(*args, **kwargs)
                return await result if isinstance(result, Awaitable) else result
            finally:
                spent = clock() - start
                if own:
                    self.seconds += spent - (self.inner - inner)
                else:
                    self.inner += spent
                    self.seconds -= spent

        return timed

    def in_runtime(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """A runtime method, timed apart (its result awaited if it is a coroutine)."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            clock, inner = self.clock, self.inner
            start = clock()
            result = function(*args, **kwargs)
            if not isinstance(result, Awaitable):
                self.runtime += clock() - start
                return result

            async def awaited() -> Any:
                try:
                    return await result
                finally:
                    self.runtime += clock() - start - (self.inner - inner)

            return awaited()

        return timed


def instrument(agent: Agent[Any], watch: Stopwatch, rt: Any) -> None:
    for tool in agent.tools:
        assert isinstance(tool, FunctionTool)
        guard = tool.on_invoke_tool.__self__  # type: ignore[attr-defined]  # the GuardedTool
        inner = guard._inner  # the SDK's own invoker, run inside on_invoke_tool
        inner.on_invoke_tool = watch.around(inner.on_invoke_tool, own=False)
        tool.is_enabled = watch.around(tool.is_enabled)  # type: ignore[arg-type]
        tool.needs_approval = watch.around(tool.needs_approval)  # type: ignore[arg-type]
        tool.on_invoke_tool = watch.around(tool.on_invoke_tool)
    for method in ("acall", "adecide", "aresume", "aask", "is_visible"):
        setattr(rt, method, watch.in_runtime(getattr(rt, method)))


def script(turns: int) -> ScriptedModel:
    steps: list[Any] = []
    for _ in range(turns):
        n = next(_serial)
        params = {"path": f"src/module_{n % PATHS}.py"}
        steps.append([function_call("read", params, call_id=f"call_{n}")])
    return ScriptedModel([*steps, [assistant_message("done")]])


def measure(rounds: int, slot_s: float, calls: int = CALLS, clock: str = "cpu") -> dict[str, Any]:
    set_tracing_disabled(True)
    timing.clock = time.process_time if clock == "cpu" else time.perf_counter
    loop = asyncio.new_event_loop()
    watch = Stopwatch(time.thread_time if clock == "cpu" else time.perf_counter)
    with tempfile.TemporaryDirectory() as log_dir:
        rt = default_runtime(log_dir)
        plain_agent: Agent[Any] = Agent(name="bench", tools=[function_tool(read)])
        guarded_agent = guard_agent(rt, plain_agent)
        instrument(guarded_agent, watch, rt)
        plain_config = RunConfig(tracing_disabled=True)
        guarded_config = guard_run_config(rt, RunConfig(tracing_disabled=True))
        guarded_runs = 0

        def unit(turns: int, guarded: bool) -> Callable[[], object]:
            base, config = (
                (guarded_agent, guarded_config) if guarded else (plain_agent, plain_config)
            )

            def work() -> object:
                nonlocal guarded_runs
                agent = base.clone(model=script(turns))
                run = Runner.run(agent, "go", run_config=config, max_turns=turns + 1)
                before = watch.seconds, watch.runtime
                result = loop.run_until_complete(run)
                if guarded and turns:
                    guarded_runs += 1
                else:  # a run without tool calls is the fixed cost: not toolhooks' per call
                    watch.seconds, watch.runtime = before
                return result

            return work

        units = {
            "SDK, no tool call": unit(0, False),
            f"SDK, {calls} tool calls": unit(calls, False),
            "SDK + toolhooks, no tool call": unit(0, True),
            f"SDK + toolhooks, {calls} tool calls": unit(calls, True),
        }
        # Only the runs with tool calls count toward toolhooks' own time (calibration runs too,
        # on both sides: the count of guarded runs and the stopwatch).
        try:
            timings = compare(units, rounds=rounds, target_s=slot_s)
        finally:
            rt.close()
            loop.close()
    empty, plain, guarded_empty, guarded = (timings[label].samples for label in units)
    sdk = statistics.median((p - e) / calls for p, e in zip(plain, empty, strict=True))
    with_adapter = statistics.median(
        (g - e) / calls for g, e in zip(guarded, guarded_empty, strict=True)
    )
    own = watch.seconds / max(1, guarded_runs * calls)
    in_runtime = watch.runtime / max(1, guarded_runs * calls)
    return {
        "calls_per_run": calls,
        "rounds": rounds,
        "clock": clock,
        "sdk_per_call_s": sdk,
        "with_adapter_per_call_s": with_adapter,
        "toolhooks_own_per_call_s": own,
        "toolhooks_runtime_per_call_s": in_runtime,
        "toolhooks_adapter_per_call_s": own - in_runtime,
        "share": own / sdk,
    }


def render(result: dict[str, Any]) -> str:
    rows = [
        ("the SDK alone", micro(result["sdk_per_call_s"])),
        ("the SDK with guard_agent (difference of medians)", micro(result["with_adapter_per_call_s"])),
        ("toolhooks' own time (timed inside the guarded tool)", micro(result["toolhooks_own_per_call_s"])),
        ("  of which the runtime (adecide, acall, is_visible)", micro(result["toolhooks_runtime_per_call_s"])),
        ("  of which the adapter's glue", micro(result["toolhooks_adapter_per_call_s"])),
        ("toolhooks' share of the SDK's own cost", f"{result['share'] * 100:.1f} % (target < 5 %)"),
    ]  # fmt: skip
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run, not a measurement")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args(argv)
    rounds, slot = (3, 0.05) if args.quick else (args.rounds, 0.3)
    result = measure(rounds, slot, clock=args.clock)
    print(f"per tool call (model turn + tool call), {args.clock} clock")
    print(render(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
