"""Plugins and payloads the bridge tests share (imported by conftest.py and the tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolhooks import hookimpl

FIXTURES = Path(__file__).parent / "fixtures"


class Guard:
    """The plugin the scenarios use: blocks rm -rf, rewrites "echo original", asks for approval."""

    priority = 1000

    def __init__(self, allowed: tuple[str, ...] = ("allow-always", "deny")) -> None:
        self.allowed = allowed

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call: Any) -> Any:
        command = str(call.params.get("command", ""))
        if "rm -rf" in command:
            return {"block": True, "block_reason": "guard: rm -rf is not allowed"}
        if command.startswith("echo original"):
            return {"params": {**call.params, "command": command.replace("original", "new")}}
        if "needs-approval" in command:
            return {
                "require_approval": {
                    "title": "Touch a file",
                    "description": command,
                    "allowed_decisions": list(self.allowed),
                    "timeout_s": 60,
                }
            }
        return None


class Redactor:
    """An after hook that changes what the model reads."""

    @hookimpl
    def after_tool_call(self, call: Any, result: Any) -> Any:
        if "secret" in str(result.content):
            return {"content": "[redacted]"}
        return None


def payload(agent: str, event: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / agent / f"{event}.json").read_text())
    data.update(changes)
    return data


def raw(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()
