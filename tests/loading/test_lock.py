"""The plugin lock in the runtime (issue #24): only plugins the lock lists, unchanged, load."""

from __future__ import annotations

import logging

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
from pathlib import Path

import pytest
from toolhooks import ConfigError, Runtime, hookimpl
from toolhooks.config._settings import load_config
from toolhooks.loading import _files
from toolhooks.loading._lock import current_entries
from toolhooks.loading._lock_file import render

from .conftest import PLUGIN


def write_lock(config: Path) -> Path:
    """What ``toolhooks plugins lock`` writes, for the config at ``config``."""
    loaded = load_config(config)
    target = config.parent / "toolhooks.lock"
    target.write_text(render(current_entries(loaded).values(), config.name), encoding="utf-8")
    _files.forget()  # a runtime in this process must look at the files again, as a new one would
    return target


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)  # the event log and artifacts land here
    config = folder / "toolhooks.toml"
    config.write_text("[plugins]\n", encoding="utf-8")
    return config


def loaded_names(runtime: Runtime) -> list[str]:
    return sorted(info.name for info in runtime.plugins())


def test_locked_then_a_second_plugin_then_an_edit_then_relocked(site, project):
    site.install("first-plugin", {"first_mod.py": PLUGIN}, {"first": "first_mod:Plugin"})
    lock = write_lock(project)
    assert tomllib.loads(lock.read_text())["plugins"]["first"]["distribution"] == "first-plugin"
    rt = Runtime(config=project)
    assert "first" in loaded_names(rt)
    assert {i.name: i.locked for i in rt.plugins()}["first"] is True
    rt.close()

    marker = project.parent / "second-imported"
    second = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n{PLUGIN}"
    site.install("second-plugin", {"second_mod.py": second}, {"second": "second_mod:Plugin"})
    with pytest.raises(ConfigError) as refused:
        Runtime(config=project)
    message = str(refused.value)
    assert "plugin 'second'" in message and "not in the lock" in message
    assert "second-plugin 1.0" in message and refused.value.file == str(lock)
    assert not marker.exists()  # refused before any of its code ran

    write_lock(project)
    (site.root / "first_mod.py").write_text(PLUGIN + "\n# edited after the lock\n")
    with pytest.raises(ConfigError) as changed:
        Runtime(config=project)
    message = str(changed.value)
    assert "plugin 'first'" in message and "its files changed since the lock" in message
    assert changed.value.line == lock.read_text().splitlines().index("[plugins.first]") + 1

    write_lock(project)
    rt = Runtime(config=project)
    assert {"first", "second"} <= set(loaded_names(rt)) and marker.exists()
    rt.close()


def test_a_new_version_and_another_entry_point_are_named(site, project):
    info = site.install("first-plugin", {"first_mod.py": PLUGIN}, {"first": "first_mod:Plugin"})
    write_lock(project)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: first-plugin\nVersion: 1.1\n")
    (info / "entry_points.txt").write_text("[toolhooks]\nfirst = first_mod:Other\n")
    with pytest.raises(ConfigError) as refused:
        Runtime(config=project)
    message = str(refused.value)
    assert "entry point 'first_mod:Plugin' in the lock, 'first_mod:Other' installed" in message
    assert "version 1.0 in the lock, 1.1 installed" in message


def test_on_unlocked_warn_skips_with_an_event_and_a_log_line(site, project, caplog):
    site.install("first-plugin", {"first_mod.py": PLUGIN}, {"first": "first_mod:Plugin"})
    write_lock(project)
    site.install("second-plugin", {"second_mod.py": PLUGIN}, {"second": "second_mod:Plugin"})
    project.write_text('[plugins]\non_unlocked = "warn"\n')
    seen = []

    class Sink:
        name = "sink"

        @hookimpl
        def on_event(self, event):
            seen.append(event)

    with caplog.at_level(logging.WARNING, logger="toolhooks"):
        rt = Runtime(config=project, plugins=[Sink()])
    assert "second" not in loaded_names(rt) and "first" in loaded_names(rt)
    (row,) = [i for i in rt.plugins(include_disabled=True) if i.name == "second"]
    assert (row.enabled, row.locked) == (False, False)
    assert row.reason == "not in the lock (toolhooks.lock)"
    (event,) = [e for e in seen if e.event == "plugin.unlocked"]
    assert (event.plugin, event.call_id, event.trace_id) == ("second", "", "")
    assert event.data["distribution"] == "second-plugin" and event.data["lock"].endswith(".lock")
    assert "plugin 'second' skipped: not in the lock" in caplog.text
    assert rt.call({"name": "t"}, execute=dict).status == "ok"
    rt.close()


