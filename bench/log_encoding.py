"""Issue #22: where the event log encodes, measured in one process on one core.

Item 2's default pipeline four ways, interleaved: ``durability = "interval"`` with the writer
thread encoding the events (what the log does) and with the caller encoding each event as it
comes (what it did before issue #22: the writer is handed finished lines), then the same two for
``durability = "call"``; and the runtime with a sink that drops events instead of the log (the
core's own work for the events), which every row is divided by. Caller CPU time per call.

    python bench/log_encoding.py [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import timing
from pipeline import _Discard, default_runtime, proposals
from toolhooks import Runtime

SINK = "a sink that drops events (the reference)"


def _runtime(folder: str, name: str, durability: str, caller_encodes: bool) -> Runtime:
    rt = default_runtime(os.path.join(folder, name), durability=durability)
    if caller_encodes:  # as before issue #22: lines are made on the caller, the writer writes them
        writer = rt.get_plugin("event_log")._writer
        encode, append = writer.encode, writer.append
        writer.encode = lambda line: line
        writer.append = lambda event, flush=False: append(encode(event), flush)
    return rt


def contenders(folder: str) -> tuple[dict[str, Callable[[], object]], list[Runtime]]:
    rows: dict[str, Callable[[], object]] = {}
    runtimes: list[Runtime] = []
    for label, durability, caller_encodes in (
        ('"interval", the writer thread encodes (now)', "interval", False),
        ('"interval", the caller encodes each event (before)', "interval", True),
        ('"call", the caller encodes when the call ends (now)', "call", False),
        ('"call", the caller encodes each event (before)', "call", True),
    ):
        rt = _runtime(folder, f"rt{len(runtimes)}", durability, caller_encodes)
        make = proposals(f"s{len(runtimes)}")
        rt.call(make())
        rows[label] = lambda call=rt.call, make=make: call(make())
        runtimes.append(rt)
    sink = default_runtime(os.path.join(folder, "sink"), with_log=False)
    sink.register(_Discard(), name="discard")
    make_sink = proposals("sink")
    sink.call(make_sink())
    rows[SINK] = lambda: sink.call(make_sink())
    runtimes.append(sink)
    return rows, runtimes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        rows, runtimes = contenders(folder)
        try:
            found = timing.compare(rows, args.rounds)
        finally:
            for rt in runtimes:
                rt.close()
    for label in rows:
        ratio = timing.paired_ratio(found, label, SINK)
        print(f"{label:54} {timing.micro(found[label].median):>10}  {ratio:.2f}x the sink")


if __name__ == "__main__":
    main()
