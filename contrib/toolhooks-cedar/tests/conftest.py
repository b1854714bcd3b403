"""A project folder with a toolhooks.toml whose [plugins.cedar] reads policy files written by the
test, and a runtime built from it (the real plugin, loaded through its entry point)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from toolhooks import Runtime

PAY_SCHEMA = {
    "type": "object",
    "properties": {
        "amount": {"type": "number"},
        "to": {"type": "string"},
        "memo": {"type": "string"},
    },
    "required": ["amount", "to"],
}


def write_config(folder: Path, settings: dict[str, Any], extra: str = "") -> Path:
    """``folder/toolhooks.toml`` with the full tool profile and ``[plugins.cedar]``."""
    lines = ["[tools]", 'profile = "full"', "", "[plugins.cedar]"]
    lines += [f"{key} = {_toml(value)}" for key, value in settings.items()]
    config = folder / "toolhooks.toml"
    config.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return config


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)  # strings, numbers and lists of strings are spelled alike


class Project:
    """A folder with policies, entities and a config; ``runtime()`` builds a runtime on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.made: list[Runtime] = []

    def policy(self, text: str, name: str = "policies/main.cedar") -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def entities(self, entities: list[dict[str, Any]], name: str = "entities.json") -> Path:
        path = self.root / name
        path.write_text(json.dumps(entities), encoding="utf-8")
        return path

    def config(self, **settings: Any) -> Path:
        settings.setdefault("policies", ["policies/*.cedar"])
        return write_config(self.root, settings)

    def runtime(
        self, tools: bool = True, approver: Any = None, extra: tuple[Any, ...] = (), **settings: Any
    ) -> Runtime:
        given = [*(pay_tools() if tools else ()), *extra]
        rt = Runtime(config=self.config(**settings), tools=given, approver=approver)
        self.made.append(rt)
        return rt


def pay_tools() -> list[Any]:
    from toolhooks import ToolSpec

    return [
        ToolSpec("pay", "Pay someone", PAY_SCHEMA, frozenset({"side_effect"})),
        ToolSpec(
            "restart",
            "Restart a service",
            {
                "type": "object",
                "properties": {"service": {"type": "string"}, "env": {"type": "string"}},
                "required": ["service", "env"],
            },
            frozenset({"side_effect"}),
        ),
        ToolSpec(
            "exec",
            "Run a shell command",
            {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
            frozenset({"side_effect"}),
        ),
        ToolSpec(
            "fetch",
            "Fetch a page",
            {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
            frozenset(),
        ),
    ]


def ran(params: dict[str, Any]) -> str:
    return "done"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    made = Project(tmp_path)
    yield made
    for rt in made.made:
        rt.close()


@pytest.fixture
def call() -> Callable[..., Any]:
    """``call(rt, name, sender=None, **params)``: the Outcome of one call (the tool says done)."""

    def run(rt: Runtime, name: str, sender: Any = None, session: str = "s", **params: Any) -> Any:
        proposal: dict[str, Any] = {"name": name, "params": params, "session_id": session}
        if sender is not None:
            proposal["sender"] = sender
        return rt.call(proposal, execute=ran)

    return run
