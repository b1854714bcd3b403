"""The tools and throwaway plugins the adapter scenarios are built from (fresh ones per scenario)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..records._models import ToolCall, ToolSpec
from ..records._results import ToolResult
from ..registry._hookimpl import hookimpl

# -- the tools


def make_tools(ran: list[tuple[str, dict[str, Any]]]) -> list[Callable[..., Any]]:
    """The plain functions the scenarios call; each records its arguments in ``ran`` when it runs."""

    def write_file(path: str, content: str) -> str:
        """Write a text file in the workspace."""
        ran.append(("write_file", {"path": path, "content": content}))
        return f"wrote {len(content)} chars to {path}"

    def delete_branch(name: str) -> str:
        """Delete a git branch."""
        ran.append(("delete_branch", {"name": name}))
        return f"deleted {name}"

    def read_secret(name: str) -> str:
        """Read a value from the deployment's secret store."""
        ran.append(("read_secret", {"name": name}))
        return f"{name}=sk-live-4f9a8b7c6d5e"

    def dump_log(lines: int) -> str:
        """Print the last lines of the build log."""
        ran.append(("dump_log", {"lines": lines}))
        return "\n".join(f"step {i:04d}: compiled module_{i}.py" for i in range(lines))

    def search(query: str) -> str:
        """Search the project documentation."""
        ran.append(("search", {"query": query}))
        return f"no results for {query!r}"

    def crash(step: str) -> str:
        """Run a deployment step."""
        ran.append(("crash", {"step": step}))
        raise RuntimeError(f"disk full while {step}")

    return [write_file, delete_branch, read_secret, dump_log, search, crash]


# -- the plugins (throwaway: each scenario builds fresh ones) -------------------------------------


class WorkspacePaths:
    """Rewrites relative paths into the workspace."""

    name = "workspace_paths"

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        path = call.params.get("path", "")
        if isinstance(path, str) and not path.startswith("/"):
            return {"params": {"path": f"/workspace/{path}"}}
        return None


class NoSystemWrites:
    name = "no_system_writes"

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        if str(call.params.get("path", "")).startswith("/etc/"):
            return {"block": True, "block_reason": "writes under /etc are not allowed"}
        return None


class AskBeforeWrites:
    name = "ask_before_writes"

    @hookimpl(tools=["write_file"])
    def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {
            "require_approval": {
                "title": "Write a file?",
                "description": f"write {call.params.get('path')}",
                "allowed_decisions": ["allow-once", "deny", "edit"],
            }
        }


class HideBranchDeletes:
    name = "hide_branch_deletes"

    @hookimpl
    def tool_visible(self, tool: ToolSpec) -> bool | None:
        return False if tool.name == "delete_branch" else None


class RedactSecrets:
    name = "redact_secrets"

    @hookimpl
    def after_tool_call(self, result: ToolResult) -> dict[str, Any] | None:
        redacted = re.sub(r"sk-live-\w+", "[REDACTED]", result.content)
        return {"content": redacted} if redacted != result.content else None


def _builtin(module: str, cls: str) -> Any:
    import importlib

    return getattr(importlib.import_module(module), cls)


def loop_detection_only() -> list[Any]:
    return [_builtin("toolhooks.plugins.loop_detection", "LoopDetectionPlugin")]


def result_budget_only() -> list[Any]:
    return [_builtin("toolhooks.plugins.result_budget", "ResultBudgetPlugin")]
