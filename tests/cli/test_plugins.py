"""`toolhooks plugins` and the command line's shared behaviour (exit codes, --config)."""

from __future__ import annotations

BUILTINS = {"policy": 10_000, "loop_detection": 9_000, "event_log": 0, "result_budget": -10_000}

REWRITER = """
from toolhooks import hookimpl

class Upper:
    priority = 50

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call):
        return {"params": {"command": call.params["command"].upper()}}
"""


def test_lists_builtins_and_the_example_in_priority_order(cli):
    result = cli("plugins")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    header = next(line for line in lines if line.startswith("NAME"))
    for column in (
        "VERSION",
        "DISTRIBUTION",
        "SOURCE",
        "PRIORITY",
        "HOOKS",
        "TOOLS",
        "MODE",
        "ENABLED",
    ):
        assert column in header
    names = [line.split()[0] for line in lines[lines.index(header) + 2 :] if line.strip()]
    expected = ["policy", "loop_detection", "workspace_guard", "event_log", "result_budget"]
    assert [name for name in names if name in expected] == expected
    guard = next(line for line in lines if line.startswith("workspace_guard"))
    assert "toolhooks-example" in guard and "entry point" in guard and "exec,read" in guard


def test_json_has_every_field(cli):
    result = cli("plugins", "--json")
    assert result.code == 0
    plugins = {row["name"]: row for row in result.json()["plugins"]}
    for name, priority in BUILTINS.items():
        row = plugins[name]
        assert row["source"] == "built-in"
        assert row["distribution"] == "toolhooks"
        assert row["priority"] == priority
        assert row["enabled"] is True and row["mode"] == "enforce"
        assert row["entry_point"].startswith(f"{name} = toolhooks.plugins.")
    assert plugins["policy"]["hooks"] == ["before_tool_call", "tool_visible"]
    assert plugins["workspace_guard"]["source"] == "entry point"
    assert plugins["workspace_guard"]["tools"] == ["exec", "read", "write", "edit", "apply_patch"]


def test_config_settings_show_up(cli):
    cli.config("""
        [plugins.workspace_guard]
        priority = 42
        mode = "audit"
    """)
    plugins = {row["name"]: row for row in cli("plugins", "--json").json()["plugins"]}
    assert plugins["workspace_guard"]["priority"] == 42
    assert plugins["workspace_guard"]["mode"] == "audit"


def test_all_includes_disabled_with_why(cli):
    cli.config("""
        [plugins]
        disable = ["loop_detection"]
    """)
    plain = {row["name"] for row in cli("plugins", "--json").json()["plugins"]}
    assert "loop_detection" not in plain
    result = cli("plugins", "--all")
    assert result.code == 0
    row = next(line for line in result.out.splitlines() if line.startswith("loop_detection"))
    assert " no " in row and "listed in [plugins] disable" in row
    rows = {row["name"]: row for row in cli("plugins", "--all", "--json").json()["plugins"]}
    assert rows["loop_detection"]["enabled"] is False
    assert rows["loop_detection"]["reason"] == "listed in [plugins] disable"


def test_broken_entry_point_is_an_error_unless_all(cli):
    cli.install(
        "broken-plugin",
        {"broken_mod": "raise ImportError('missing dependency xyz')\n"},
        {"broken": "broken_mod:Plugin"},
    )
    result = cli("plugins")
    assert result.code == 1
    assert result.out == ""
    first = result.err.splitlines()[0]
    assert first.startswith("toolhooks: error: plugin entry point 'broken = broken_mod:Plugin'")
    assert "broken-plugin" in first and "missing dependency xyz" in first
    assert "toolhooks doctor" in result.err
    listed = cli("plugins", "--all", "--json")
    assert listed.code == 0
    row = next(r for r in listed.json()["plugins"] if r["name"] == "broken")
    assert row["enabled"] is False and "failed to load" in row["reason"]


def test_duplicate_name_is_listed_as_blocked(cli):
    cli.install(
        "impostor", {"impostor_mod": "class Plugin:\n    pass\n"}, {"policy": "impostor_mod:Plugin"}
    )
    rows = cli("plugins", "--all", "--json").json()["plugins"]
    policies = [r for r in rows if r["name"] == "policy"]
    assert sorted(r["distribution"] for r in policies) == ["impostor", "toolhooks"]
    blocked = [r for r in policies if not r["enabled"]]
    assert len(blocked) == 1 and "duplicate plugin name 'policy'" in blocked[0]["reason"]


def test_registered_plugin_shows_its_hooks(cli):
    cli.install("upper", {"upper_mod": REWRITER}, {"upper": "upper_mod:Upper"})
    rows = {r["name"]: r for r in cli("plugins", "--json").json()["plugins"]}
    assert rows["upper"]["priority"] == 50 and rows["upper"]["hooks"] == ["before_tool_call"]
    assert rows["upper"]["distribution"] == "upper"


def test_invalid_config_is_one_line_and_exit_1(cli):
    cli.config("""
        [plugins]
        disable = "loop_detection"
    """)
    result = cli("plugins")
    assert result.code == 1
    assert len(result.err.strip().splitlines()) == 1
    assert result.err.startswith("toolhooks: error: ") and "toolhooks.toml:3" in result.err


def test_bad_toml_exit_1(cli):
    cli.config("[plugins\n")
    result = cli("plugins")
    assert result.code == 1 and "invalid TOML" in result.err


def test_config_flag_before_or_after_the_command(cli, tmp_path):
    other = tmp_path / "elsewhere.toml"
    other.write_text('[plugins]\ndisable = ["event_log"]\n')
    for args in (
        ("--config", str(other), "plugins", "--json"),
        ("plugins", "--json", "--config", str(other)),
    ):
        result = cli(*args)
        assert result.code == 0, result.err
        assert result.json()["config"] == str(other)
        assert "event_log" not in {r["name"] for r in result.json()["plugins"]}
    missing = cli("--config", str(tmp_path / "nope.toml"), "plugins")
    assert missing.code == 1 and "nope.toml" in missing.err


def test_pyproject_table_is_found(cli):
    cli.config('[tool.toolhooks.plugins]\ndisable = ["event_log"]\n', name="pyproject.toml")
    result = cli("plugins", "--json")
    assert result.json()["config"].endswith("pyproject.toml")


def test_usage_errors_exit_2(cli):
    assert cli().code == 2
    assert cli("no-such-command").code == 2
    bad = cli("plugins", "--bogus")
    assert bad.code == 2 and "unrecognized arguments" in bad.err
    assert cli("--help").code == 0
    assert cli("--version").out.startswith("toolhooks ")


def test_python_dash_m(cli):
    result = cli.module("plugins", "--json")
    assert result.code == 0
    assert {r["name"] for r in result.json()["plugins"]} >= set(BUILTINS)


def test_every_command_has_help(cli):
    for command in ("demo", "plugins", "explain", "doctor", "logs", "replay", "approvals"):
        result = cli(command, "--help")
        assert result.code == 0, command
        assert "usage: toolhooks" in result.out


def test_listing_commands_write_nothing(cli):
    cli.config('[tools]\nprofile = "coding"\n')
    for command in (("plugins",), ("plugins", "--all"), ("explain", "--tool", "exec"), ("doctor",)):
        assert cli(*command).code == 0, command
    assert sorted(p.name for p in cli.cwd.iterdir()) == ["toolhooks.toml"]
