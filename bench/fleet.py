"""Shared state: what ``[state] url`` costs per call, and how calls/s grow with processes.

Two measurements, both on a runtime with loop detection and call_limits (one count limit that
every call passes, scoped per session) and nothing else:

1. Per-call cost, one process: the same calls with embedded state (memory) and with Redis
   state. Each row is the median of ``--rounds`` rounds of ``--calls`` calls (wall clock, one
   thread), so the difference is what Redis adds: for each call, call_limits' one script and
   loop detection's read plus compare-and-set, before and after the tool.
2. Calls/s with 1, 2 and 4 processes against one Redis: each process makes ``--calls`` calls in
   its own session(s) after all have started (a start file releases them together); the rate is
   all calls over the wall time from release to the last process finishing.

Usage: python bench/fleet.py [--url redis://127.0.0.1:6379/0] [--calls 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from toolhooks import Runtime
from toolhooks.plugins.call_limits import CallLimitsPlugin
from toolhooks.plugins.loop_detection import LoopDetectionPlugin

LIMITS = [{"name": "bench", "tools": ["*"], "max_calls": 100_000_000, "scope": "session"}]


def make(state: dict[str, Any] | None) -> Runtime:
    config: dict[str, Any] = {"plugins": {"call_limits": {"limits": LIMITS}}}
    if state is not None:
        config["state"] = state
    return Runtime(
        plugins=[CallLimitsPlugin, LoopDetectionPlugin], config=config, load_entrypoints=False
    )


def run_calls(rt: Runtime, calls: int, tag: str) -> float:
    """Seconds for ``calls`` calls spread over 10 sessions, each call with its own params."""
    started = time.perf_counter()
    for index in range(calls):
        outcome = rt.call(
            {"name": "read", "params": {"i": index}, "session_id": f"{tag}-{index % 10}"},
            execute=lambda params: "ok",
        )
        if outcome.status != "ok":
            raise SystemExit(f"bench call was {outcome.status}: {outcome.reason}")
    return time.perf_counter() - started


def clean(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    for start in range(0, len(keys), 1000):
        client.delete(*keys[start : start + 1000])
    client.close()


def per_call(url: str, calls: int, rounds: int) -> dict[str, float]:
    prefix = f"toolhooks-bench-{uuid.uuid4().hex[:8]}"
    rows: dict[str, list[float]] = {"embedded": [], "redis": []}
    embedded, shared = make(None), make({"url": url, "key_prefix": prefix})
    run_calls(embedded, 200, "warm")
    run_calls(shared, 200, "warm")
    for round_ in range(rounds):  # interleaved: a slow moment on the machine hits both rows
        rows["embedded"].append(run_calls(embedded, calls, f"e{round_}") / calls)
        rows["redis"].append(run_calls(shared, calls, f"r{round_}") / calls)
    clean(url, prefix)
    return {name: statistics.median(values) * 1e6 for name, values in rows.items()}


def worker(job: dict[str, Any]) -> None:
    rt = make(job["state"])
    run_calls(rt, 50, f"warm-{job['worker']}")
    go = Path(job["go"])
    while not go.exists():
        time.sleep(0.001)
    run_calls(rt, job["calls"], f"w{job['worker']}")
    print(json.dumps({"done": time.time()}))


def throughput(url: str, processes: int, calls: int) -> float:
    prefix = f"toolhooks-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        go = os.path.join(tmp, "go")
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--worker",
                    json.dumps(
                        {
                            "state": {"url": url, "key_prefix": prefix},
                            "worker": n,
                            "calls": calls,
                            "go": go,
                        }
                    ),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(processes)
        ]
        time.sleep(3.0)  # let every worker import, connect and warm up before the release
        Path(go).touch()
        released = time.time()
        finished = []
        for proc in procs:
            out, _ = proc.communicate(timeout=600)
            if proc.returncode != 0:
                raise SystemExit(f"worker failed: {out}")
            finished.append(json.loads(out)["done"])
    clean(url, prefix)
    return processes * calls / (max(finished) - released)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", default=os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return
    cost = per_call(args.url, args.calls, args.rounds)
    print(f"per call, embedded state: {cost['embedded']:8.1f} us")
    print(
        f"per call, Redis state:    {cost['redis']:8.1f} us  (+{cost['redis'] - cost['embedded']:.1f} us)"
    )
    for processes in (1, 2, 4):
        rate = throughput(args.url, processes, args.calls)
        print(f"{processes} process{'es' if processes > 1 else ''}: {rate:8.0f} calls/s")


if __name__ == "__main__":
    main()
