"""A built-in whose table is absent runs on plain defaults: its pydantic ``Config`` is built only
when a table is given or something reads it (issue #22's cold process), and what a plugin or a
test sees is the same as before."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Mapping
from typing import Any

import pytest
from toolhooks import ConfigError, Runtime
from toolhooks.config import _settings as settings
from toolhooks.config._defaults import APPROVALS_DEFAULTS, PLUGINS_DEFAULTS
from toolhooks.config._settings import FRAMEWORK_KEYS, load_config
from toolhooks.kit import LazyConfig
from toolhooks.loading._build import build, config_model
from toolhooks.plugins.call_limits import CallLimitsConfig, CallLimitsPlugin
from toolhooks.plugins.call_limits._defaults import DEFAULTS as LIMITS_DEFAULTS
from toolhooks.plugins.event_log import EventLogConfig, EventLogPlugin
from toolhooks.plugins.event_log._defaults import DEFAULTS as EVENT_LOG_DEFAULTS
from toolhooks.plugins.loop_detection import LoopDetectionConfig, LoopDetectionPlugin
from toolhooks.plugins.loop_detection._defaults import DEFAULTS as LOOP_DEFAULTS
from toolhooks.plugins.policy import PolicyConfig, PolicyPlugin
from toolhooks.plugins.policy._defaults import DEFAULTS as POLICY_DEFAULTS
from toolhooks.plugins.result_budget import ResultBudgetConfig, ResultBudgetPlugin
from toolhooks.plugins.result_budget._defaults import DEFAULTS as BUDGET_DEFAULTS
from toolhooks.stores._state import STATE_DEFAULTS

LAZY = [
    (EventLogPlugin, EventLogConfig, EVENT_LOG_DEFAULTS),
    (LoopDetectionPlugin, LoopDetectionConfig, LOOP_DEFAULTS),
    (ResultBudgetPlugin, ResultBudgetConfig, BUDGET_DEFAULTS),
    (CallLimitsPlugin, CallLimitsConfig, LIMITS_DEFAULTS),
    (PolicyPlugin, PolicyConfig, POLICY_DEFAULTS),
]


def _plain(value):
    """A defaults record as ``model_dump`` shows a model (records as dicts, tuples as lists)."""
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if type(value).__module__.endswith("._defaults"):
        names = [n for c in type(value).__mro__ for n in getattr(c, "__annotations__", {})]
        return {name: _plain(getattr(value, name)) for name in names}
    return value


@pytest.mark.parametrize(("plugin", "model", "defaults"), LAZY)
def test_the_plain_defaults_are_the_models_defaults(plugin, model, defaults) -> None:
    assert _plain(defaults) == model().model_dump()
    assert not set(model.model_fields) & set(FRAMEWORK_KEYS)  # checked only for a given table
    assert plugin.Config is model
    assert config_model(plugin) is model


@pytest.mark.parametrize(("plugin", "model", "defaults"), LAZY)
def test_a_plugin_built_without_a_config_reads_the_default_model(
    plugin, model, defaults, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    built = plugin()
    try:
        assert "config" not in vars(built)  # not built until read
        assert type(built.config) is model
        assert built.config == model()
        assert built.config is built.config  # built once
    finally:
        getattr(built, "close", lambda: None)()


@pytest.mark.parametrize(("plugin", "model", "defaults"), LAZY)
def test_a_plugin_given_a_config_keeps_it(plugin, model, defaults, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    given = model()
    built = plugin(given)
    try:
        assert built.config is given
    finally:
        getattr(built, "close", lambda: None)()


def test_no_config_model_of_a_lazy_built_in_is_built_on_the_default_path(tmp_path) -> None:
    code = textwrap.dedent(
        """
        import sys
        from toolhooks import Runtime
        rt = Runtime.from_config()
        rt.call({"name": "read", "params": {}}, execute=lambda p: "text")
        rt.close()
        print(sorted(m for m in sys.modules if m.startswith("toolhooks")))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    for plugin, _, _ in LAZY:
        assert f"{plugin.__module__.rsplit('.', 1)[0]}._config'" not in done.stdout
    assert "toolhooks.config._agents'" not in done.stdout
    assert "toolhooks.config._framework'" not in done.stdout
    assert "toolhooks.config._tables'" not in done.stdout  # [plugins], [approvals], [state]
    # Nor, made only when used, the label store's modules and the lock report's record.
    assert "toolhooks.stores._labels'" not in done.stdout
    assert "toolhooks.loading._lock_report'" not in done.stdout
    # Nor team approvals (their config models import pydantic) without [[approvals.policies]].
    assert "toolhooks.approvals._team'" not in done.stdout
    assert "toolhooks.approvals._team_wait'" not in done.stdout
    assert "toolhooks.config._team'" not in done.stdout


