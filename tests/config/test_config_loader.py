"""Config files and entry-point loading: discovery, selection switches, and errors that point."""

from __future__ import annotations

import pytest
from toolhooks import ConfigError, PluginLoadError, Runtime
from toolhooks.config._settings import load_config

GOOD_PLUGIN = """
from pydantic import BaseModel, ConfigDict
from toolhooks import hookimpl

class Stamp:
    priority = 5

    class Config(BaseModel):
        model_config = ConfigDict(extra="forbid")
        label: str = "stamped"

    def __init__(self, config=None):
        self.config = config or self.Config()

    @hookimpl
    def before_tool_call(self, call):
        return {"params": {"label": self.config.label}}
"""

MODULE_PLUGIN = """
from toolhooks import hookimpl

@hookimpl
def before_tool_call(call):
    return {"block": True, "block_reason": "module plugin says no"}
"""

ONLY_BUILTINS = {"plugins": {"only": ["stamp", "modplug", "broken", "evil"]}}


def names(rt):
    return [p.name for p in rt.plugins()]


def test_class_entry_point_gets_its_validated_config(install_dist, tmp_path):
    install_dist("stamp-dist", {"stamp_plugin": GOOD_PLUGIN}, {"stamp": "stamp_plugin:Stamp"})
    rt = Runtime(
        config={**ONLY_BUILTINS, "plugins": {"only": ["stamp"], "stamp": {"label": "configured"}}}
    )
    assert names(rt) == ["stamp"]
    (info,) = rt.plugins()
    assert (info.source, info.distribution, info.version, info.priority) == (
        "entry point",
        "stamp-dist",
        "1.0",
        5,
    )
    assert rt.call({"name": "t"}, execute=dict).value == {"label": "configured"}


def test_module_entry_point_is_registered_as_is(install_dist):
    install_dist("mod-dist", {"modplug": MODULE_PLUGIN}, {"modplug": "modplug"})
    rt = Runtime(config={"plugins": {"only": ["modplug"]}})
    assert rt.call({"name": "t"}, execute=dict).reason == "module plugin says no"


def test_unknown_plugin_config_key_names_key_and_file(install_dist, tmp_path):
    install_dist("stamp-dist", {"stamp_plugin": GOOD_PLUGIN}, {"stamp": "stamp_plugin:Stamp"})
    config = tmp_path / "toolhooks.toml"
    config.write_text(
        '[plugins]\nonly = ["stamp"]\n\n[plugins.stamp]\nlabel = "x"\nlabl = "typo"\n'
    )
    with pytest.raises(ConfigError) as info:
        Runtime(config=config)
    message = str(info.value)
    assert "unknown key 'labl' in [plugins.stamp]" in message
    assert f"{config}:6" in message and info.value.key == "plugins.stamp.labl"


def test_disable_and_only_keep_plugins_from_being_imported(install_dist, tmp_path):
    marker = tmp_path / "imported"
    evil = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nfrom toolhooks import hookimpl\n@hookimpl\ndef before_tool_call(call):\n    return None\n"
    install_dist("evil-dist", {"evil": evil}, {"evil": "evil"})
    rt = Runtime(config={"plugins": {"only": ["policy"], "disable": []}}, load_entrypoints=True)
    assert not marker.exists() and "evil" not in names(rt)
    skipped = {p.name: p.reason for p in rt.plugins(include_disabled=True) if not p.enabled}
    assert skipped["evil"] == "not listed in [plugins] only"
    rt = Runtime(config={"plugins": {"only": ["evil"], "disable": ["evil"]}})
    assert not marker.exists()
    rt = Runtime(config={"plugins": {"only": ["evil"], "evil": {"enabled": False}}})
    assert not marker.exists()
    rt = Runtime(config={"plugins": {"only": ["evil"]}})
    assert marker.exists() and names(rt) == ["evil"]


