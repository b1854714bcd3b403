"""Issue #25: what the hash chain costs, chained against not, in the same run.

The default pipeline of item 2 (``durability = "interval"``) with ``[plugins.event_log] chain``
on and off, alternated ``--rounds`` times. Per call: the caller thread's CPU time (what an agent
waits for) and the CPU time of every other thread (the log's writer thread, where lines are
hashed and linked), from ``time.process_time`` less the caller's ``time.thread_time``.

    python bench/log_chain.py [--calls N] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pipeline import PATHS, config, read
from toolhooks import Runtime


def one_run(chain: bool, calls: int) -> tuple[float, float]:
    """(caller µs per call, other threads' µs per call)."""
    with tempfile.TemporaryDirectory() as folder:
        cfg = config(folder)
        cfg["plugins"]["event_log"]["chain"] = chain
        rt = Runtime(config=cfg, tools=[read])
        proposals = [
            {"name": "read", "params": {"path": f"src/m{i}.py"}, "session_id": "b"}
            for i in range(PATHS)
        ]
        for proposal in proposals[:100]:
            rt.call(proposal)
        process, caller = time.process_time(), time.thread_time()
        for i in range(calls):
            rt.call(proposals[i % PATHS])
        caller = time.thread_time() - caller
        rt.close()  # the writer's last lines are part of its cost
        process = time.process_time() - process
    return caller / calls * 1e6, (process - caller) / calls * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    found: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for _ in range(args.rounds):
        for chain in (False, True):
            found[chain].append(one_run(chain, args.calls))
    for chain in (False, True):
        callers = [c for c, _ in found[chain]]
        others = [o for _, o in found[chain]]
        print(
            f"chain = {str(chain).lower():5}  caller {statistics.median(callers):6.1f} µs/call"
            f"  writer and other threads {statistics.median(others):5.1f} µs/call"
        )


if __name__ == "__main__":
    main()
