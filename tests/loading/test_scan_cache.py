"""The entry-point scan kept between processes: used while the environment is the same, never
once an install, an uninstall or an edit changed it, and a miss whenever it cannot be trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from toolhooks import Runtime
from toolhooks.loading import _scan_cache
from toolhooks.loading._entry_points import find_entry_points

PLUGIN = """
from toolhooks import hookimpl

class Plugin:
    @hookimpl
    def before_tool_call(self, call):
        return None
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(_scan_cache.CACHE_ENV, str(folder))
    # The test's site folder is new: store it anyway (the 2 s rule has its own test).
    monkeypatch.setattr(_scan_cache, "SETTLE_NS", 0)
    return folder


def names() -> set[str]:
    candidates, _ = find_entry_points()
    return {c.name for c in candidates}


def kept_file(folder: Path) -> Path:
    (found,) = folder.glob("entry-points-*.json")
    return found


def test_a_kept_scan_is_used_while_nothing_changed(cache, install_dist):
    install_dist("kept-plugin", {"kept_mod": PLUGIN}, {"kept": "kept_mod:Plugin"})
    assert "kept" in names()
    kept = json.loads(kept_file(cache).read_text())
    row = next(r for r in kept["rows"] if r["name"] == "kept")
    row["version"] = "from-the-cache"
    kept_file(cache).write_text(json.dumps(kept))
    candidates, _ = find_entry_points()
    assert next(c for c in candidates if c.name == "kept").version == "from-the-cache"
    # fresh=True (a plugin lock, toolhooks doctor) reads the metadata whatever is kept
    candidates, _ = find_entry_points(fresh=True)
    assert next(c for c in candidates if c.name == "kept").version == "1.0"


def test_an_install_an_uninstall_and_an_edit_each_miss(cache, install_dist):
    site = install_dist("first-plugin", {"first_mod": PLUGIN}, {"first": "first_mod:Plugin"})
    assert "first" in names()
    install_dist("second-plugin", {"second_mod": PLUGIN}, {"second": "second_mod:Plugin"})
    assert {"first", "second"} <= names()
    info = site / "second_plugin-1.0.dist-info"
    listed = info / "entry_points.txt"
    # an edit in place, in another clock tick than the kept one
    listed.write_text("[toolhooks]\nrenamed = second_mod:Plugin\n")
    stamp = listed.stat().st_mtime_ns + 5_000_000_000
    os.utime(listed, ns=(stamp, stamp))
    found = names()
    assert "renamed" in found and "second" not in found
    for path in info.iterdir():
        path.unlink()
    info.rmdir()
    assert "renamed" not in names() and "first" in names()


def test_a_folder_changed_within_two_seconds_is_not_kept(tmp_path, monkeypatch, install_dist):
    monkeypatch.setenv(_scan_cache.CACHE_ENV, str(tmp_path / "cache"))
    install_dist("new-plugin", {"new_mod": PLUGIN}, {"new": "new_mod:Plugin"})
    assert "new" in names()
    assert not list((tmp_path / "cache").glob("entry-points-*.json"))


@pytest.mark.parametrize(
    "text",
    ["not json", "[]", '{"group": "toolhooks", "key": null, "rows": []}', "{}"],
)
def test_a_broken_or_foreign_file_is_a_miss_and_is_replaced(cache, install_dist, text):
    install_dist("odd-plugin", {"odd_mod": PLUGIN}, {"odd": "odd_mod:Plugin"})
    assert "odd" in names()
    kept_file(cache).write_text(text)
    assert "odd" in names()
    assert json.loads(kept_file(cache).read_text())["rows"]


def test_rows_of_another_shape_under_the_right_key_are_a_miss(cache, install_dist):
    install_dist("shape-plugin", {"shape_mod": PLUGIN}, {"shape": "shape_mod:Plugin"})
    assert "shape" in names()
    kept = json.loads(kept_file(cache).read_text())
    kept["rows"] = [{"name": "ghost"}]
    kept_file(cache).write_text(json.dumps(kept))
    assert "shape" in names() and "ghost" not in names()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_folder_others_may_write_is_not_read(cache, install_dist):
    install_dist("perm-plugin", {"perm_mod": PLUGIN}, {"perm": "perm_mod:Plugin"})
    assert "perm" in names()
    kept = json.loads(kept_file(cache).read_text())
    kept["rows"] = [{**kept["rows"][0], "name": "planted"}]
    kept_file(cache).write_text(json.dumps(kept))
    cache.chmod(0o777)
    try:
        assert "planted" not in names()
    finally:
        cache.chmod(0o700)


def test_an_empty_setting_turns_the_cache_off(tmp_path, monkeypatch, install_dist):
    monkeypatch.setenv(_scan_cache.CACHE_ENV, "")
    monkeypatch.setattr(_scan_cache, "SETTLE_NS", 0)
    install_dist("off-plugin", {"off_mod": PLUGIN}, {"off": "off_mod:Plugin"})
    assert _scan_cache.cache_dir() is None
    assert "off" in names()


def test_a_third_partys_range_is_checked_from_the_kept_scan(cache, install_dist):
    install_dist("old-plugin", {"old_mod": PLUGIN}, {"old": "old_mod:Plugin"})
    names()
    kept = json.loads(kept_file(cache).read_text())
    row = next(r for r in kept["rows"] if r["name"] == "old")
    row["requires"] = ["toolhooks>=5"]
    kept_file(cache).write_text(json.dumps(kept))
    rt = Runtime(config={"plugins": {"on_load_error": "skip"}})
    (info,) = [p for p in rt.plugins(include_disabled=True) if p.name == "old"]
    assert not info.enabled and "toolhooks>=5" in (info.reason or "")
    rt.close()


def test_a_second_process_loads_the_same_plugins_from_the_kept_scan(tmp_path):
    code = textwrap.dedent(
        """
        import json
        from toolhooks import Runtime
        rt = Runtime(config={})
        print(json.dumps(sorted((p.name, p.version, p.source) for p in rt.plugins())))
        rt.close()
        """
    )
    env = {**os.environ, _scan_cache.CACHE_ENV: str(tmp_path / "cache")}
    env.pop("TOOLHOOKS_CONFIG", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert runs[0].stdout == runs[1].stdout and json.loads(runs[0].stdout)


def test_an_import_hook_that_lists_distributions_turns_the_cache_off(
    cache, install_dist, monkeypatch
):
    install_dist("hook-plugin", {"hook_mod": PLUGIN}, {"hooked": "hook_mod:Plugin"})

    class Lister:
        @staticmethod
        def find_spec(*_args, **_kwargs):
            return None

        @staticmethod
        def find_distributions(*_args, **_kwargs):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Lister()])
    assert "hooked" in names()
    assert not list(cache.glob("entry-points-*.json"))
