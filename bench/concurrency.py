"""Item 6: many asyncio sessions and several threads calling one runtime at the same time.

One default-pipeline runtime (policy, loop detection, result budget, the JSONL event log). At
the same moment: the main thread runs ``sessions`` asyncio tasks, each a session of
``per_session`` ``acall``s of an async tool that yields to the loop mid-call (so hundreds of
calls are in flight at once), while ``threads`` threads each make ``per_thread`` ``call``s of
the sync tool in their own session. Throughput is all calls over the wall-clock time.

Then the log is read back and checked: every call has exactly its four events (tool.proposed,
tool.started, tool.finished, tool.injected) and its four quiet handlers listed in tool.injected
(policy and loop_detection before, loop_detection and result_budget after), none twice, no line
belongs to an unknown call, every line parses, and the writer dropped nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pipeline import config, read
from toolhooks import Outcome, Runtime

EXPECTED = Counter(
    {
        ("tool.proposed", None, None): 1,
        ("quiet", "policy", "before_tool_call"): 1,
        ("quiet", "loop_detection", "before_tool_call"): 1,
        ("tool.started", None, None): 1,
        ("tool.finished", None, None): 1,
        ("quiet", "loop_detection", "after_tool_call"): 1,
        ("quiet", "result_budget", "after_tool_call"): 1,
        ("tool.injected", None, None): 1,
    }
)


async def aread(path: str) -> str:
    """An async tool: yields to the event loop once, as real I/O would."""
    await asyncio.sleep(0)
    return read(path)


@dataclass
class Report:
    calls: int
    seconds: float
    lines: int
    lost: int
    duplicated: int
    strays: int
    unparsable: int
    dropped: int
    not_ok: int

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.strays or self.unparsable or self.dropped)


def run(workdir: str, sessions: int, per_session: int, threads: int, per_thread: int) -> Report:
    cfg = config(workdir)
    cfg["tools"]["also_allow"] = ["aread"]
    rt = Runtime(config=cfg, tools=[read, aread])
    outcomes: list[Outcome] = []
    lock = threading.Lock()
    start = threading.Barrier(threads + 1)

    def worker(index: int) -> None:
        mine = []
        start.wait()
        for i in range(per_thread):
            params = {"path": f"t{index}/{i}.py"}
            mine.append(
                rt.call({"name": "read", "params": params, "session_id": f"thread-{index}"})
            )
        with lock:
            outcomes.extend(mine)

    async def session(index: int) -> list[Outcome]:
        return [
            await rt.acall(
                {
                    "name": "aread",
                    "params": {"path": f"a{index}/{i}.py"},
                    "session_id": f"task-{index}",
                }
            )
            for i in range(per_session)
        ]

    async def all_sessions() -> list[list[Outcome]]:
        return await asyncio.gather(*(session(i) for i in range(sessions)))

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for batch in asyncio.run(all_sessions()):
        outcomes.extend(batch)
    for thread in pool:
        thread.join()
    seconds = time.perf_counter() - began
    log = rt.get_plugin("event_log")
    rt.close()
    return _check(outcomes, log.path, log.stats().dropped, seconds)


def _check(outcomes: list[Outcome], path: str, dropped: int, seconds: float) -> Report:
    seen: dict[str, Counter[tuple[Any, Any, Any]]] = {o.call_id: Counter() for o in outcomes}
    lines = strays = unparsable = 0
    with open(path, encoding="utf-8") as log:
        for line in log:
            lines += 1
            try:
                record = json.loads(line)
            except ValueError:
                unparsable += 1
                continue
            events = seen.get(record.get("call_id"))
            if events is None:
                strays += 1
                continue
            events[(record["event"], record.get("plugin"), record.get("hook"))] += 1
            for quiet in record.get("quiet") or ():  # the handlers with no opinion
                events[("quiet", quiet.get("plugin"), quiet.get("hook"))] += 1
    lost = duplicated = 0
    for events in seen.values():
        lost += sum((EXPECTED - events).values())
        duplicated += sum((events - EXPECTED).values())
    os.remove(path)
    not_ok = sum(1 for o in outcomes if o.status != "ok" or o.notes)
    return Report(
        len(outcomes), seconds, lines, lost, duplicated, strays, unparsable, dropped, not_ok
    )
