"""The benchmarks as pytest-benchmark tests: ``pytest bench/ --benchmark-only``.

The same work as ``python bench/run.py`` (items 1, 2 and 4, the per-call ones), one contender per
test so that pytest-benchmark's own table compares them. ``run.py`` is the reference: it
interleaves the contenders and reports paired ratios, which is steadier on a shared machine.
"""

from __future__ import annotations

import dispatch
import pipeline
import pytest

DISPATCH = ["plain loop", "raw pluggy", dispatch.FLOOR, "toolhooks (ToolCall)", "toolhooks (dict)"]


@pytest.mark.parametrize("plugins", [1, 10, 50])
@pytest.mark.parametrize("contender", DISPATCH)
def test_dispatch(benchmark, plugins, contender):
    benchmark.group = f"dispatch, {plugins} plugins"
    rows, rt = dispatch.contenders(plugins)
    try:
        benchmark(rows[contender])
    finally:
        rt.close()


@pytest.mark.parametrize(
    "contender",
    [
        pipeline.DEFAULT,
        pipeline.PER_CALL,
        "  same, event log off",
        "  same, a sink that drops events instead",
        pipeline.PLUGGY,
        "floor",
        "floor: same, each event encoded on the caller too",
    ],
)
def test_default_pipeline(benchmark, tmp_path, contender):
    benchmark.group = "default pipeline"
    rows, runtimes = pipeline.pipeline_contenders(str(tmp_path))
    if contender == "floor":  # its label names the number of events of a call
        contender = next(label for label in rows if label.startswith("floor: raw pluggy"))
    try:
        benchmark(rows[contender])
    finally:
        for rt in runtimes:
            rt.close()


@pytest.mark.parametrize("side", ["call", "acall"])
def test_async(benchmark, tmp_path, side):
    benchmark.group = "call vs acall, default pipeline (100 calls a round)"
    rt = pipeline.default_runtime(str(tmp_path))
    rows, close = pipeline.async_contenders(rt, pipeline.proposals(), 100)
    try:
        benchmark(rows[side])
    finally:
        close()
        rt.close()
