"""A plugin's own Config may not use a framework key's name (issue #10 item 24)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field
from toolhooks import PluginLoadError, PluginValidationError, Runtime, hookimpl


def _plugin_with_field(field: str, alias: str | None = None) -> type:
    namespace: dict[str, object] = {"__annotations__": {field: "float"}}
    namespace[field] = Field(default=1.0, alias=alias) if alias else 1.0
    config = type("Config", (BaseModel,), namespace)

    class Slow:
        Config = config

        def __init__(self, config: BaseModel) -> None:
            self.config = config

        @hookimpl
        def before_tool_call(self) -> None:
            return None

    return Slow


@pytest.mark.parametrize("key", ["timeout_s", "priority", "mode", "on_error", "enabled", "tools"])
def test_a_config_field_named_like_a_framework_key_is_refused_at_registration(key: str) -> None:
    rt = Runtime(load_entrypoints=False, config={})
    with pytest.raises(PluginValidationError) as raised:
        rt.register(_plugin_with_field(key), name="slow")
    assert str(raised.value) == (
        f"plugin 'slow': its Config field '{key}' is named like the framework key '{key}', "
        "which [plugins.slow] gives to toolhooks itself (framework keys: priority, mode, "
        "on_error, timeout_s, enabled, tools); rename the field"
    )
    assert rt.plugins() == []
    rt.close()


def test_an_alias_counts_too_and_other_names_are_fine() -> None:
    rt = Runtime(load_entrypoints=False, config={"plugins": {"slow": {"wait_s": 2.0}}})
    with pytest.raises(
        PluginValidationError,
        match="Config field 'wait' is named like the framework key 'timeout_s'",
    ):
        rt.register(_plugin_with_field("wait", alias="timeout_s"), name="slow")
    name = rt.register(_plugin_with_field("wait_s"), name="slow")
    assert rt.get_plugin(name).config.wait_s == 2.0
    rt.close()


def test_an_entry_point_plugin_with_such_a_field_fails_to_load_naming_both(install_dist) -> None:
    install_dist(
        "clashing-plugin",
        {
            "clashing": """
                from pydantic import BaseModel
                from toolhooks import hookimpl

                class Clash:
                    class Config(BaseModel):
                        mode: str = "fast"

                    def __init__(self, config):
                        self.config = config

                    @hookimpl
                    def before_tool_call(self):
                        return None
            """
        },
        {"clash": "clashing:Clash"},
    )
    with pytest.raises(PluginLoadError) as raised:
        Runtime(config={"plugins": {"only": ["clash"]}})
    message = str(raised.value)
    assert (
        "plugin entry point 'clash = clashing:Clash' from distribution clashing-plugin 1.0"
        in message
    )
    assert "its Config field 'mode' is named like the framework key 'mode'" in message
