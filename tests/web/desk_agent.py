"""An agent for the desk tests: a real runtime that defers approvals into the shared store.

As a script (``python desk_agent.py CONFIG.json PARAMS.json [--hostile]``) it makes one call,
prints ``{"pending": ID}``, waits on the store until someone decides, resumes the call and prints
the final outcome, one JSON object a line. The tests import ``Gate`` and ``write`` from here too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from toolhooks import Runtime, ToolSpec, hookimpl
from toolhooks.plugins.event_log import EventLogPlugin

HOSTILE = "<img src=x onerror=\"document.title='pwned'\"><script>x()</script>&amp;"


class Gate:
    """Asks for approval on every call; rewrites ``path`` under /ws/ first (a hook's rewrite)."""

    name = "gate"
    priority = 50

    def __init__(self, **request: Any) -> None:
        self.request = {
            "title": "Write a file?",
            "description": "it writes to disk",
            "allowed_decisions": ["allow-once", "allow-always", "deny", "edit"],
            **request,
        }

    @hookimpl
    def before_tool_call(self, call):
        path = str(call.params.get("path", ""))
        if path.startswith("/forbidden"):
            return {"block": True, "block_reason": "/forbidden is off limits"}
        result: dict[str, Any] = {"require_approval": self.request}
        if not path.startswith("/ws/"):
            result["params"] = {"path": "/ws" + (path if path.startswith("/") else "/" + path)}
        return result


def write(path: str, text: str) -> str:
    """Write text to a file (pretend)."""
    return f"wrote {len(text)} chars to {path}"


WRITE_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}, "text": {"type": "string"}},
    "required": ["path", "text"],
    "additionalProperties": False,
}


def _say(value: dict[str, Any]) -> None:
    print(json.dumps(value), flush=True)


def main(argv: list[str]) -> int:
    config = json.loads(Path(argv[0]).read_text())
    params = json.loads(Path(argv[1]).read_text())
    hostile = "--hostile" in argv
    gate = Gate(title=HOSTILE, description=HOSTILE) if hostile else Gate()
    name = HOSTILE if hostile else "write"
    execute = None
    tools: list[Any] = [write]
    if hostile:
        tools = [ToolSpec(name, description=HOSTILE, parameters=WRITE_SCHEMA)]
        execute = lambda given: write(**given)  # noqa: E731
    with Runtime(config=config, plugins=[gate, EventLogPlugin], tools=tools,
                 approver=lambda pending: "defer", load_entrypoints=False) as rt:  # fmt: skip
        call = {"name": name, "params": params, "session_id": "support-42", "sender": "dana"}
        outcome = rt.call(call, execute=execute)
        while outcome.status == "pending":
            pending = outcome.pending
            assert pending is not None
            _say({"pending": pending.id})
            row = rt.approvals.wait(pending.id, 120)
            if row is None or row.state == "pending":
                _say({"error": "nobody decided in time"})
                return 1
            outcome = rt.resume(pending.id, execute=execute)
        _say({"status": outcome.status, "content": outcome.content, "params": outcome.params})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
