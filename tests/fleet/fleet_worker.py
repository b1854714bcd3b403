"""One worker process of the fleet tests: runs calls against a shared Redis, prints JSON results.

Usage: python fleet_worker.py '<json job>'; the job says which scenario to run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from toolhooks import Runtime, hookimpl
from toolhooks.plugins.call_limits import CallLimitsPlugin
from toolhooks.plugins.loop_detection import LoopDetectionPlugin


def runtime(job: dict[str, Any]) -> Runtime:
    config = {"state": job["state"], "plugins": {"call_limits": {"limits": job.get("limits", [])}}}
    return Runtime(
        plugins=[CallLimitsPlugin, LoopDetectionPlugin], config=config, load_entrypoints=False
    )


class Gate:
    """Asks for approval of every ``deploy`` call."""

    name = "gate"

    @hookimpl
    def before_tool_call(self, call: Any) -> dict[str, Any] | None:
        if call.name != "deploy":
            return None
        return {"require_approval": {"title": "Deploy?", "description": "to production"}}


def approvals(job: dict[str, Any]) -> None:
    """Defer, resume or call ``deploy`` with approvals in the shared store; print the outcome."""
    answer = job["approver"]
    rt = Runtime(
        plugins=[Gate()],
        config={"state": job["state"]},
        approver=lambda pending: answer,
        load_entrypoints=False,
    )
    ran = Path(job["ran"])

    @rt.tool
    def deploy(version: str) -> str:
        with ran.open("a") as handle:
            handle.write(f"{version}\n")
        return f"deployed {version}"

    resume = job["mode"] == "resume"
    outcome = rt.resume(job["approval"]) if resume else rt.call(job["call"])
    pending = outcome.pending
    print(
        json.dumps(
            {
                "status": outcome.status,
                "reason": outcome.reason,
                "content": outcome.content,
                "call_id": outcome.call_id,
                "approval": None if pending is None else pending.id,
                "short_id": None if pending is None else pending.short_id,
            }
        )
    )


def main() -> None:
    job = json.loads(sys.argv[1])
    if "mode" in job:
        approvals(job)
        return
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
