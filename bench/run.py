"""toolhooks benchmarks: ``python bench/run.py [--quick] [--only 1,2,...] [--json FILE]``.

Prints one table per item of BENCHMARKS.md with medians, ratios, the target and whether it was
met. ``--quick`` runs every item on tiny sizes in a few seconds (a smoke test, not a measurement).
The exit status is 0 whether or not targets are met: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import builtin_plugins
import concurrency
import dispatch
import pipeline
import scale
import timing
import whatif
from timing import micro

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Sizes:
    rounds: int = 21
    slot_s: float = 0.02
    plugins: tuple[int, ...] = (1, 10, 50)
    sessions: int = 100_000
    memory_sessions: int = 10_000
    results: tuple[int, ...] = (1_000_000, 10_000_000, 100_000_000)
    tasks: int = 1_000
    per_task: int = 10
    threads: int = 8
    per_thread: int = 1_000
    async_batch: int = 200
    paced_calls: int = 2_000
    whatif_calls: int = 100_000


QUICK = Sizes(3, 0.002, (1, 10, 50), 500, 200, (100_000, 1_000_000), 20, 2, 8, 5, 20, 50, 2_000)


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def render(self) -> str:
        widths = [
            max(len(str(r[i])) for r in [self.header, *self.rows]) for i in range(len(self.header))
        ]

        def line(cells: list[Any]) -> str:
            return (
                "| "
                + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True))
                + " |"
            )

        out = [
            f"## {self.title}",
            "",
            line(self.header),
            "|" + "|".join("-" * (w + 2) for w in widths) + "|",
        ]
        out += [line(row) for row in self.rows]
        return "\n".join(out + [""] + [f"- {note}" for note in self.notes] + [""])


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def item_dispatch(sizes: Sizes) -> Table:
    table = Table(
        "1. dispatch: N no-op before_tool_call plugins",
        ["plugins", "plain loop", "raw pluggy", "floor: pluggy + tool + Outcome",
         "toolhooks, ToolCall", "toolhooks, dict", "ToolCall / pluggy", "dict / pluggy",
         "floor / pluggy", "ToolCall / loop"],
    )  # fmt: skip
    for count in sizes.plugins:
        rows, rt = dispatch.contenders(count)
        t = timing.compare(rows, sizes.rounds, sizes.slot_s)
        rt.close()
        ratio = timing.paired_ratio(t, "toolhooks (ToolCall)", "raw pluggy")
        ratio_dict = timing.paired_ratio(t, "toolhooks (dict)", "raw pluggy")
        least = timing.paired_ratio(t, dispatch.FLOOR, "raw pluggy")
        floor = timing.paired_ratio(t, "toolhooks (ToolCall)", "plain loop")
        table.rows.append(
            [
                count,
                *(micro(t[k].median) for k in rows),
                f"{ratio:.2f}x",
                f"{ratio_dict:.2f}x",
                f"{least:.2f}x",
                f"{floor:.1f}x",
            ]
        )
        table.data[str(count)] = {k: v.median for k, v in t.items()} | {
            "ratio": ratio,
            "ratio_dict": ratio_dict,
            "ratio_floor": least,
        }
        if count == 10:
            table.notes.append(
                f"target at 10 plugins: toolhooks (ToolCall) <= 1.3x raw pluggy: {ratio:.2f}x, {verdict(ratio <= 1.3)}; "
                f"the floor (pluggy, then the tool and the Outcome rt.call returns) is {least:.2f}x"
            )
    table.notes.append(
        "toolhooks also runs the tool, the empty after chain and builds the Outcome; see bench/dispatch.py"
    )
    rows, rt = dispatch.restated_contenders(10)
    t = timing.compare(rows, sizes.rounds, sizes.slot_s)
    rt.close()
    restated = timing.paired_ratio(t, dispatch.RESTATED_RT, dispatch.RESTATED_PLUGGY)
    table.data["restated_10"] = {k: v.median for k, v in t.items()} | {"ratio": restated}
    table.notes.append(
        f"restated target (issue #33), 10 plugins each with a no-op before and after handler: "
        f"rt.call {micro(t[dispatch.RESTATED_RT].median)} against raw pluggy calling before, "
        f"the tool and after {micro(t[dispatch.RESTATED_PLUGGY].median)}: {restated:.2f}x "
        f"(<= 1.3x), {verdict(restated <= 1.3)}"
    )
    return table


def item_builtins(sizes: Sizes) -> Table:
    table = Table(
        "9. each built-in plugin's own cost on the common path (handlers called directly)",
        ["", "CPU per call", "/ plain call", "target: <= 4 µs"],
    )
    for label, median, ratio in builtin_plugins.rows(sizes.rounds, sizes.slot_s):
        reference = label.startswith(("plain", "raw"))
        met = "" if reference else verdict(median <= builtin_plugins.TARGET_S)
        table.rows.append([label, micro(median), f"{ratio:.2f}x", met])
        table.data[label] = median
    table.notes.append("see bench/builtin_plugins.py for what each row calls")
    return table


PLUGGY_10 = "raw pluggy, 10 no-op impls (item 1)"


def item_pipeline(sizes: Sizes, workdir: str) -> Table:
    rows, runtimes = pipeline.pipeline_contenders(workdir)
    # Issue #22 states its ratio against raw pluggy dispatching 10 no-op impls, in the same run.
    dispatch_rows, dispatch_rt = dispatch.contenders(10)
    rows[PLUGGY_10] = dispatch_rows["raw pluggy"]
    t = timing.compare(rows, sizes.rounds, sizes.slot_s)
    for rt in (*runtimes, dispatch_rt):
        rt.close()
    reference = pipeline.PLUGGY
    table = Table(
        "2. default pipeline: policy, loop detection, result budget, JSONL event log",
        ["", "caller CPU per call", "/ raw pluggy"],
    )
    for label in rows:
        table.rows.append(
            [label, micro(t[label].median), f"{timing.paired_ratio(t, label, reference):.2f}x"]
        )
    interval, per_call = t[pipeline.DEFAULT].median, t[pipeline.PER_CALL].median
    ratio = timing.paired_ratio(t, pipeline.DEFAULT, reference)
    table.data = {k: v.median for k, v in t.items()} | {"ratio_interval": ratio}
    against_10 = timing.paired_ratio(t, pipeline.DEFAULT, PLUGGY_10)
    table.data["ratio_interval_pluggy_10"] = against_10
    table.notes.append(
        f'target (issue #22): durability "interval" <= 25 µs a call: {micro(interval)}, '
        f"{verdict(interval <= 25e-6)}; <= 7.0x raw pluggy with 10 no-op impls: "
        f"{against_10:.2f}x, {verdict(against_10 <= 7.0)}"
    )
    table.notes.append(
        f"target (issue #33): <= 3.0x raw pluggy on the same 3 plugins: {ratio:.2f}x, "
        f"{verdict(ratio <= 3.0)} (issue #14 asked 2.7x)"
    )
    table.notes.append(
        f'target: durability "call" <= 30 µs a call: {micro(per_call)}, {verdict(per_call <= 30e-6)}'
    )
    table.notes.append(
        "the writer thread's work for \"interval\" is not the caller's: it is not in these times"
        " (see bench/pipeline.py for the floor rows)"
    )
    return table


def item_paced(sizes: Sizes, workdir: str) -> Table:
    table = Table(
        "3. paced like an agent: single calls, 500 µs sleep before each, wall clock",
        ["", "p50", "p99"],
    )
    runtimes = {
        pipeline.DEFAULT: pipeline.default_runtime(workdir),
        pipeline.PER_CALL.strip(): pipeline.default_runtime(
            os.path.join(workdir, "call"), durability="call"
        ),
        "same, event log off": pipeline.default_runtime(workdir, with_log=False),
    }
    latencies: dict[str, list[float]] = {label: [] for label in runtimes}
    makes = {label: pipeline.proposals(f"paced-{n}") for n, label in enumerate(runtimes)}
    # Interleaved in slices, so that a noisy minute hits every row alike.
    for _ in range(10):
        for label, rt in runtimes.items():
            latencies[label] += pipeline.paced(rt, makes[label], sizes.paced_calls // 10)
    for rt in runtimes.values():
        rt.close()
    for label, values in latencies.items():
        p50, p99 = pipeline.percentile(values, 0.5), pipeline.percentile(values, 0.99)
        table.rows.append([label, micro(p50), micro(p99)])
        table.data[label] = {"p50": p50, "p99": p99}
    default = table.data[pipeline.DEFAULT]
    table.notes.append(
        f"target with the log on: p50 <= 150 µs: {micro(default['p50'])}, "
        f"{verdict(default['p50'] <= 150e-6)}; p99 <= 450 µs: {micro(default['p99'])}, "
        f"{verdict(default['p99'] <= 450e-6)} ({sizes.paced_calls:,} calls a row)"
    )
    return table


def item_async(sizes: Sizes, workdir: str) -> Table:
    table = Table(
        "4. async: acall vs call, same plugins", ["plugins", "call", "acall", "acall / call"]
    )
    setups: list[tuple[str, Any, Callable[[], object]]] = []
    _, rt10 = dispatch.contenders(10)
    proposal = {"name": "noop", "params": {}}
    setups.append(("10 no-op", rt10, lambda: proposal))
    rt_default = pipeline.default_runtime(workdir)
    setups.append(("default pipeline", rt_default, pipeline.proposals("async")))
    worst = 0.0
    for label, rt, make in setups:
        rows, close = pipeline.async_contenders(rt, make, sizes.async_batch)
        t = timing.compare(rows, sizes.rounds, sizes.slot_s)
        close()
        rt.close()
        ratio = timing.paired_ratio(t, "acall", "call")
        worst = max(worst, ratio)
        n = sizes.async_batch
        table.rows.append(
            [label, micro(t["call"].median / n), micro(t["acall"].median / n), f"{ratio:.2f}x"]
        )
        table.data[label] = {
            "call": t["call"].median / n,
            "acall": t["acall"].median / n,
            "ratio": ratio,
        }
    table.notes.append(f"target: acall <= 1.3x call: worst {worst:.2f}x, {verdict(worst <= 1.3)}")
    table.notes.append(
        f"acall is awaited {sizes.async_batch} times in a row in one coroutine on a running loop"
    )
    return table


def item_scale(sizes: Sizes) -> Table:
    live = sizes.sessions
    rows, rt = scale.loop_setup(live)
    t = timing.compare(rows, sizes.rounds, sizes.slot_s)
    rt.close()
    labels = ("1 session", f"1 of {live:,} sessions", f"any of {live:,} sessions")
    table = Table(
        f"5. scale: loop detection with 1 vs {live:,} live sessions",
        ["", *labels, "ratio, 1 of", "ratio, any of"],
    )
    ratios: dict[str, tuple[float, float]] = {}
    for kind in ("rt.call", "hooks only"):
        one, same, spread = (f"{kind}, {label}" for label in labels)
        ratios[kind] = (timing.paired_ratio(t, same, one), timing.paired_ratio(t, spread, one))
        times = [micro(t[label].median) for label in (one, same, spread)]
        table.rows.append([kind, *times, *(f"{r:.2f}x" for r in ratios[kind])])
    per_session = scale.memory_per_session(sizes.memory_sessions)
    table.rows.append(["memory per session", "", "", f"{per_session / 1024:.2f} KB", "", ""])
    table.data = {k: v.median for k, v in t.items()} | {
        "ratios": ratios,
        "bytes_per_session": per_session,
    }
    same, spread = ratios["rt.call"]
    table.notes.append(
        f"target: per-call cost within 1.2x: rt.call on 1 of {live:,}: {same:.2f}x, "
        f"{verdict(same <= 1.2)}; on any of {live:,}: {spread:.2f}x, {verdict(spread <= 1.2)}"
    )
    table.notes.append(
        f"target: <= 8 KB per session at the default window: {verdict(per_session <= 8192)} "
        f"(measured over {sizes.memory_sessions:,} sessions)"
    )
    return table


def item_budget(sizes: Sizes, workdir: str) -> Table:
    table = Table(
        "6. result budget on large results",
        ["result", "time", "time per MB", "peak memory / input", "plain write of the text"],
    )
    for size in sizes.results:
        seconds, peak, plain = scale.budget_run(size, workdir)
        megabytes = size / 1_000_000
        table.rows.append(
            [
                f"{megabytes:g} MB",
                micro(seconds),
                micro(seconds / megabytes),
                f"{peak:.2f}x",
                micro(plain),
            ]
        )
        table.data[str(size)] = {"seconds": seconds, "peak_ratio": peak, "plain_write": plain}
    largest = sizes.results[-1]
    last = table.data[str(largest)]
    ok = last["seconds"] < 1.0 and last["peak_ratio"] < 2.5
    table.notes.append(
        f"target: {largest / 1e6:g} MB in under 1 s, peak under 2.5x the input: {verdict(ok)}"
    )
    return table


def item_concurrency(sizes: Sizes, workdir: str) -> Table:
    report = concurrency.run(workdir, sizes.tasks, sizes.per_task, sizes.threads, sizes.per_thread)
    table = Table(
        f"7. concurrency: {sizes.tasks:,} asyncio sessions and {sizes.threads} threads on one runtime",
        ["calls", "wall time", "calls / s", "log lines", "lost", "duplicated", "strays", "unparsable", "dropped", "not ok"],
    )  # fmt: skip
    table.rows.append(
        [f"{report.calls:,}", micro(report.seconds), f"{report.per_second:,.0f}", f"{report.lines:,}", report.lost,
         report.duplicated, report.strays, report.unparsable, report.dropped, report.not_ok]
    )  # fmt: skip
    table.data = report.__dict__ | {"per_second": report.per_second}
    table.notes.append(
        f"target: no lost or duplicated events: {verdict(report.clean and not report.not_ok)}"
    )
    return table


def _own_process(script: str, quick: bool, workdir: str) -> tuple[Any, str]:
    """Run ``bench/<script> --json FILE`` in a process of its own: (its figures, "") or (None,
    what went wrong)."""
    out = os.path.join(workdir, script.replace(".py", ".json"))
    command = [sys.executable, os.path.join(HERE, script), "--json", out]
    done = subprocess.run(
        [*command, "--quick"] if quick else command, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return None, f"bench/{script} failed: {done.stderr.strip().splitlines()[-1:]}"
    with open(out, encoding="utf-8") as handle:
        return json.load(handle), ""


def item_langchain(quick: bool, workdir: str) -> Table:
    """bench/langchain.py in its own process (it must not be imported as ``langchain`` here)."""
    result, problem = _own_process("langchain.py", quick, workdir)
    table = Table(
        "8. what a user pays anyway: one LangChain create_agent tool-call step, scripted model",
        ["", "per tool call"],
    )
    if result is None:
        table.notes.append(problem)
        return table
    share = result["toolhooks_share"]
    table.rows += [
        ["LangChain's own step (model turn + tool call)", micro(result["per_call_langchain_s"])],
        ["toolhooks' own time in that step", micro(result["toolhooks_own_s"])],
        ["toolhooks' share", f"{share * 100:.2f} %"],
    ]
    table.data = result
    table.notes.append(
        f"target (issue #22): share < 5 %: {share * 100:.2f} %, {verdict(share < 0.05)}"
    )
    table.notes.append(
        "CPU clocks (the process's for LangChain's step, the hook's thread for toolhooks' own"
        " time); see bench/langchain.py and BENCHMARKS.md for the method"
    )
    return table


def item_whatif(sizes: Sizes, workdir: str) -> Table:
    calls = sizes.whatif_calls
    table = Table(
        f"12. toolhooks whatif over a {calls:,}-call log (issue #23)",
        ["config", "calls", "wall time", "calls / s", "CPU per call", "calls / CPU s", "changed",
         "peak RSS"],
    )  # fmt: skip
    for label, run in whatif.measure(calls, workdir).items():
        table.rows.append(
            [label, f"{run.calls:,}", micro(run.seconds), f"{run.per_second:,.0f}",
             micro(run.cpu_seconds / run.calls), f"{run.per_cpu_second:,.0f}", f"{run.changed:,}",
             f"{run.peak_rss_kb / 1024:.0f} MB"]
        )  # fmt: skip
        table.data[label] = run.__dict__ | {
            "per_second": run.per_second,
            "per_cpu_second": run.per_cpu_second,
        }
    table.notes.append(
        "the whole command in a process of its own (reading the rotated log, rebuilding every "
        "call, the pipeline with nothing run, comparing, writing --json); see bench/whatif.py"
    )
    return table


def item_agents(quick: bool, workdir: str) -> Table:
    """bench/agents.py in its own process (it runs hooks as subprocesses and a daemon)."""
    result, problem = _own_process("agents.py", quick, workdir)
    table = Table(
        "13. a coding agent's hook, process start to answer (issue #26)",
        ["", "median", "p99", "runs", "x python -c 'import json'"],
    )
    if result is None:
        table.notes.append(problem)
        return table
    for name, row in result["rows"].items():
        table.rows.append(
            [name, f"{row['median_ms']:.1f} ms", f"{row['p99_ms']:.1f} ms", row["runs"],
             f"{row['x_baseline']:.2f}x"]
        )  # fmt: skip
    table.data = result
    rows = result["rows"]
    ratio = result["paired_ratio"]
    http = rows["HTTP hook, 127.0.0.1 + token"]["median_ms"]
    table.notes.append(
        f"target: command hook median <= 1.5x python -c 'import json': paired {ratio:.2f}x, "
        f"{verdict(ratio <= 1.5)}"
    )
    table.notes.append(f"target: HTTP hook median <= 5 ms: {http:.1f} ms, {verdict(http <= 5)}")
    table.notes.append(f"load average during the run: {result['load']}")
    return table


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(
                line.split(":", 1)[1].strip() for line in info if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return f"{platform.python_implementation()} {platform.python_version()} on {platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes: checks that everything runs"
    )
    parser.add_argument(
        "--only",
        default="1,2,3,4,5,6,7,8,9,12,13",
        help="items to run, e.g. 1,2",
    )
    parser.add_argument(
        "--clock",
        choices=sorted(timing.CLOCKS),
        default="cpu",
        help="cpu: thread CPU time (default), wall",
    )
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else Sizes()
    timing.use_clock(args.clock)
    only = {int(part) for part in args.only.split(",")}
    print(
        f"# toolhooks benchmarks{' (--quick: tiny sizes, not a measurement)' if args.quick else ''}\n"
    )
    print(
        f"- {machine()}\n- clock for per-call times: {args.clock}; medians of {sizes.rounds} interleaved rounds\n"
    )
    tables: dict[str, Table] = {}
    with tempfile.TemporaryDirectory(prefix="toolhooks-bench-") as workdir:
        sub = lambda name: tempfile.mkdtemp(prefix=f"{name}-", dir=workdir)  # noqa: E731
        items: dict[int, Callable[[], Table]] = {
            1: lambda: item_dispatch(sizes),
            2: lambda: item_pipeline(sizes, sub("pipeline")),
            3: lambda: item_paced(sizes, sub("paced")),
            4: lambda: item_async(sizes, sub("async")),
            5: lambda: item_scale(sizes),
            6: lambda: item_budget(sizes, sub("budget")),
            7: lambda: item_concurrency(sizes, sub("concurrency")),
            8: lambda: item_langchain(args.quick, workdir),
            9: lambda: item_builtins(sizes),
            12: lambda: item_whatif(sizes, sub("whatif")),
            13: lambda: item_agents(args.quick, workdir),
        }
        for number in sorted(only):
            table = items[number]()
            tables[str(number)] = table
            print(table.render(), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(
                {
                    k: {"title": t.title, "data": t.data, "notes": t.notes}
                    for k, t in tables.items()
                },
                out,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
