"""`toolhooks plugins lock [--check]`, and how `plugins` and `doctor` show the lock (issue #24)."""

from __future__ import annotations

import pytest
from toolhooks.loading import _files

PLUGIN = """
from toolhooks import hookimpl

class Plugin:
    @hookimpl
    def before_tool_call(self, call):
        return None
"""


@pytest.fixture(autouse=True)
def _fresh_hashes():
    """The commands run in this process: hashes kept from an earlier command must not hide an
    edit (a real command is a new process)."""
    _files.forget()
    yield
    _files.forget()


def test_lock_then_check_then_a_new_plugin_fails_the_check(cli, install_dist):
    install_dist("first-plugin", {"first_mod": PLUGIN}, {"first": "first_mod:Plugin"})
    config = cli.config("[plugins]\n")
    written = cli("plugins", "lock")
    assert written.code == 0, written.err
    lock = config.parent / "toolhooks.lock"
    assert written.out.startswith(f"wrote {lock}: ")
    assert any(
        line.split()[:3] == ["first", "first-plugin", "1.0"] for line in written.out.splitlines()
    )
    text = lock.read_text()
    assert (
        'entry_point = "first_mod:Plugin"' in text
        and 'entry_point = "toolhooks.plugins.policy' in text
    )

    again = cli("plugins", "lock")
    assert again.code == 0 and again.out.startswith(f"{lock} is up to date: ")
    assert lock.read_text() == text
    checked = cli("plugins", "lock", "--check")
    assert (checked.code, checked.err) == (0, "")
    assert checked.out.startswith(f"{lock} matches the installed plugins: ")

    install_dist("second-plugin", {"second_mod": PLUGIN}, {"second": "second_mod:Plugin"})
    _files.forget()
    failed = cli("plugins", "lock", "--check")
    assert failed.code == 1
    assert f"{lock} does not match the installed plugins:" in failed.out
    assert (
        "- plugin 'second' ('second = second_mod:Plugin' from second-plugin 1.0) is not in the lock"
        in failed.out
    )
    assert "toolhooks plugins lock" in failed.out.splitlines()[-1]
    report = cli("plugins", "lock", "--check", "--json")
    assert report.code == 1 and report.json()["ok"] is False
    assert [line for line in report.json()["differences"] if "'second'" in line]
    assert lock.read_text() == text  # --check writes nothing


def test_check_names_a_changed_file_and_a_missing_lock(cli, install_dist):
    site = install_dist("first-plugin", {"first_mod": PLUGIN}, {"first": "first_mod:Plugin"})
    cli.config("[plugins]\n")
    missing = cli("plugins", "lock", "--check")
    assert missing.code == 1 and "toolhooks.lock does not exist" in missing.out
    assert cli("plugins", "lock").code == 0
    (site / "first_mod.py").write_text(PLUGIN + "# edited\n")
    _files.forget()
    changed = cli("plugins", "lock", "--check")
    assert changed.code == 1
    assert "plugin 'first' differs from the lock: its files changed since the lock" in changed.out


def test_lock_needs_a_config_file(cli):
    result = cli("plugins", "lock")
    assert result.code == 2
    assert "no config file: the lock goes next to it" in result.err


def test_a_corrupt_lock_is_one_line_naming_file_and_line(cli):
    cli.config("[plugins]\n")
    lock = cli.cwd / "toolhooks.lock"
    lock.write_text("lock_version = 1\n[plugins.first\n")
    for args in (("plugins",), ("plugins", "lock", "--check"), ("explain",)):
        result = cli(*args)
        assert result.code == 1, args
        assert result.err.startswith(f"toolhooks: error: {lock}:2: invalid TOML"), result.err
        assert "Traceback" not in result.err and len(result.err.splitlines()) == 1
    doctor = cli("doctor", "--json")
    assert doctor.code == 1
    row = next(c for c in doctor.json()["checks"] if c["check"] == "plugin lock")
    assert row["status"] == "error" and f"{lock}:2: invalid TOML" in row["detail"]
    refused = next(c for c in doctor.json()["checks"] if c["check"] == "plugin policy")
    assert "not imported" in refused["detail"]
    assert cli("plugins", "lock").code == 0  # writing it again is the fix
    assert cli("plugins", "lock", "--check").code == 0


