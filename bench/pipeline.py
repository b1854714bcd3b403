"""Items 2 to 4: the default pipeline, the same paced like an agent, ``acall`` against ``call``.

The default pipeline is what ``Runtime.from_config()`` gives with the built-ins loaded through
their entry points: policy (profile "coding"), loop detection (default window), result budget
(default budget) and the JSONL event log, writing to a file in a temporary directory. The log
runs with its default ``durability = "interval"`` (the caller queues each event; a writer thread
encodes and writes them every 100 ms) and, in a second row, with ``durability = "call"`` (the
call's events are encoded and written with one ``os.write`` before ``call`` returns). The tool is
``read(path: str) -> str`` returning about 200 characters; every call has small params
(``{"path": "src/module_N.py"}``) and a session id. The proposals cycle through 1,000 distinct
paths, so that loop detection sees an agent making progress, as a real one would, and never
blocks or warns.

The raw-pluggy row runs the *same* three decision plugins (the very objects the runtime loaded)
through ``pm.hook.before_tool_call`` / the tool / ``pm.hook.after_tool_call`` with a prebuilt
``ToolCall`` and ``ToolResult``: no event log (pluggy has no events), no merging, no freezing,
no validation, and it ignores what the hooks return. The "sink that drops events" row replaces
the event log with an ``on_event`` that does nothing: the core still builds and delivers every
event, so the row shows what the events cost the core, apart from the log.

The two "floor" rows are what the design's audit trail costs at the least, with no pipeline
around it: the raw-pluggy row, plus the events a default call has (tool.proposed, tool.started,
tool.finished and tool.injected listing the quiet handlers), each built as an ``Event`` (the data
dicts of one real call, reused rather than rebuilt: a lower bound) and handed to the event log's
queue (``durability = "interval"``: what the caller does). The second floor also encodes each
event on the caller's thread, as the log did before issue #22 (and as ``"call"`` does when the
call ends).

"Paced like an agent" times single calls one by one, with a 500 µs sleep before each (an agent
waits for its model between tool calls, and meanwhile other work takes the CPU caches), on the
wall clock, and reports the median and the 99th percentile.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

import pluggy
from toolhooks import Event, Runtime, ToolCall, ToolResult, hookimpl, spec
from toolhooks.events._events import make_event

PATHS = 1_000
BODY = "x = 1\n" * 33  # about 200 characters: a small result


def read(path: str) -> str:
    """Read a file (a stand-in: returns a fixed body)."""
    return f"# {path}\n{BODY}"


BUILTINS = ("policy", "loop_detection", "result_budget", "event_log")


def config(log_dir: str, durability: str = "interval") -> dict[str, Any]:
    plugins: dict[str, Any] = {
        "event_log": {"path": os.path.join(log_dir, "events.jsonl"), "durability": durability},
        "result_budget": {"artifact_dir": os.path.join(log_dir, "artifacts")},
    }
    # Other installed plugins (the example plugin from contrib/, say) are not the default.
    for entry_point in entry_points(group="toolhooks"):
        if entry_point.name not in BUILTINS:
            plugins[entry_point.name] = {"enabled": False}
    return {"tools": {"profile": "coding"}, "plugins": plugins}


def default_runtime(log_dir: str, with_log: bool = True, durability: str = "interval") -> Runtime:
    cfg = config(log_dir, durability)
    if not with_log:
        cfg["plugins"]["event_log"]["enabled"] = False
    rt = Runtime(config=cfg, tools=[read])
    loaded = {info.name for info in rt.plugins()}
    wanted = {"policy", "loop_detection", "result_budget"} | ({"event_log"} if with_log else set())
    missing = wanted - loaded
    assert not missing, f"built-in plugins not loaded: {sorted(missing)}"
    return rt


def proposals(session: str = "bench") -> Callable[[], dict[str, Any]]:
    """A function returning the next proposal, cycling through PATHS distinct ones."""
    calls = [
        {"name": "read", "params": {"path": f"src/module_{i}.py"}, "session_id": session}
        for i in range(PATHS)
    ]
    return itertools.cycle(calls).__next__


def pipeline_contenders(log_dir: str) -> tuple[dict[str, Callable[[], object]], list[Runtime]]:
    """Rows of item 2: the default pipeline in both durabilities, without the log, raw pluggy."""
    rt = default_runtime(log_dir)
    per_call = default_runtime(os.path.join(log_dir, "call"), durability="call")
    quiet = default_runtime(log_dir, with_log=False)
    discarding = default_runtime(log_dir, with_log=False)
    discarding.register(_Discard(), name="discard")
    next_proposal, next_quiet = proposals("bench"), proposals("bench-quiet")
    next_discarded, next_per_call = proposals("bench-discard"), proposals("bench-call")
    for runtime, make in (
        (rt, next_proposal),
        (per_call, next_per_call),
        (quiet, next_quiet),
        (discarding, next_discarded),
    ):
        outcome = runtime.call(make())
        assert outcome.status == "ok" and not outcome.notes, outcome

    pm = pluggy.PluginManager(spec.PROJECT)
    pm.add_hookspecs(spec)
    for name in ("policy", "loop_detection", "result_budget"):
        pm.register(quiet.get_plugin(name), name=name)
    before, after = pm.hook.before_tool_call, pm.hook.after_tool_call
    tool_spec = next(s for s in quiet.tool_specs() if s.name == "read")
    calls = itertools.cycle(
        [
            ToolCall(
                name="read",
                params={"path": f"src/module_{i}.py"},
                session_id="bench-pluggy",
                spec=tool_spec,
            )
            for i in range(PATHS)
        ]
    ).__next__

    def raw_pluggy() -> object:
        call = calls()
        before(call=call)
        value = read(**call.params)
        return after(call=call, result=ToolResult("ok", value, value, None, 0.0, None))

    floor, floor_encoded, floor_rt, events = _floors(log_dir, raw_pluggy)
    call_rt, call_quiet, call_discarding = rt.call, quiet.call, discarding.call
    call_per_call = per_call.call
    return {
        DEFAULT: lambda: call_rt(next_proposal()),
        PER_CALL: lambda: call_per_call(next_per_call()),
        "  same, event log off": lambda: call_quiet(next_quiet()),
        "  same, a sink that drops events instead": lambda: call_discarding(next_discarded()),
        PLUGGY: raw_pluggy,
        f"floor: raw pluggy + the log's work for a call's {events} events": floor,
        "floor: same, each event encoded on the caller too": floor_encoded,
    }, [rt, per_call, quiet, discarding, floor_rt]


DEFAULT = 'toolhooks default pipeline (durability "interval")'
PER_CALL = '  same, durability "call"'
PLUGGY = "raw pluggy, same 3 plugins"


def paced(
    rt: Runtime, make: Callable[[], object], calls: int, gap_s: float = 0.0005
) -> list[float]:
    """Wall-clock seconds of ``calls`` single calls, each after a ``gap_s`` sleep."""
    latencies = []
    call, clock, sleep = rt.call, time.perf_counter, time.sleep
    for _ in range(calls):
        sleep(gap_s)
        proposal = make()
        start = clock()
        call(proposal)  # type: ignore[arg-type]
        latencies.append(clock() - start)
    return latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class _Discard:
    """An on_event sink that does nothing: the core builds and delivers every event for it."""

    @hookimpl
    def on_event(self, event: Event) -> None:
        return None


class _Capture:
    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def on_event(self, event: Event) -> None:
        self.events.append(event)


def _floors(
    log_dir: str, raw_pluggy: Callable[[], object]
) -> tuple[Callable[[], None], Callable[[], None], Runtime, int]:
    """The two floor rows (see the module docstring), on the events of one real default call."""
    rt = default_runtime(os.path.join(log_dir, "floor"))
    capture = _Capture()
    rt.register(capture, name="capture")
    rt.call(proposals("floor")())
    rt.unregister("capture")
    template = [
        (e.event, e.plugin, e.data, e.trace_id, e.session_id, e.tool) for e in capture.events
    ]
    log = rt.get_plugin("event_log")
    encode, append = log._writer.encode, log._writer.append
    counter = itertools.count()
    now = time.time

    def floor() -> None:
        raw_pluggy()
        call_id = f"call_floor_{next(counter)}"
        for name, plugin, data, trace_id, session_id, tool in template:
            append(make_event(name, now(), trace_id, call_id, session_id, tool, plugin, data))

    def floor_encoded() -> None:
        raw_pluggy()
        call_id = f"call_floor_{next(counter)}"
        for name, plugin, data, trace_id, session_id, tool in template:
            event = make_event(name, now(), trace_id, call_id, session_id, tool, plugin, data)
            encode(event)
            append(event)

    return floor, floor_encoded, rt, len(template)


def async_contenders(
    rt: Runtime, make: Callable[[], object], batch: int
) -> tuple[dict[str, Callable[[], object]], Callable[[], None]]:
    """``call`` vs ``acall`` on one runtime. ``acall`` is awaited ``batch`` times in a row inside
    one coroutine on a running event loop (so the loop's own start-up is not counted), and its
    time is divided by ``batch`` by wrapping it as ``batch`` calls of the sync side."""
    loop = asyncio.new_event_loop()
    acall, call = rt.acall, rt.call

    async def many() -> None:
        for _ in range(batch):
            await acall(make())  # type: ignore[arg-type]

    def batch_sync() -> None:
        for _ in range(batch):
            call(make())  # type: ignore[arg-type]

    def batch_async() -> None:
        loop.run_until_complete(many())

    return {"call": batch_sync, "acall": batch_async}, loop.close
