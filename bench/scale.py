"""Items 4 and 5: loop detection with many live sessions, and the result budget on huge results.

Item 4 fills N sessions with a full window each (30 calls, the default) and then times calls
that all land on one of them, and calls that land on a random one of them, against calls to a
plugin that has only one session. The first shows what the number of sessions costs by itself;
the second adds what a server pays when its sessions' state no longer fits in the CPU caches
(with 100,000 sessions, about 80 MB touched at random). Two rows each:
``rt.call`` on a runtime with only loop detection (what a user pays), and the plugin's own
before_tool_call + after_tool_call called directly (the part that could grow with N). Memory per
session is what tracemalloc sees the plugin allocate while it fills sessions, divided by their
number (the session id strings themselves are the caller's and are made beforehand).

Item 5 runs ``rt.call`` on a runtime with only the result budget (default settings, artifacts on
in a temporary directory) and a tool that returns a prebuilt text result of the given size: log
lines ending in a summary line, so both head and tail are kept. Time is one call, wall clock;
peak memory is tracemalloc's peak during the call, the input counted in: (input + peak extra
allocation) / input.
"""

from __future__ import annotations

import os
import random
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from pipeline import read
from toolhooks import Runtime, ToolCall, ToolResult
from toolhooks.plugins.loop_detection import LoopDetectionPlugin
from toolhooks.plugins.result_budget import ResultBudgetPlugin

WINDOW = 30


def _calls(sessions: list[str], count: int, seed: int) -> list[ToolCall]:
    """``count`` calls spread over ``sessions`` at random, each with its own params."""
    pick = random.Random(seed).choice
    spec = Runtime(tools=[read], load_entrypoints=False).tool_specs()[0]
    return [
        ToolCall(
            name="read",
            params={"path": f"src/module_{i % 997}.py"},
            session_id=pick(sessions),
            spec=spec,
        )
        for i in range(count)
    ]


def _fill(plugin: LoopDetectionPlugin, sessions: list[str]) -> None:
    """Give every session a full window, through the plugin's own hooks."""
    spec = Runtime(tools=[read], load_entrypoints=False).tool_specs()[0]
    for session in sessions:
        for i in range(WINDOW):
            call = ToolCall(
                name="read", params={"path": f"fill/{i}.py"}, session_id=session, spec=spec
            )
            plugin.before_tool_call(call)
            value = read(**call.params)
            plugin.after_tool_call(call, ToolResult("ok", value, value, None, 0.0, None))


def loop_setup(live: int, calls: int = 20_000) -> tuple[dict[str, Callable[[], object]], Runtime]:
    """Rows of item 4 for 1 vs ``live`` sessions."""
    config = {"max_sessions": max(10_000, live * 2)}
    one, many = LoopDetectionPlugin(config), LoopDetectionPlugin(config)
    names = [f"session-{i}" for i in range(live)]
    _fill(one, names[:1])
    _fill(many, names)
    assert many.session_count() == live
    rt_one = Runtime(plugins=[one], tools=[read], load_entrypoints=False)
    rt_many = Runtime(plugins=[many], tools=[read], load_entrypoints=False)
    rows: dict[str, Callable[[], object]] = {}
    for label, plugin, rt, sessions in (
        ("1 session", one, rt_one, names[:1]),
        (f"1 of {live:,} sessions", many, rt_many, names[:1]),
        (f"any of {live:,} sessions", many, rt_many, names),
    ):
        next_call = iter_cycle(_calls(sessions, calls, seed=live))
        next_proposal = iter_cycle([c.to_dict() for c in _calls(sessions, calls, seed=live + 1)])
        rows[f"rt.call, {label}"] = _runtime_row(rt, next_proposal)
        rows[f"hooks only, {label}"] = _hooks_row(plugin, next_call)
    outcome = rt_many.call(next_proposal())
    assert outcome.status == "ok" and not outcome.notes, outcome
    rt_one.close()
    return rows, rt_many


def iter_cycle(items: list[Any]) -> Callable[[], Any]:
    index = [0]
    size = len(items)

    def next_item() -> Any:
        i = index[0]
        index[0] = i + 1 if i + 1 < size else 0
        return items[i]

    return next_item


def _runtime_row(rt: Runtime, next_proposal: Callable[[], Any]) -> Callable[[], object]:
    call = rt.call
    return lambda: call(next_proposal())


def _hooks_row(
    plugin: LoopDetectionPlugin, next_call: Callable[[], ToolCall]
) -> Callable[[], object]:
    before, after = plugin.before_tool_call, plugin.after_tool_call
    value = read("x")
    result = ToolResult("ok", value, value, None, 0.0, None)

    def hooks() -> object:
        call = next_call()
        before(call)
        return after(call, result)

    return hooks


def memory_per_session(sessions: int) -> float:
    """Bytes the plugin holds per session with a full default window."""
    names = [f"session-{i}" for i in range(sessions)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        plugin = LoopDetectionPlugin({"max_sessions": sessions * 2})
        _fill(plugin, names)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert plugin.session_count() == sessions
    return held / sessions


def big_result(size: int) -> str:
    line = "2026-01-01T00:00:00Z worker-07 processed item {:>9} of the batch: ok\n"
    lines = [line.format(i) for i in range(size // len(line.format(0)) + 1)]
    text = "".join(lines)[: size - 40]
    return text + "\nSummary: 3 errors, 12 warnings, done.\n"[: size - len(text)]


def _budget_call(text: str, artifact_dir: str, traced: bool) -> tuple[float, int]:
    """One call on a fresh runtime and artifact store: (seconds, tracemalloc peak or 0)."""
    plugin = ResultBudgetPlugin(ResultBudgetPlugin.Config(artifact_dir=artifact_dir))
    rt = Runtime(plugins=[plugin], load_entrypoints=False)
    rt.add_tool(lambda: text, name="dump", description="A big result.")
    try:
        if traced:
            tracemalloc.start()
        started = time.perf_counter()
        outcome = rt.call({"name": "dump"})
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
    finally:
        if traced:
            tracemalloc.stop()
        rt.close()
    assert outcome.status == "ok" and outcome.truncated and outcome.artifact, outcome.status
    assert len(outcome.content) <= 16_500
    return seconds, peak


def _plain_write(text: str, path: str) -> float:
    """Seconds to encode ``text`` and write it to a new file, nothing else: the disk's share."""
    started = time.perf_counter()
    with open(path, "wb") as out:
        out.write(text.encode("utf-8"))
    return time.perf_counter() - started


def budget_run(size: int, workdir: str, repeats: int = 3) -> tuple[float, float, float]:
    """(median seconds of one call, peak memory / input, median seconds of a plain write of the
    same text) for a result of ``size`` characters.

    Every call gets a fresh artifact directory, so the full text is really written each time.
    Each call is followed by a plain write of the same text to a new file, so both see the same
    state of the machine's write-back.
    """
    text = big_result(size)
    times, writes = [], []
    for i in range(repeats):
        times.append(
            _budget_call(text, os.path.join(workdir, f"artifacts-{size}-{i}"), traced=False)[0]
        )
        writes.append(_plain_write(text, os.path.join(workdir, f"plain-{size}-{i}.txt")))
    _, peak = _budget_call(text, os.path.join(workdir, f"artifacts-{size}-traced"), traced=True)
    median = len(times) // 2
    return sorted(times)[median], (len(text) + peak) / len(text), sorted(writes)[median]