def test_plugins_marks_locked_and_unlocked(cli, install_dist):
    site = install_dist("first-plugin", {"first_mod": PLUGIN}, {"first": "first_mod:Plugin"})
    cli.config("[plugins]\n")
    plain = cli("plugins", "--json").json()
    assert plain["lock"] is None and {row["locked"] for row in plain["plugins"]} == {None}
    assert "LOCK" not in cli("plugins").out
    cli("plugins", "lock")
    install_dist("second-plugin", {"second_mod": PLUGIN}, {"second": "second_mod:Plugin"})
    refused = cli("plugins")
    assert (
        refused.code == 1 and "plugin 'second'" in refused.err and "not in the lock" in refused.err
    )
    listed = cli("plugins", "--all", "--json")
    assert listed.code == 0, listed.err
    rows = {row["name"]: row for row in listed.json()["plugins"]}
    assert rows["first"]["locked"] is True and rows["policy"]["locked"] is True
    assert rows["second"]["locked"] is False and rows["second"]["enabled"] is False
    assert rows["second"]["reason"] == "not in the lock (toolhooks.lock)"
    assert listed.json()["lock"] == str(cli.cwd / "toolhooks.lock")
    table = cli("plugins", "--all")
    header = next(line for line in table.out.splitlines() if line.startswith("NAME"))
    assert "LOCK" in header
    second = next(line for line in table.out.splitlines() if line.startswith("second "))
    assert "unlocked" in second and "not in the lock" in second
    # In a process of its own, as a user runs it (its logger has no handler of pytest's). It
    # writes its own lock: this process may see toolhooks through the checkout's .egg-info.
    env = {"PYTHONPATH": str(site)}
    cli.config('[plugins]\ndisable = ["second"]\n')
    assert cli.script("plugins", "lock", env=env).code == 0
    cli.config('[plugins]\non_unlocked = "warn"\n')
    warned = cli.script("plugins", env=env)
    assert warned.code == 0, warned.err
    assert "not loaded, not in the lock or changed since: second (--all" in warned.out
    assert warned.err == ""  # listed under the table, not logged a second time


def test_doctor_shows_the_lock_state(cli, install_dist):
    install_dist("first-plugin", {"first_mod": PLUGIN}, {"first": "first_mod:Plugin"})
    cli.config("[plugins]\n")
    none = next(c for c in cli("doctor", "--json").json()["checks"] if c["check"] == "plugin lock")
    assert none["status"] == "ok" and none["detail"].startswith("no plugin lock")
    cli("plugins", "lock")
    _files.forget()
    ok = next(c for c in cli("doctor", "--json").json()["checks"] if c["check"] == "plugin lock")
    assert ok["status"] == "ok" and "toolhooks.lock matches" in ok["detail"]
    install_dist("second-plugin", {"second_mod": PLUGIN}, {"second": "second_mod:Plugin"})
    _files.forget()
    doctor = cli("doctor", "--json")
    assert doctor.code == 1
    checks = {c["check"]: c for c in doctor.json()["checks"]}
    assert checks["plugin lock"]["status"] == "error"
    assert "plugin 'second'" in checks["plugin lock"]["detail"]
    assert checks["plugin second"]["status"] == "error"
    assert checks["plugin second"]["detail"].startswith("refused, not imported: not in the lock")
    assert checks["plugin first"]["status"] == "ok"


DEEP = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize("command", [("plugins", "lock", "--check"), ("plugins",), ("doctor",)])
def test_a_lock_nested_3000_deep_is_a_clear_error_not_a_traceback(cli, command):
    """Issue #32 item 14: tomllib recurses into nested arrays; the stack ran out mid-command."""
    config = cli.config('[plugins]\nlock = "deep.lock"\n')
    (config.parent / "deep.lock").write_text(f"lock_version = 1\nx = {DEEP}\n")
    result = cli(*command)
    assert result.code == 1, result.out + result.err
    said = result.out + result.err
    assert "Traceback" not in said and "RecursionError" not in said
    assert "deep.lock" in said and "nested too deeply to read" in said


def test_a_case_file_nested_3000_deep_is_a_clear_error_not_a_traceback(cli):
    cases = cli.cwd / "deep.cases.toml"
    cases.write_text(f'[[case]]\nname = "deep"\ncall = {{name = "t", params = {{x = {DEEP}}}}}\n')
    result = cli("test", str(cases))
    assert result.code == 1, result.out + result.err
    assert "Traceback" not in result.err and "RecursionError" not in result.err
    assert (
        result.err.strip()
        == f"toolhooks: error: {cases}: not valid TOML: nested too deeply to read"
    )


def test_a_module_shadowing_a_locked_one_is_named_by_lock_and_check(
    cli, install_dist, tmp_path, monkeypatch
):
    """Issue #32 item 7: the lock hashed the installed file, the import found another."""
    site = install_dist("first-plugin", {"first_mod": PLUGIN}, {"first": "first_mod:Plugin"})
    info = site / "first_plugin-1.0.dist-info"
    listed = ["first_mod.py", *(f"{info.name}/{f}" for f in ("METADATA", "entry_points.txt"))]
    (info / "RECORD").write_text("".join(f"{name},,\n" for name in listed))
    cli.config("[plugins]\n")
    assert cli("plugins", "lock").code == 0
    earlier = tmp_path / "earlier"
    (earlier / "first_mod").mkdir(parents=True)
    (earlier / "first_mod" / "__init__.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(earlier))
    _files.forget()
    checked = cli("plugins", "lock", "--check")
    shadow = earlier / "first_mod" / "__init__.py"
    assert checked.code == 1, checked.out + checked.err
    assert f"resolves to {shadow}, not the locked {site / 'first_mod.py'}" in checked.out
    _files.forget()
    relocked = cli("plugins", "lock")
    assert relocked.code == 0
    assert "plugin 'first' will be refused until this is removed" in relocked.err
    assert f"resolves to {shadow}" in relocked.err
