"""What one more tool call costs a LangChain agent, without and with toolhooks.

``python bench/langchain.py [--quick] [--rounds N] [--json FILE]``

A real ``create_agent`` agent with a scripted chat model (no network) runs one conversation per
timed unit. "Per tool call" is measured as a difference, so the fixed cost of a run (the graph
invocation, the first and last model turn) cancels out: a run whose model proposes CALLS tool
calls, one a turn, minus a run whose model answers at once, divided by CALLS. That is what the
framework itself charges for one more step of model turn + tool call. The same two runs with
``ToolhooksMiddleware`` in front of the tool give the cost with the adapter. On a shared machine
the difference of those two medians is noisy (a few per cent of a step), so the adapter also times
its own share directly, in the same runs: the time spent inside its ``wrap_tool_call`` and
``wrap_model_call`` minus the time spent in LangChain's handler they call. A pair of runs with a
middleware that only calls the handlers shows what having any middleware costs LangChain. toolhooks' share is that
time over LangChain's own per-call cost: issue #22's "the pipeline's own share inside each
framework adapter" (target < 5 %). The own time is split in two: the runtime's (``rt.call`` less
the handler it runs, and ``rt.is_visible`` for the model turn) and the adapter's glue (the rest:
the ``ToolCall``, the request override, the tool message back).

The runtime is the default pipeline of bench/pipeline.py: the built-ins through their entry
points (policy profile "coding", loop detection, result budget, JSONL event log with one write a
call) writing to a temporary directory. The tool is ``read(path) -> str`` returning about 200
characters; the paths cycle so that loop detection sees progress. All six runs are interleaved in
one process (see bench/timing.py). Clocks (``--clock cpu``, the default): a whole run is timed
on the process's CPU clock, since LangGraph runs the tool step on a worker thread whose time a
thread clock would miss; toolhooks' own time is the thread CPU clock of the thread each hook runs
on (the handler inside runs on that same thread). CPU time does not count the time a process
waits for a core, so the share holds on a loaded machine; it also leaves out LangGraph's thread
hand-offs, which makes LangChain's step smaller and the share larger than on the wall clock.
``--clock wall`` times everything on ``perf_counter``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

# This file is named after the framework it measures: keep its directory from shadowing the real
# ``langchain`` package, while still finding the bench helpers next to it.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE] + [HERE]

import timing  # noqa: E402
from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import AgentMiddleware  # noqa: E402
from pipeline import default_runtime, read  # noqa: E402
from timing import compare, micro  # noqa: E402
from toolhooks_langchain import ToolhooksMiddleware  # noqa: E402
from toolhooks_langchain.testing import ScriptedChatModel  # noqa: E402

CALLS = 10
_paths = itertools.count()
# The clock of the hooks' own time (set by ``use``): this thread's CPU time, or the wall clock.
own_clock = time.thread_time


def use(clock: str) -> None:
    """``cpu``: runs on the process CPU clock, hooks on their thread's; ``wall``: perf_counter."""
    global own_clock
    timing.clock = time.process_time if clock == "cpu" else time.perf_counter
    own_clock = time.thread_time if clock == "cpu" else time.perf_counter


def _agent(calls: int, middleware: list[Any]) -> Any:
    """A run's work: invoke a fresh conversation whose model makes ``calls`` tool calls."""

    def proposals() -> list[dict[str, Any]]:
        return [
            {"name": "read", "params": {"path": f"src/module_{next(_paths) % 1000}.py"}}
            for _ in range(calls)
        ]

    model = ScriptedChatModel()
    agent = create_agent(model, tools=[read], middleware=middleware)
    message = {"messages": [{"role": "user", "content": "read the sources"}]}

    def run() -> None:
        # The script is per conversation; a new list each run keeps the paths moving.
        model.proposals[:] = proposals()
        del model.offered[:]
        agent.invoke(message)

    return run