def test_autoload_env_var_loads_builtins_only(install_dist, tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    install_dist(
        "evil-dist",
        {"evil": f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n"},
        {"evil": "evil"},
    )
    monkeypatch.setenv("TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    rt = Runtime(config={"plugins": {"only": ["evil", "policy"]}})
    assert not marker.exists()
    assert names(rt) == ["policy"]
    assert {p.name: p.reason for p in rt.plugins(include_disabled=True)}["evil"].startswith(
        "third-party autoload disabled"
    )


def test_import_failure_names_entry_point_and_distribution(install_dist):
    install_dist(
        "broken-dist",
        {"broken": "import no_such_module_xyz\n"},
        {"broken": "broken:Plugin"},
        version="2.3",
    )
    with pytest.raises(PluginLoadError) as info:
        Runtime(config={"plugins": {"only": ["broken"]}})
    assert "'broken = broken:Plugin'" in str(info.value)
    assert "distribution broken-dist 2.3" in str(info.value)
    assert "No module named 'no_such_module_xyz'" in str(info.value)
    assert (info.value.entry_point, info.value.distribution) == (
        "broken = broken:Plugin",
        "broken-dist",
    )


def test_import_failure_can_be_skipped_and_reported(install_dist):
    install_dist(
        "broken-dist", {"broken": "raise RuntimeError('bad import')\n"}, {"broken": "broken"}
    )
    rt = Runtime(config={"plugins": {"only": ["broken"], "on_load_error": "skip"}})
    assert names(rt) == []
    (row,) = [p for p in rt.plugins(include_disabled=True) if p.name == "broken"]
    assert not row.enabled and "bad import" in row.reason


def test_plugin_with_unknown_hook_fails_to_load(install_dist):
    install_dist(
        "typo-dist",
        {
            "typo": "def before_tool_cal(call):\n    pass\nfrom toolhooks import hookimpl\nx = hookimpl(before_tool_cal)\n"
        },
        {"typo": "typo"},
    )
    with pytest.raises(PluginLoadError, match="unknown hook 'before_tool_cal'"):
        Runtime(config={"plugins": {"only": ["typo"]}})


def test_config_discovery_order(tmp_path, monkeypatch):
    """$TOOLHOOKS_CONFIG first, then toolhooks.toml, then [tool.toolhooks] in pyproject.toml."""
    monkeypatch.chdir(tmp_path)
    from toolhooks.config._settings import discover

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.toolhooks.plugins]\ndisable = ["from-pyproject"]\n'
    )
    assert discover() == (tmp_path / "pyproject.toml", ("tool", "toolhooks"))
    (tmp_path / "toolhooks.toml").write_text('[plugins]\ndisable = ["from-toml"]\n')
    assert discover() == (tmp_path / "toolhooks.toml", ())
    env_file = tmp_path / "env.toml"
    env_file.write_text('[plugins]\ndisable = ["from-env"]\n')
    monkeypatch.setenv("TOOLHOOKS_CONFIG", str(env_file))
    assert discover() == (env_file, ())
    rt = Runtime.from_config(load_entrypoints=False)
    assert rt.config.plugins.disable == ["from-env"]
    assert rt.config.source == env_file
    rt.close()


def test_pyproject_errors_name_the_full_key(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.toolhooks.plugins]\nonly = "not-a-list"\n')
    with pytest.raises(ConfigError) as info:
        load_config(pyproject)
    assert "tool.toolhooks.plugins.only" in str(info.value) and f"{pyproject}:2" in str(info.value)


def test_toml_syntax_error_names_file_and_line(tmp_path):
    config = tmp_path / "toolhooks.toml"
    config.write_text('[plugins]\nonly = ["a"\n\n[tools]\n')
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert str(info.value).startswith(f"{config}:")
    assert "invalid TOML" in str(info.value) and info.value.line is not None


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"plugin": {}}, "unknown top-level key 'plugin'"),
        ({"plugins": {"onli": ["x"]}}, "unknown key 'onli' in [plugins]"),
        ({"plugins": {"on_load_error": "explode"}}, "plugins.on_load_error"),
        ({"plugins": {"policy": {"priority": "high"}}}, "plugins.policy.priority"),
        ({"plugins": {"policy": {"mode": "loud"}}}, "plugins.policy.mode"),
        ({"plugins": {"policy": {"timeout_s": -1}}}, "plugins.policy.timeout_s"),
        ({"approvals": {"route": "pager"}}, "approvals.route"),
        ({"tools": ["exec"]}, "[tools] must be a table"),
    ],
)
def test_bad_config_shapes(config, fragment):
    with pytest.raises(ConfigError, match=None) as info:
        Runtime(config=config, load_entrypoints=False)
    assert fragment in str(info.value)


def test_section_for_a_plugin_that_does_not_exist_is_an_error_at_first_use():
    rt = Runtime(config={"plugins": {"loop_detecton": {"window": 3}}}, load_entrypoints=False)
    with pytest.raises(
        ConfigError,
        match=r"\[plugins.loop_detecton\] names no installed or registered plugin "
        r"\(did you mean 'loop_detection'\?\)",
    ):
        rt.call({"name": "x"})


def test_missing_env_config_file_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLHOOKS_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(ConfigError, match="does not exist"):
        Runtime.from_config()


@pytest.mark.parametrize("shape", ["dangling link", "folder", "link to a folder"])
def test_a_toolhooks_toml_that_is_not_a_file_is_an_error_not_no_config(
    tmp_path, monkeypatch, shape
):
    """A config reached through a link whose target moved must not read as no config (which
    allows every call): found by the red team of 7 December (RELIABILITY.md)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    config = tmp_path / "toolhooks.toml"
    if shape == "dangling link":
        config.symlink_to("moved.toml")
    elif shape == "folder":
        config.mkdir()
    else:
        config.symlink_to("folder")
    with pytest.raises(ConfigError, match=r"toolhooks\.toml is .*refusing to run") as raised:
        Runtime.from_config()
    assert raised.value.file == str(config)
