"""One worker process of the fleet tests: runs calls against a shared Redis, prints JSON results.

Usage: python fleet_worker.py '<json job>'; the job says which scenario to run.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from toolhooks import Runtime
from toolhooks.plugins.call_limits import CallLimitsPlugin
from toolhooks.plugins.loop_detection import LoopDetectionPlugin


def runtime(job: dict[str, Any]) -> Runtime:
    config = {"state": job["state"], "plugins": {"call_limits": {"limits": job.get("limits", [])}}}
    return Runtime(
        plugins=[CallLimitsPlugin, LoopDetectionPlugin], config=config, load_entrypoints=False
    )


def main() -> None:
    job = json.loads(sys.argv[1])
    rt = runtime(job)
    results: list[dict[str, Any]] = []
    for index in range(job["calls"]):
        params = {"i": job["worker"] * 100_000 + index} if job.get("distinct") else {"q": "same"}
        outcome = rt.call(
            {"name": job["tool"], "params": params, "session_id": job.get("session")},
            execute=lambda params: "unchanged",
        )
        results.append({"status": outcome.status, "reason": outcome.reason})
    print(json.dumps(results))


if __name__ == "__main__":
    main()