class PassMiddleware(AgentMiddleware):
    """A middleware that only calls LangChain's handlers: what having one costs LangChain."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


class TimedMiddleware(ToolhooksMiddleware):
    """The adapter, timing its own share of each step: wrapper time minus LangChain's handler,
    and within it the runtime's share (``rt.call`` less the handler, ``rt.is_visible``)."""

    def __init__(self, runtime: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(runtime, *args, **kwargs)
        self.own: dict[str, list[float]] = {"tool": [], "model": []}
        self.pipeline: dict[str, list[float]] = {"tool": [], "model": []}
        self._handler = 0.0  # handler time inside the current hook
        self._runtime = 0.0  # runtime time inside the current hook, less the handler in it
        for method in ("call", "is_visible"):
            setattr(runtime, method, self._in_runtime(getattr(runtime, method)))

    def _in_runtime(self, method: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            handler, start = self._handler, own_clock()
            try:
                return method(*args, **kwargs)
            finally:
                self._runtime += own_clock() - start - (self._handler - handler)

        return timed

    def _timed(self, kind: str, wrap: Any, request: Any, handler: Any) -> Any:
        def timed_handler(inner: Any) -> Any:
            start = own_clock()
            try:
                return handler(inner)
            finally:
                self._handler += own_clock() - start

        self._handler = self._runtime = 0.0
        start = own_clock()
        result = wrap(request, timed_handler)
        self.own[kind].append(own_clock() - start - self._handler)
        self.pipeline[kind].append(self._runtime)
        return result

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return self._timed("tool", super().wrap_tool_call, request, handler)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return self._timed("model", super().wrap_model_call, request, handler)


def _per_call(samples: dict[str, list[float]], prefix: str, calls: int) -> list[float]:
    none, many = samples[f"{prefix}, 0 calls"], samples[f"{prefix}, {calls} calls"]
    return [(b - a) / calls for a, b in zip(none, many, strict=True)]


def measure(rounds: int, slot_s: float, calls: int = CALLS, clock: str = "cpu") -> dict[str, Any]:
    use(clock)
    with tempfile.TemporaryDirectory() as log_dir:
        rt = default_runtime(log_dir)
        guard = TimedMiddleware(rt)
        contenders = {
            "langchain, 0 calls": _agent(0, []),
            f"langchain, {calls} calls": _agent(calls, []),
            "langchain + pass-through middleware, 0 calls": _agent(0, [PassMiddleware()]),
            f"langchain + pass-through middleware, {calls} calls": _agent(
                calls, [PassMiddleware()]
            ),
            "langchain + toolhooks, 0 calls": _agent(0, [guard]),
            f"langchain + toolhooks, {calls} calls": _agent(calls, [guard]),
        }
        try:
            timings = compare(contenders, rounds, target_s=slot_s, warmup=1)
        finally:
            rt.close()
    samples = {label: timing.samples for label, timing in timings.items()}
    plain = _per_call(samples, "langchain", calls)
    passing = _per_call(samples, "langchain + pass-through middleware", calls)
    guarded = _per_call(samples, "langchain + toolhooks", calls)
    # One more tool call is one more model turn (hiding) and one more tool call (the pipeline).
    own = statistics.median(guard.own["tool"]) + statistics.median(guard.own["model"])
    in_runtime = statistics.median(guard.pipeline["tool"]) + statistics.median(
        guard.pipeline["model"]
    )
    framework = statistics.median(plain)
    return {
        "calls": calls,
        "rounds": rounds,
        "clock": clock,
        "per_call_langchain_s": framework,
        "per_call_with_toolhooks_s": statistics.median(guarded),
        "per_call_with_pass_through_s": statistics.median(passing),
        "difference_s": statistics.median(g - p for p, g in zip(plain, guarded, strict=True)),
        "toolhooks_own_s": own,
        "toolhooks_own_tool_s": statistics.median(guard.own["tool"]),
        "toolhooks_own_model_s": statistics.median(guard.own["model"]),
        "toolhooks_runtime_s": in_runtime,
        "toolhooks_adapter_s": own - in_runtime,
        "toolhooks_share": own / framework,
        "runs_s": {label: statistics.median(values) for label, values in samples.items()},
    }


def render(result: dict[str, Any]) -> str:
    share = result["toolhooks_share"]
    lines = [
        "LangChain create_agent: one more tool call (model turn + tool step), scripted model,"
        f" {result['clock']} clock",
        "",
        f"  per tool call, LangChain alone             {micro(result['per_call_langchain_s'])}",
        f"  per tool call, with a pass-through one     {micro(result['per_call_with_pass_through_s'])}",
        f"  per tool call, with ToolhooksMiddleware    {micro(result['per_call_with_toolhooks_s'])}"
        f"  (difference {_signed(result['difference_s'])}: the two medians, noisy)",
        f"  toolhooks' own time per tool call          {micro(result['toolhooks_own_s'])}"
        f"  (tool call {micro(result['toolhooks_own_tool_s'])},"
        f" model turn {micro(result['toolhooks_own_model_s'])})",
        f"    of which the runtime (rt.call, rt.is_visible) {micro(result['toolhooks_runtime_s'])},"
        f" the adapter's glue {micro(result['toolhooks_adapter_s'])}",
        f"  toolhooks' share of LangChain's own cost   {share * 100:.1f} %"
        f"  (target < 5 % with the default plugins: {'met' if share < 0.05 else 'not met'})",
        "",
        f"  whole runs (median of {result['rounds']} interleaved rounds):",
    ]
    lines += [f"    {label:<52} {micro(seconds)}" for label, seconds in result["runs_s"].items()]
    return "\n".join(lines)


def _signed(seconds: float) -> str:
    return micro(seconds) if seconds >= 0 else f"-{micro(-seconds)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args(argv)
    rounds, slot_s, calls = (3, 0.01, 2) if args.quick else (args.rounds, 0.3, CALLS)
    result = measure(rounds, slot_s, calls, args.clock)
    print(render(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
