"""`toolhooks doctor`: every check, its status and fix-it line, and the exit code."""

from __future__ import annotations

REWRITER = """
from toolhooks import hookimpl

class {name}:
    priority = {priority}

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call):
        return {{"params": {{"command": "{value}"}}}}
"""

UNKNOWN_HOOK = """
from toolhooks import hookimpl

class Typo:
    @hookimpl
    def before_tool_calls(self, call):
        return None
"""

NEAR_MISS = """
from toolhooks import hookimpl

class Unmarked:
    def on_events(self, event):
        pass

    @hookimpl
    def before_tool_call(self, call):
        return None
"""

WITH_CONFIG = """
from pydantic import BaseModel, ConfigDict
from toolhooks import hookimpl

class Configured:
    class Config(BaseModel):
        model_config = ConfigDict(extra="forbid")
        limit: int = 3

    def __init__(self, config=None):
        self.config = config

    @hookimpl
    def before_tool_call(self, call):
        return None
"""


def checks(result, name=None):
    rows = result.json()["checks"]
    return [row for row in rows if name is None or row["check"] == name]


def only(result, name):
    found = checks(result, name)
    assert len(found) == 1, found
    return found[0]


def test_clean_installation_passes(cli):
    cli.config('[tools]\nprofile = "coding"\n')
    result = cli("doctor")
    assert result.code == 0, result.out
    assert "all " in result.out and "checks passed" in result.out
    for label in (
        "config",
        "plugin policy",
        "plugin workspace_guard",
        "priority ties",
        "event log",
        "artifacts",
        "approvals",
    ):
        assert label in result.out
    data = cli("doctor", "--json").json()
    assert data["ok"] is True and data["errors"] == 0
    assert {row["status"] for row in data["checks"]} == {"ok"}
    assert only(cli("doctor", "--json"), "config")["detail"].endswith(
        "valid TOML, known keys ([tools])"
    )


def test_no_config_is_fine(cli):
    result = cli("doctor", "--json")
    assert result.code == 0
    assert "the defaults apply" in only(result, "config")["detail"]


def test_bad_toml_is_an_error_with_a_fix(cli):
    cli.config("[tools\nprofile = 1\n")
    result = cli("doctor")
    assert result.code == 1
    assert "ERROR" in result.out and "invalid TOML" in result.out
    assert "fix: edit" in result.out and "toolhooks.toml:1" in result.out
    assert "1 error" in result.out
    row = only(cli("doctor", "--json"), "config")
    assert row["status"] == "error" and row["fix"].startswith("edit ")


def test_unknown_key_is_an_error(cli):
    cli.config('[plugins]\nonly_these = ["policy"]\n')
    row = only(cli("doctor", "--json"), "config")
    assert row["status"] == "error" and "only_these" in row["detail"]


def test_table_for_a_plugin_that_is_not_installed(cli):
    cli.config("[plugins.nonexistent]\npriority = 1\n")
    result = cli("doctor", "--json")
    assert result.code == 1
    row = only(result, "[plugins.nonexistent]")
    assert row["status"] == "error" and "remove the [plugins.nonexistent] table" in row["fix"]


def test_plugin_that_fails_to_import(cli):
    cli.install(
        "broken-plugin",
        {"broken_mod": "import not_a_module_anywhere\n"},
        {"broken": "broken_mod:P"},
    )
    result = cli("doctor", "--json")
    assert result.code == 1
    row = only(result, "plugin broken")
    assert row["status"] == "error" and "not_a_module_anywhere" in row["detail"]
    assert "broken-plugin" in row["fix"]
    assert only(result, "plugin policy")["status"] == "ok"  # one failure does not stop the rest


def test_unknown_hook_name_is_an_error(cli):
    cli.install("typo-plugin", {"typo_mod": UNKNOWN_HOOK}, {"typo": "typo_mod:Typo"})
    result = cli("doctor", "--json")
    assert result.code == 1
    row = only(result, "plugin typo")
    assert row["status"] == "error" and "unknown hook 'before_tool_calls'" in row["detail"]
    assert "before_tool_call" in row["fix"]