def test_no_lock_no_check_and_a_named_lock_must_exist(site, project):
    site.install("first-plugin", {"first_mod.py": PLUGIN}, {"first": "first_mod:Plugin"})
    rt = Runtime(config=project)
    assert {i.locked for i in rt.plugins()} == {None}
    rt.close()
    project.write_text('[plugins]\nlock = "locks/plugins.lock"\n')
    with pytest.raises(ConfigError) as missing:
        Runtime(config=project)
    assert "locks/plugins.lock, which does not exist" in str(missing.value)
    assert (missing.value.file, missing.value.line) == (str(project), 2)
    (project.parent / "locks").mkdir()
    written = write_lock(project)
    written.rename(project.parent / "locks" / "plugins.lock")
    rt = Runtime(config=project)  # relative to the config's folder, not the working directory
    assert {i.name: i.locked for i in rt.plugins()}["first"] is True
    rt.close()


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("lock_version = 1\n[plugins.first\n", 2, "invalid TOML"),
        ("lock_version = 1\n\n[plugins.first]\nentry_point = 'm:P'\nsha = 'x'\n", 3,
         "plugins.first.sha256: Field required"),
        (f"lock_version = 1\n\n[plugins.first]\nentry_point = 'm:P'\nsha256 = '{'0' * 64}'\n"
         "files = 1\nsha = 'x'\n", 7,
         "unknown key 'sha' in [plugins.first] (did you mean 'sha256'?)"),
        ("lock_version = 1\n\n[plugins.first]\nentry_point = 'm:P'\nsha256 = 'abc'\nfiles = 1\n",
         5, "plugins.first.sha256: String should match pattern"),
        ("lock_version = 2\n", 1, "lock_version: Input should be 1"),
    ],
)  # fmt: skip
def test_a_broken_lock_names_its_file_and_line(project, text, line, says):
    lock = project.parent / "toolhooks.lock"
    lock.write_text(text)
    with pytest.raises(ConfigError) as broken:
        Runtime(config=project)
    assert (broken.value.file, broken.value.line) == (str(lock), line)
    assert says in str(broken.value)


def test_the_lock_is_deterministic_and_covers_what_would_load(site, project):
    site.install("first-plugin", {"first_mod.py": PLUGIN}, {"first": "first_mod:Plugin"})
    site.install("off-plugin", {"off_mod.py": PLUGIN}, {"off": "off_mod:Plugin"})
    project.write_text('[plugins]\ndisable = ["off"]\n')
    first = write_lock(project).read_text()
    assert write_lock(project).read_text() == first
    table = tomllib.loads(first)["plugins"]
    assert "first" in table and "policy" in table  # built-ins too
    assert "off" not in table and "otel" not in table  # switched off, opt-in: would not load
    assert list(table) == sorted(table)


def test_an_addons_table_is_kept_by_plugins_lock_and_read_back(site, project, capsys):
    from toolhooks.cli import main
    from toolhooks.kit import read_lock_table, write_lock_table

    site.install("first-plugin", {"first_mod.py": PLUGIN}, {"first": "first_mod:Plugin"})
    config = load_config(project)
    lock = write_lock_table(config, "mcp", '[mcp.servers.a]\ndigest = "1"\n')  # no lock yet
    assert "first" in tomllib.loads(lock.read_text())["plugins"]  # else it would refuse them
    assert read_lock_table(config, "mcp") == {"servers": {"a": {"digest": "1"}}}
    assert main(["plugins", "lock", "--config", str(project)]) == 0
    assert read_lock_table(config, "mcp") == {"servers": {"a": {"digest": "1"}}}
    write_lock_table(config, "mcp", '[mcp.servers.b]\ndigest = "2"\n')  # replaced, not added
    assert read_lock_table(config, "mcp") == {"servers": {"b": {"digest": "2"}}}
    _files.forget()
    rt = Runtime(config=project)  # the plugins' part still holds
    assert {i.name: i.locked for i in rt.plugins()}["first"] is True
    rt.close()
    with pytest.raises(ValueError, match="must be under"):
        write_lock_table(config, "mcp", "[other]\n")
    lock.write_text(lock.read_text().replace("lock_version = 1", 'lock_version = 1\nstray = "x"'))
    with pytest.raises(ConfigError, match="a lock holds lock_version and tables"):
        read_lock_table(config, "mcp")
    capsys.readouterr()
