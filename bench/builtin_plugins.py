"""Item 9: what each built-in plugin costs on the common path, called directly.

Each row calls one built-in's handlers the way the pipeline does for an ordinary, allowed call:
the very plugin objects ``Runtime.from_config()`` loads through the entry points (policy with
profile "coding", loop detection and the result budget with their defaults), a ``ToolCall`` the
runtime made (so its spec and frozen params are what a handler really sees) and a small result.
The calls cycle through 1,000 distinct paths in one session, as an agent making progress would:
loop detection hashes, windows and records each one and never warns. No pipeline around the
handlers: the row is the plugin's own cost. The reference rows are a plain Python function call
(the floor of any handler) and raw pluggy dispatching one no-op impl.

    python bench/builtin_plugins.py [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pluggy
import timing
from pipeline import PATHS, config, read
from timing import micro
from toolhooks import Runtime, ToolCall, ToolResult, hookimpl, spec

TARGET_S = 4e-6
"""Issue #22: each built-in under 4 µs on the common path."""


class _NoOp:
    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        return None


def contenders(log_dir: str) -> dict[str, Callable[[], object]]:
    """One row per built-in's handlers, plus the two reference rows."""
    cfg = config(log_dir)
    cfg["plugins"]["event_log"]["enabled"] = False
    rt = Runtime(config=cfg, tools=[read])
    tool_spec = next(s for s in rt.tool_specs() if s.name == "read")
    calls = [
        ToolCall(
            name="read",
            params={"path": f"src/module_{i}.py"},
            session_id="bench-builtins",
            spec=tool_spec,
        )
        for i in range(PATHS)
    ]
    results = [
        ToolResult("ok", body, body, None, 0.0, None) for body in (read(**c.params) for c in calls)
    ]
    pairs = itertools.cycle(list(zip(calls, results, strict=True))).__next__
    policy = rt.get_plugin("policy").before_tool_call
    loop = rt.get_plugin("loop_detection")
    loop_before, loop_after = loop.before_tool_call, loop.after_tool_call
    budget = rt.get_plugin("result_budget").after_tool_call
    for call, result in zip(calls, results, strict=True):  # warm every cache once
        assert policy(call) is None and budget(call, result) is None
        assert loop_before(call) is None and loop_after(call, result) is None

    def run_policy() -> object:
        return policy(pairs()[0])

    def run_loop() -> object:
        call, result = pairs()
        loop_before(call)
        return loop_after(call, result)

    def run_budget() -> object:
        call, result = pairs()
        return budget(call, result)

    def plain(call: ToolCall) -> None:
        return None

    def run_plain() -> object:
        return plain(pairs()[0])

    pm = pluggy.PluginManager(spec.PROJECT)
    pm.add_hookspecs(spec)
    pm.register(_NoOp())
    hook = pm.hook.before_tool_call

    def run_pluggy() -> object:
        return hook(call=pairs()[0])

    return {
        "policy: before_tool_call": run_policy,
        "loop_detection: before_tool_call + after_tool_call": run_loop,
        "result_budget: after_tool_call (under budget)": run_budget,
        PLAIN: run_plain,
        "raw pluggy, 1 no-op impl": run_pluggy,
    }


PLAIN = "plain function call (floor)"


def rows(rounds: int, slot_s: float) -> list[tuple[str, float, float]]:
    """(label, median per call, median ratio to the plain call) for every contender."""
    with tempfile.TemporaryDirectory() as log_dir:
        work = contenders(log_dir)
        measured = timing.compare(work, rounds, slot_s)
    return [
        (label, measured[label].median, timing.paired_ratio(measured, label, PLAIN))
        for label in work
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run, not a measurement")
    args = parser.parse_args(argv)
    rounds, slot_s = (3, 0.002) if args.quick else (21, 0.02)
    for label, median, ratio in rows(rounds, slot_s):
        verdict = (
            ""
            if label.startswith(("plain", "raw"))
            else ("  met" if median <= TARGET_S else "  NOT met")
        )
        print(f"{label:55} {micro(median):>10} {ratio:6.2f}x plain{verdict}")


if __name__ == "__main__":
    main()
