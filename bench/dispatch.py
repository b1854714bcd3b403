"""Item 1, dispatch: ``rt.call`` through N no-op plugins vs raw pluggy vs a plain loop.

All three call the *same* N no-op ``before_tool_call`` functions (methods of the same plugin
objects) with the same kind of argument, a ``ToolCall``:

- **plain loop** (the floor): ``for fn in functions: fn(call)``. Nothing else.
- **raw pluggy**: ``pm.hook.before_tool_call(call=call)`` on a ``pluggy.PluginManager`` holding
  the toolhooks hookspecs and the same plugin objects. pluggy orders the impls (LIFO, no
  priorities), collects the non-None results in a list, and does no merging, no freezing, no
  validation and no after-hooks.
- **floor, raw pluggy + the tool + an Outcome**: the raw-pluggy row, then the tool, a
  ``ToolResult`` and the ``Outcome`` that ``rt.call`` must return, with nothing between them:
  no chain state, merging, validation, after chain or adjusted-params memory. No pipeline that
  keeps ``rt.call``'s contract can be cheaper, so ``floor / pluggy`` is the best ratio the
  ``toolhooks`` row could reach.
- **toolhooks**: ``rt.call(call)`` on a ``Runtime`` with the same plugins, no sinks and one
  registered no-argument tool ``noop() -> "ok"``. Beyond the N hook calls it runs the whole
  pipeline: the priority-ordered chain with the merge rules, read-only params, validation of the
  params against the tool's schema, the tool itself, the (empty) after_tool_call chain, the
  bounded ``adjusted_params`` store and the ``Outcome``. With ``call`` given as a dict instead
  (``rt.call({"name": "noop", "params": {}})``) it also validates the proposal and builds the
  ``ToolCall`` (ids, frozen params) per call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy
from toolhooks import Outcome, Runtime, ToolCall, ToolResult, hookimpl, spec


class NoOp:
    """A plugin whose before_tool_call has no opinion."""

    def __init__(self, index: int) -> None:
        self.name = f"noop_{index}"

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        return None


def noop() -> str:
    """Does nothing."""
    return "ok"


def make_runtime(plugins: list[Any]) -> Runtime:
    return Runtime(plugins=plugins, tools=[noop], load_entrypoints=False)


def make_pluggy(plugins: list[Any]) -> pluggy.PluginManager:
    pm = pluggy.PluginManager(spec.PROJECT)
    pm.add_hookspecs(spec)
    for plugin in plugins:
        pm.register(plugin, name=plugin.name)
    return pm


FLOOR = "floor: raw pluggy + the tool + an Outcome"


def contenders(count: int) -> tuple[dict[str, Callable[[], object]], Runtime]:
    """The four rows of the dispatch table for ``count`` plugins (and the runtime, to close)."""
    plugins = [NoOp(i) for i in range(count)]
    rt = make_runtime(plugins)
    pm = make_pluggy(plugins)
    call = ToolCall(name="noop")
    proposal = {"name": "noop", "params": {}}
    functions = [plugin.before_tool_call for plugin in plugins]
    hook = pm.hook.before_tool_call
    rt_call = rt.call

    def plain_loop() -> None:
        for function in functions:
            function(call)

    def raw_pluggy() -> object:
        return hook(call=call)

    def floor() -> object:
        hook(call=call)
        value = noop()
        result = ToolResult("ok", value, value, None, 0.0, None)
        return Outcome(
            status="ok",
            content=result.content,
            call_id=call.id,
            trace_id=call.trace_id,
            tool=call.name,
            value=value,
            params={},
        )

    def toolhooks_call() -> object:
        return rt_call(call)

    def toolhooks_dict() -> object:
        return rt_call(proposal)

    assert rt.call(call).status == "ok" and rt.call(proposal).status == "ok"
    assert hook(call=call) == []
    return {
        "plain loop": plain_loop,
        "raw pluggy": raw_pluggy,
        FLOOR: floor,
        "toolhooks (ToolCall)": toolhooks_call,
        "toolhooks (dict)": toolhooks_dict,
    }, rt


class NoOpBoth(NoOp):
    """A plugin with a no-op before_tool_call and a no-op after_tool_call."""

    @hookimpl
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> None:
        return None


RESTATED_PLUGGY = "raw pluggy: before, the tool, after"
RESTATED_RT = "toolhooks rt.call (ToolCall)"


def restated_contenders(count: int) -> tuple[dict[str, Callable[[], object]], Runtime]:
    """Issue #33's restatement of #22's target: ``rt.call`` through ``count`` plugins that each
    have a no-op before and after handler, against raw pluggy calling the before hook, the tool
    and the after hook on the same plugin objects (a prebuilt ``ToolResult``)."""
    plugins = [NoOpBoth(i) for i in range(count)]
    rt = make_runtime(plugins)
    pm = make_pluggy(plugins)
    call = ToolCall(name="noop")
    before, after = pm.hook.before_tool_call, pm.hook.after_tool_call
    rt_call = rt.call

    def raw_pluggy() -> object:
        before(call=call)
        value = noop()
        return after(call=call, result=ToolResult("ok", value, value, None, 0.0, None))

    def toolhooks_call() -> object:
        return rt_call(call)

    assert rt.call(call).status == "ok"
    assert raw_pluggy() == []
    return {RESTATED_PLUGGY: raw_pluggy, RESTATED_RT: toolhooks_call}, rt