def test_the_core_tables_left_out_read_as_their_defaults() -> None:
    from toolhooks.config._agents import AgentsTable
    from toolhooks.config._settings import FrameworkSettings, load_config

    loaded = load_config({})
    assert loaded.agents == AgentsTable()
    assert loaded.agents is loaded.agents
    assert load_config({"agents": {"sender": "ci"}}).agents.sender == "ci"
    assert FrameworkSettings.model_fields.keys() == set(FRAMEWORK_KEYS)
    with pytest.raises(ConfigError, match=r"plugins\.x\.priority"):
        load_config({"plugins": {"x": {"priority": "high"}}})


def test_a_present_table_is_still_validated_with_key_file_and_line(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "toolhooks.toml"
    config.write_text("[plugins.event_log]\nchain = true\nmax_bytez = 3\n")
    with pytest.raises(ConfigError) as raised:
        Runtime(config=config)
    assert raised.value.line == 3
    assert raised.value.file == str(config)
    assert "max_bytez" in str(raised.value) and "did you mean 'max_bytes'" in str(raised.value)


def test_a_present_table_gives_the_plugin_its_values(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    rt = Runtime(config={"plugins": {"event_log": {"max_bytes": 1234}}})
    try:
        plugin = rt.get_plugin("event_log")
        assert isinstance(plugin.config, EventLogConfig)
        assert plugin.config.max_bytes == 1234
    finally:
        rt.close()


CORE_TABLES = [
    ("plugins", "PluginsTable", PLUGINS_DEFAULTS, {"on_unlocked": "raise"}),
    ("approvals", "ApprovalsTable", APPROVALS_DEFAULTS, {}),
    ("state", "StateTable", STATE_DEFAULTS, {}),
]


@pytest.mark.parametrize(("key", "model_name", "defaults", "given"), CORE_TABLES)
def test_the_core_tables_plain_defaults_are_the_models_defaults(
    key, model_name, defaults, given
) -> None:
    model = getattr(settings, model_name)
    assert set(type(defaults).__annotations__) == set(model.model_fields)
    shown = {name: getattr(defaults, name) for name in model.model_fields}
    shown = {name: list(v) if isinstance(v, tuple) else v for name, v in shown.items()}
    assert shown == model().model_dump()
    assert getattr(load_config({}), key) is defaults  # left out: no model built
    assert getattr(load_config({key: given}), key) == model()  # given: validated as before


def test_plugins_tables_of_plugins_alone_keep_the_plain_defaults() -> None:
    loaded = load_config({"plugins": {"event_log": {"max_bytes": 10}}})
    assert loaded.plugins is PLUGINS_DEFAULTS
    assert load_config({"plugins": {"disable": ["x"]}}).plugins.disable == ["x"]


def test_with_plugins_changes_a_copy_whether_the_table_was_given_or_not() -> None:
    left_out = load_config({})
    changed = left_out.with_plugins(disable=["event_log"])
    assert isinstance(changed.plugins, settings.PluginsTable)
    assert changed.plugins.disable == ["event_log"]
    assert left_out.plugins is PLUGINS_DEFAULTS
    given = load_config({"plugins": {"on_unlocked": "warn"}})
    both = given.with_plugins(on_load_error="skip")
    assert (both.plugins.on_unlocked, both.plugins.on_load_error) == ("warn", "skip")
    assert given.plugins.on_load_error == "raise"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[approvals]\nroute = "queue"\nwait_s = -1\n', 3, "approvals.wait_s"),
        ('[state]\nurl = "http://x"\n', 2, "unsupported scheme 'http'"),
        ("[plugins]\non_load_error = 'ignore'\n", 2, "plugins.on_load_error"),
        ("[state]\ntimeout = 3\n", 2, "unknown key 'timeout' in [state] (did you mean"),
    ],
)
def test_a_present_core_table_is_still_validated_with_key_file_and_line(
    tmp_path, text, line, message
) -> None:
    config = tmp_path / "toolhooks.toml"
    config.write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert raised.value.line == line
    assert raised.value.file == str(config)
    assert message in str(raised.value)


class _HandChecked:
    """A plugin whose table goes to a hand check first (``LazyConfig(check=...)``)."""

    name = "hand_checked"
    Config = LazyConfig[Any]("toolhooks.plugins.rules._config", "RulesSettings", check=lambda t: (
        ("checked by hand", dict(t)) if t.get("unmatched") == "deny" else None
    ))  # fmt: skip

    def __init__(self, config: object = None) -> None:
        self.config = config


def test_a_hand_check_stands_in_for_the_model_of_a_given_table() -> None:
    given = load_config({"plugins": {"hand_checked": {"unmatched": "deny"}}})
    assert build(_HandChecked, "hand_checked", given).config == (
        "checked by hand",
        {"unmatched": "deny"},
    )
    passed_on = load_config({"plugins": {"hand_checked": {"unmatched": "ask"}}})
    assert type(build(_HandChecked, "hand_checked", passed_on).config).__name__ == "RulesSettings"
    mistaken = load_config({"plugins": {"hand_checked": {"unmatched": "maybe"}}})
    with pytest.raises(ConfigError, match="unmatched"):
        build(_HandChecked, "hand_checked", mistaken)
    assert build(_HandChecked, "hand_checked", load_config({})).config is None  # no table
