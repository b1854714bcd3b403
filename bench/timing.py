"""Side-by-side timing: every contender runs in the same process, on the same work, interleaved.

Each *round* times every contender once (``number`` calls back to back) in a rotated order, so
that a burst of noise from another process hits all of them alike. A ratio is taken inside each
round (contender / reference, both measured within milliseconds of each other) and the table
reports the median over rounds of the per-call times and of those paired ratios. Medians, not
minimums: the question is what a call costs, not what it costs on the luckiest run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

Work = Callable[[], object]


@dataclass
class Timing:
    """Per-call seconds of one contender, one sample per round."""

    label: str
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.thread_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def rounds_and_clock(description: str) -> int:
    """A script's ``--rounds N`` and ``--clock cpu|wall`` from its command line: the clock is
    set (``use_clock``) and the rounds returned."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args()
    use_clock(args.clock)
    return int(args.rounds)


def use_clock(name: str) -> None:
    """``cpu``: this thread's CPU time (robust when other processes share the cores); ``wall``."""
    global clock
    clock = CLOCKS[name]


def _loop(work: Work, number: int) -> float:
    """Seconds per call of ``number`` back-to-back calls of ``work``."""
    now = clock
    start = now()
    for _ in range(number):
        work()
    return (now() - start) / number


def calibrate(work: Work, target_s: float = 0.02) -> int:
    """How many calls take about ``target_s``: long enough to swamp the timer, short enough to
    interleave finely."""
    number = 1
    while True:
        elapsed = _loop(work, number) * number
        if elapsed >= target_s / 10 or number >= 1 << 24:
            return max(1, int(number * target_s / max(elapsed, 1e-9)))
        number *= 10


def compare(
    contenders: Mapping[str, Work], rounds: int, target_s: float = 0.02, warmup: int = 2
) -> dict[str, Timing]:
    """Time every contender ``rounds`` times, interleaved; garbage collection is paused."""
    labels = list(contenders)
    numbers = {label: calibrate(contenders[label], target_s) for label in labels}
    timings = {label: Timing(label) for label in labels}
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # a collection landing in one contender's slot is noise, not its cost
    try:
        for index in range(warmup + rounds):
            shift = index % len(labels)
            for label in labels[shift:] + labels[:shift]:
                per_call = _loop(contenders[label], numbers[label])
                if index >= warmup:
                    timings[label].samples.append(per_call)
            gc.collect()
    finally:
        if enabled:
            gc.enable()
    return timings


def paired_ratio(timings: Mapping[str, Timing], label: str, reference: str) -> float:
    """Median over rounds of ``label``'s time divided by ``reference``'s in the same round."""
    ours, theirs = timings[label].samples, timings[reference].samples
    return statistics.median(a / b for a, b in zip(ours, theirs, strict=True))


def once(work: Work) -> float:
    """Wall-clock seconds of one call of ``work`` (for work that takes milliseconds or more)."""
    gc.collect()
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def micro(seconds: float) -> str:
    """A per-call time for the table: microseconds, or nanoseconds under one."""
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"
