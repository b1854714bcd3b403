"""``toolhooks explain --call JSON``: one call's decision trail under the current config.

The call goes through ``Runtime.decide`` (the fence, every before_tool_call handler, validation;
no tool runs, no approval is asked), and every handler of the tool's before chain is listed in
the order it ran, with its answer: what it returned, "no opinion", or "not reached" after a
block.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..events._events import Event
from ..events._names import HOOK_DECISION, TOOL_PROPOSED
from ..registry._hookimpl import hookimpl
from ..runtime._runtime import Runtime
from . import _table
from ._common import OK, PROBLEMS, UsageError, build_runtime, print_json, read_config


class _Trail:
    """Records the hook.decision events of the one call being explained."""

    def __init__(self) -> None:
        self.answers: dict[str, dict[str, Any]] = {}
        self.proposed = False
        """False when the call never reached the chain (an invalid proposal)."""

    @hookimpl
    def on_event(self, event: Event) -> None:
        self.proposed = self.proposed or event.event == TOOL_PROPOSED
        if event.event == HOOK_DECISION and event.plugin:
            data = dict(event.data)
            if data.get("hook", "before_tool_call") == "before_tool_call":
                self.answers[event.plugin] = data


def parse_call(text: str) -> dict[str, Any]:
    try:
        proposal = json.loads(text)
    except ValueError as error:
        raise UsageError(f"--call: not JSON ({error})") from None
    if type(proposal) is not dict:
        raise UsageError('--call takes a JSON object: {"name": "exec", "params": {...}}')
    return proposal


def answer_of(data: dict[str, Any]) -> str:
    """What a handler said, in a few words."""
    if data.get("error"):
        return f"failed: {data['error']}"
    parts = []
    if data.get("block"):
        parts.append(f"block: {data.get('block_reason')}")
    if data.get("params"):
        parts.append(f"rewrote {', '.join(map(str, data['params']))}")
    if data.get("require_approval"):
        parts.append(f"asks approval: {data['require_approval']}")
    said = "; ".join(parts) or "no change"
    return said + (" (audit: not applied)" if data.get("applied") is False else "")


def trail(runtime: Runtime, proposal: dict[str, Any]) -> dict[str, Any]:
    recorder = _Trail()
    runtime._register_observer(recorder, "explain.trail")  # not subject to only / disable
    try:
        decision = runtime.decide(proposal)
    finally:
        runtime.unregister("explain.trail")
    steps: list[dict[str, Any]] = []
    stopped = not recorder.proposed
    for handler in runtime.handlers("before_tool_call", decision.tool):
        data = recorder.answers.get(handler.plugin)
        if stopped:
            answer = (
                "not reached (an earlier handler blocked)"
                if recorder.proposed
                else "not reached (the call is invalid)"
            )
        elif data is None:
            answer = "no opinion"
        else:
            answer = answer_of(data)
            stopped = bool(data.get("block")) and data.get("applied") is not False
        steps.append({"plugin": handler.plugin, "priority": handler.priority, "answer": answer})
    return {
        "tool": decision.tool,
        "status": decision.status,
        "blocked_by": decision.blocked_by,
        "reason": decision.reason,
        "params": dict(decision.params or {}),
        "steps": steps,
    }


def run_trail(args: argparse.Namespace) -> int:
    proposal = parse_call(args.call)
    runtime = build_runtime(read_config(args))
    try:
        found = trail(runtime, proposal)
    finally:
        runtime.close()
    if args.json:
        print_json(found)
    else:
        rows = [[str(s["priority"]), s["plugin"], s["answer"]] for s in found["steps"]]
        print(f"call {_table.clean(found['tool'])}: {found['status']}", end="")
        if found["blocked_by"]:
            print(f" by {_table.clean(found['blocked_by'])}", end="")
        print()
        if found["reason"]:
            print(f"  {_table.clean(found['reason'])}")
        headers = ["PRIORITY", "PLUGIN", "ANSWER"]
        print(_table.render(headers, rows, align=["right", "left", "left"], wrap=2, flex=[2]))
    return OK if found["status"] != "error" else PROBLEMS
