"""Items 2 and 3: the default pipeline, and ``acall`` against ``call``.

The default pipeline is what ``Runtime.from_config()`` gives with the built-ins loaded through
their entry points: policy (profile "coding"), loop detection (default window), result budget
(default budget) and the JSONL event log (default flushing: one ``os.write`` per call, when
``tool.injected`` arrives), writing to a file in a temporary directory. The tool is
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
around it: the raw-pluggy row, plus the four events a default call has (tool.proposed,
tool.started, tool.finished and tool.injected listing the quiet handlers; PLUGINS.md, Events), each
built as an ``Event`` (the data dicts of one real call, reused rather than rebuilt: a lower
bound) and handed to the event log's own encoder and buffer, and the one write per call at
``tool.injected``. The second floor skips the encoding (lines made once, in advance):
what is left is the Event objects, the buffer and the write.
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
from toolhooks._events import make_event

PATHS = 1_000
BODY = "x = 1\n" * 33  # about 200 characters: a small result


def read(path: str) -> str:
    """Read a file (a stand-in: returns a fixed body)."""
    return f"# {path}\n{BODY}"


BUILTINS = ("policy", "loop_detection", "result_budget", "event_log")


def config(log_dir: str) -> dict[str, Any]:
    plugins: dict[str, Any] = {
        "event_log": {"path": os.path.join(log_dir, "events.jsonl")},
        "result_budget": {"artifact_dir": os.path.join(log_dir, "artifacts")},
    }
    # Other installed plugins (the example plugin from contrib/, say) are not the default.
    for entry_point in entry_points(group="toolhooks"):
        if entry_point.name not in BUILTINS:
            plugins[entry_point.name] = {"enabled": False}
    return {"tools": {"profile": "coding"}, "plugins": plugins}


def default_runtime(log_dir: str, with_log: bool = True) -> Runtime:
    cfg = config(log_dir)
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
    """Rows of item 2: the default pipeline, the same without the log, and raw pluggy."""
    rt = default_runtime(log_dir)
    quiet = default_runtime(log_dir, with_log=False)
    discarding = default_runtime(log_dir, with_log=False)
    discarding.register(_Discard(), name="discard")
    next_proposal, next_quiet = proposals("bench"), proposals("bench-quiet")
    next_discarded = proposals("bench-discard")
    for runtime, make in ((rt, next_proposal), (quiet, next_quiet), (discarding, next_discarded)):
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
                "read", {"path": f"src/module_{i}.py"}, session_id="bench-pluggy", spec=tool_spec
            )
            for i in range(PATHS)
        ]
    ).__next__

    def raw_pluggy() -> object:
        call = calls()
        before(call=call)
        value = read(**call.params)
        return after(call=call, result=ToolResult("ok", value, value, None, 0.0, None))

    floor, floor_pre_encoded, floor_rt = _floors(log_dir, raw_pluggy)
    call_rt, call_quiet, call_discarding = rt.call, quiet.call, discarding.call
    return {
        "toolhooks default pipeline": lambda: call_rt(next_proposal()),
        "  same, event log off": lambda: call_quiet(next_quiet()),
        "  same, a sink that drops events instead": lambda: call_discarding(next_discarded()),
        "raw pluggy, same 3 plugins": raw_pluggy,
        "floor: raw pluggy + the log's work for 8 events": floor,
        "floor: same, lines encoded in advance": floor_pre_encoded,
    }, [rt, quiet, discarding, floor_rt]


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
) -> tuple[Callable[[], None], Callable[[], None], Runtime]:
    """The two floor rows (see the module docstring), on the events of one real default call."""
    rt = default_runtime(os.path.join(log_dir, "floor"))
    capture = _Capture()
    rt.register(capture, name="capture")
    rt.call(proposals("floor")())
    rt.unregister("capture")
    template = [
        (e.event, e.plugin, e.data, e.trace_id, e.session_id, e.tool) for e in capture.events
    ]
    assert len(template) == 4, [name for name, *_ in template]
    log = rt.get_plugin("event_log")
    encode, append = log._encoder.encode, log._writer.append
    counter = itertools.count()
    now = time.time

    def floor() -> None:
        raw_pluggy()
        call_id = f"call_floor_{next(counter)}"  # a new call: the envelope cache misses once
        for name, plugin, data, trace_id, session_id, tool in template:
            event = make_event(name, now(), trace_id, call_id, session_id, tool, plugin, data)
            append(encode(event), name == "tool.injected")

    lines = [encode(event) for event in capture.events]

    def floor_pre_encoded() -> None:
        raw_pluggy()
        call_id = f"call_floor_{next(counter)}"
        for line, (name, plugin, data, trace_id, session_id, tool) in zip(
            lines, template, strict=True
        ):
            make_event(name, now(), trace_id, call_id, session_id, tool, plugin, data)
            append(line, name == "tool.injected")

    return floor, floor_pre_encoded, rt


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