def test_near_miss_method_is_a_warning(cli):
    cli.install("unmarked", {"unmarked_mod": NEAR_MISS}, {"unmarked": "unmarked_mod:Unmarked"})
    result = cli("doctor", "--json")
    assert result.code == 0
    rows = checks(result, "plugin unmarked")
    assert [r["status"] for r in rows] == ["ok", "warning"]
    assert "'on_events'" in rows[1]["detail"] and rows[1]["fix"] == "rename it to on_event"


def test_plugin_config_must_validate(cli):
    cli.install(
        "configured", {"configured_mod": WITH_CONFIG}, {"configured": "configured_mod:Configured"}
    )
    cli.config('[plugins.configured]\nlimit = "many"\n')
    result = cli("doctor", "--json")
    assert result.code == 1
    row = only(result, "plugin configured")
    assert row["status"] == "error" and "config does not validate" in row["detail"]
    assert "limit" in row["detail"] and "[plugins.configured]" in row["fix"]


def test_duplicate_plugin_name_is_an_error(cli):
    cli.install(
        "impostor", {"impostor_mod": "class P:\n    pass\n"}, {"event_log": "impostor_mod:P"}
    )
    result = cli("doctor", "--json")
    assert result.code == 1
    rows = [r for r in checks(result, "plugin event_log") if r["status"] == "error"]
    assert len(rows) == 1 and "duplicate plugin name 'event_log'" in rows[0]["detail"]
    assert "pip uninstall" in rows[0]["fix"]


def test_priority_tie_between_rewriters_is_a_warning(cli):
    cli.install(
        "upper",
        {"upper_mod": REWRITER.format(name="A", priority=50, value="a")},
        {"upper": "upper_mod:A"},
    )
    cli.install(
        "lower",
        {"lower_mod": REWRITER.format(name="B", priority=50, value="b")},
        {"lower": "lower_mod:B"},
    )
    result = cli("doctor", "--json")
    assert result.code == 0
    row = only(result, "priority ties")
    assert row["status"] == "warning"
    assert (
        "lower and upper both rewrite params" in row["detail"] or "upper and lower" in row["detail"]
    )
    assert "priority" in row["fix"]
    cli.config("[plugins.upper]\npriority = 60\n")
    assert only(cli("doctor", "--json"), "priority ties")["status"] == "ok"


def test_event_log_folder_must_be_writable(cli):
    (cli.cwd / "not-a-dir").write_text("a file")
    cli.config('[plugins.event_log]\npath = "not-a-dir/events.jsonl"\n')
    result = cli("doctor")
    assert result.code == 1
    assert "event log" in result.out and "is not a folder" in result.out
    row = only(cli("doctor", "--json"), "event log")
    assert "[plugins.event_log] path" in row["fix"]


def test_artifact_folder_checked(cli):
    (cli.cwd / "blocker").write_text("a file")
    cli.config('[plugins.result_budget]\nartifact_dir = "blocker/artifacts"\n')
    row = only(cli("doctor", "--json"), "artifacts")
    assert row["status"] == "error" and "artifact_dir" in row["fix"]
    cli.config("[plugins.result_budget]\nstore_artifacts = false\n")
    assert only(cli("doctor", "--json"), "artifacts")["status"] == "ok"


def test_approval_store_opens(cli):
    cli.config('[approvals]\nroute = "queue"\ndb = "state/approvals.db"\n')
    row = only(cli("doctor", "--json"), "approvals")
    assert row["status"] == "ok" and "opens (0 pending, created empty)" in row["detail"]
    (cli.cwd / "nodir").write_text("a file")
    cli.config('[approvals]\nroute = "queue"\ndb = "nodir/approvals.db"\n')
    result = cli("doctor", "--json")
    assert result.code == 1
    row = only(result, "approvals")
    assert row["status"] == "error" and "[approvals] db" in row["fix"]


def test_doctor_reads_config_flag(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("nonsense = 1\n")
    result = cli("doctor", "--config", str(bad), "--json")
    assert (
        result.code == 1 and "unknown top-level key 'nonsense'" in only(result, "config")["detail"]
    )
