"""How a runtime takes its config: tables for plugins registered later, only / disable / enabled
for every plugin, and the same discovery as the CLI (issue #10 items 14, 15 and 17)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from toolhooks import ConfigError, Runtime, ToolCall, hookimpl


class Stamp:
    """Blocks every call with its own text, so a test sees whether (and how) it ran."""

    class Config(BaseModel):
        text: str = "stamped"

    def __init__(self, config: Config | None = None) -> None:
        self.config = config or self.Config()

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {"block": True, "block_reason": self.config.text}


class Quiet:
    name = "quiet"

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        return None


def _echo(rt: Runtime) -> None:
    rt.add_tool(lambda: "ran", name="echo")


# -- item 14 ---------------------------------------------------------------------------------


def test_a_table_applies_to_a_plugin_registered_after_construction() -> None:
    config = {
        "plugins": {
            "stamp": {"text": "from config", "priority": 42, "mode": "audit", "timeout_s": 3.0}
        }
    }
    rt = Runtime(config=config, load_entrypoints=False)
    _echo(rt)
    rt.register(Stamp, name="stamp")
    (info,) = rt.plugins()
    assert (info.name, info.priority, info.mode) == ("stamp", 42, "audit")
    (handler,) = rt.handlers("before_tool_call")
    assert handler.timeout_s == 3.0
    assert rt.get_plugin("stamp").config.text == "from config"
    assert rt.call({"name": "echo"}).status == "ok"  # audit: recorded, not applied
    rt.close()


def test_enabled_false_in_a_table_applies_to_a_plugin_registered_later() -> None:
    rt = Runtime(config={"plugins": {"stamp": {"enabled": False}}}, load_entrypoints=False)
    _echo(rt)
    assert rt.register(Stamp, name="stamp") == "stamp"
    assert rt.plugins() == [] and rt.get_plugin("stamp") is None
    assert rt.call({"name": "echo"}).status == "ok"
    rt.close()


def test_a_table_naming_no_plugin_is_an_error_at_first_use(tmp_path: Path) -> None:
    path = tmp_path / "toolhooks.toml"
    path.write_text('[tools]\nprofile = "full"\n\n[plugins.stampp]\ntext = "x"\n')
    rt = Runtime(config=path, load_entrypoints=False)
    rt.register(Stamp, name="stamp")
    with pytest.raises(ConfigError) as raised:
        rt.call({"name": "echo"})
    message = str(raised.value)
    assert message.startswith(f"{path}:4: [plugins.stampp] names no installed or registered plugin")
    assert "(did you mean 'stamp'?)" in message
    rt.close()


FIRST_USES = {
    "acall": lambda rt: asyncio.run(rt.acall({"name": "echo"})),
    "decide": lambda rt: rt.decide({"name": "echo"}),
    "adecide": lambda rt: asyncio.run(rt.adecide({"name": "echo"})),
    "resume": lambda rt: rt.resume("no-such-approval", "allow-once"),
    "aresume": lambda rt: asyncio.run(rt.aresume("no-such-approval", "allow-once")),
    "ask": lambda rt: rt.ask("no-such-approval"),
    "visible_tools": lambda rt: rt.visible_tools(),
    "is_visible": lambda rt: rt.is_visible("echo"),
}


@pytest.mark.parametrize("first_use", sorted(FIRST_USES))
def test_every_entry_point_reports_a_table_naming_no_plugin(tmp_path: Path, first_use: str) -> None:
    """Not only ``call``: an agent whose first act is decide or resume (an adapter) sees it too."""
    path = tmp_path / "toolhooks.toml"
    path.write_text('[plugins.stampp]\ntext = "x"\n')
    rt = Runtime(config=path, load_entrypoints=False)
    with pytest.raises(ConfigError, match=r"\[plugins.stampp\] names no installed"):
        FIRST_USES[first_use](rt)
    rt.close()


# -- item 15 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plugins_table", "reason"),
    [
        ({"stamp": {"enabled": False}}, "[plugins.stamp] enabled = false"),
        ({"disable": ["stamp"]}, "listed in [plugins] disable"),
        ({"only": ["quiet"]}, "not listed in [plugins] only"),
    ],
)
def test_only_disable_and_enabled_hold_for_plugins_passed_to_the_runtime(
    plugins_table: dict[str, Any], reason: str
) -> None:
    stamp = Stamp()
    stamp.name = "stamp"  # type: ignore[attr-defined]
    rt = Runtime(
        plugins=[stamp, Quiet()], config={"plugins": plugins_table}, load_entrypoints=False
    )
    _echo(rt)
    assert [p.name for p in rt.plugins()] == ["quiet"]
    (off,) = [p for p in rt.plugins(include_disabled=True) if p.name == "stamp"]
    assert (off.enabled, off.reason, off.source) == (False, reason, "registered")
    assert rt.call({"name": "echo"}).status == "ok"
    rt.close()


@pytest.mark.parametrize("key", ["only", "disable"])
def test_a_name_in_only_or_disable_that_matches_no_plugin_is_an_error(
    key: str, tmp_path: Path
) -> None:
    path = tmp_path / "toolhooks.toml"
    path.write_text(f'[plugins]\n{key} = ["quiet", "evnt_log"]\n')
    rt = Runtime(plugins=[Quiet()], config=path, load_entrypoints=False)
    with pytest.raises(ConfigError) as raised:
        rt.call({"name": "echo"})
    assert str(raised.value).startswith(
        f"{path}:2: [plugins] {key} names 'evnt_log', which matches no installed or registered "
        "plugin (did you mean 'event_log'?)"
    )
    rt.close()


def test_only_may_name_an_installed_plugin_that_is_not_loaded() -> None:
    rt = Runtime(plugins=[Quiet()], config={"plugins": {"only": ["quiet", "policy"]}},
                 load_entrypoints=False)  # fmt: skip
    _echo(rt)
    assert rt.call({"name": "echo"}).status == "ok"
    rt.close()


# -- item 17 ---------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    return tmp_path


def _table(text: str) -> str:
    return f'[plugins.stamp]\ntext = "{text}"\n'


def _stamped(rt: Runtime) -> str | None:
    _echo(rt)
    rt.register(Stamp, name="stamp")
    reason = rt.call({"name": "echo"}).reason
    rt.close()
    return reason


def test_runtime_without_config_reads_toolhooks_toml_like_the_cli(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (project / "toolhooks.toml").write_text(_table("from toolhooks.toml"))
    with caplog.at_level(logging.INFO, logger="toolhooks"):
        rt = Runtime(load_entrypoints=False)
    assert rt.config.source == project / "toolhooks.toml"
    assert f"toolhooks config: {project / 'toolhooks.toml'}" in caplog.messages
    assert _stamped(rt) == "from toolhooks.toml"


def test_toolhooks_config_beats_toolhooks_toml_and_pyproject(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.toolhooks.plugins.stamp]\ntext = "from pyproject"\n'
    )
    rt = Runtime(load_entrypoints=False)
    assert rt.config.source == project / "pyproject.toml"
    assert _stamped(rt) == "from pyproject"
    (project / "toolhooks.toml").write_text(_table("from toolhooks.toml"))
    assert _stamped(Runtime(load_entrypoints=False)) == "from toolhooks.toml"
    operator = project / "operator.toml"
    operator.write_text(_table("from the operator"))
    monkeypatch.setenv("TOOLHOOKS_CONFIG", str(operator))
    rt = Runtime(load_entrypoints=False)
    assert rt.config.source == operator
    assert _stamped(rt) == "from the operator"


def test_an_empty_config_mapping_means_no_config(project: Path) -> None:
    (project / "toolhooks.toml").write_text(_table("from toolhooks.toml"))
    rt = Runtime(config={}, load_entrypoints=False)
    assert rt.config.source is None and rt.config.data == {}
    assert _stamped(rt) == "stamped"


def test_the_runtime_fixture_reads_no_config_from_the_machine(
    toolhooks_make_runtime: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A developer's own $TOOLHOOKS_CONFIG (here one that denies the tool) must not leak in."""
    denying = tmp_path / "operator.toml"
    denying.write_text('[tools]\ndeny = ["echo"]\n')
    monkeypatch.setenv("TOOLHOOKS_CONFIG", str(denying))
    unguarded = Runtime(load_entrypoints=False)
    assert unguarded.config.source == denying  # what the fixture guards against
    unguarded.close()
    rt = toolhooks_make_runtime(load_entrypoints=True)
    _echo(rt)
    assert rt.config.source != denying
    assert rt.call({"name": "echo"}).status == "ok"
