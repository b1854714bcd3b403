"""Plugins with ``attach_runtime`` see the tools: those given to ``Runtime(tools=...)`` already
when they are attached, and every tool registered later (a plugin that checks its config against
the tools may refuse one: the tool is then not registered)."""

from __future__ import annotations

from typing import Any

import pytest
from toolhooks import ConfigError, Runtime, ToolSpec


class Watcher:
    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def attach_runtime(self, runtime: Any) -> None:
        names = sorted(spec.name for spec in runtime.tool_specs())
        if "forbidden" in names:
            raise ConfigError("the watcher refuses a tool named forbidden")
        self.seen.append(names)


def spec(name: str) -> ToolSpec:
    return ToolSpec(name, name, {"type": "object", "properties": {}})


def test_attached_plugins_see_the_constructor_tools_and_later_ones() -> None:
    watcher = Watcher()
    with Runtime(config={}, plugins=[watcher], tools=[spec("a")], load_entrypoints=False) as rt:
        assert watcher.seen[0] == ["a"]
        rt.add_tool(spec("b"))
        assert watcher.seen[-1] == ["a", "b"]


def test_a_refused_tool_is_not_registered_and_a_replaced_one_is_restored() -> None:
    watcher = Watcher()
    with Runtime(config={}, plugins=[watcher], tools=[spec("a")], load_entrypoints=False) as rt:
        with pytest.raises(ConfigError, match="refuses"):
            rt.add_tool(spec("forbidden"))
        assert [s.name for s in rt.tool_specs()] == ["a"]


def test_a_refused_constructor_tool_is_a_config_error_from_the_runtime() -> None:
    watcher = Watcher()
    with pytest.raises(ConfigError, match="refuses"):
        Runtime(config={}, plugins=[watcher], tools=[spec("forbidden")], load_entrypoints=False)
