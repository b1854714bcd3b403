"""The lock covers what is imported (issue #32 items 5, 7 and 14): planted bytecode, a module of
the same name earlier on the path, a namespace portion, an edited ``.pth``."""

from __future__ import annotations

import importlib.util
import sys
from importlib import _bootstrap_external  # type: ignore[attr-defined]
from pathlib import Path

import pytest
from toolhooks import ConfigError, Runtime
from toolhooks.config._settings import load_config
from toolhooks.loading import _files
from toolhooks.loading._guard import LockedSource
from toolhooks.loading._lock_report import lock_report

from .conftest import PLUGIN
from .test_lock import loaded_names, write_lock


def marking(marker: Path) -> str:
    return f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\n{PLUGIN}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    config = folder / "toolhooks.toml"
    config.write_text("[plugins]\n", encoding="utf-8")
    return config


def plant_pyc(source: Path, evil: str) -> Path:
    """Bytecode of ``evil`` under ``source``'s cache name, its header copied from ``source``
    (mtime and size): SourceFileLoader takes it for the source's."""
    stat = source.stat()
    code = compile(evil, str(source), "exec")
    data = _bootstrap_external._code_to_timestamp_pyc(code, stat.st_mtime, stat.st_size)
    target = Path(importlib.util.cache_from_source(str(source)))
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(data)
    return target


@pytest.mark.parametrize("layout", ["module", "package"])
def test_planted_bytecode_with_the_source_header_never_runs(site, project, tmp_path, layout):
    marker = tmp_path / "planted-ran"
    file = "pyc_mod.py" if layout == "module" else "pyc_mod/__init__.py"
    site.install("pyc-plugin", {file: PLUGIN}, {"pyc": "pyc_mod:Plugin"})
    write_lock(project)
    plant_pyc(site.root / file, marking(marker))
    with Runtime(config=project) as rt:
        assert "pyc" in loaded_names(rt)
        assert {i.name: i.locked for i in rt.plugins()}["pyc"] is True
    assert not marker.exists()
    assert isinstance(sys.modules["pyc_mod"].__loader__, LockedSource)  # from the source


def test_an_edit_between_the_check_and_the_import_is_refused(site, project, tmp_path):
    marker = tmp_path / "edited-ran"
    site.install("late-plugin", {"late_mod.py": PLUGIN}, {"late": "late_mod:Plugin"})
    write_lock(project)
    config = load_config(project)
    # checked (hashed) now, as the runtime does just before it imports
    assert lock_report(config).state == "ok"
    from toolhooks.loading._entry_points import find_entry_points
    from toolhooks.loading._lock import active_lock, refusal

    (candidate,) = [c for c in find_entry_points(fresh=True)[0] if c.name == "late"]
    lock = active_lock(config)
    assert lock is not None and refusal(lock, candidate) is None
    (site.root / "late_mod.py").write_text(marking(marker))
    with pytest.raises(ImportError, match="changed after it was checked against the lock"):
        candidate.load_target()
    assert not marker.exists()


def test_a_same_named_package_earlier_on_the_path_is_refused(site, project, tmp_path, monkeypatch):
    marker = tmp_path / "shadow-ran"
    site.install("first-plugin", {"first_mod.py": PLUGIN}, {"first": "first_mod:Plugin"})
    write_lock(project)
    earlier = tmp_path / "earlier"
    (earlier / "first_mod").mkdir(parents=True)
    (earlier / "first_mod" / "__init__.py").write_text(marking(marker))
    monkeypatch.syspath_prepend(str(earlier))
    _files.forget()
    with pytest.raises(ConfigError) as refused:
        Runtime(config=project)
    message = str(refused.value)
    assert "plugin 'first'" in message and "differs from the lock" in message
    assert f"resolves to {earlier / 'first_mod' / '__init__.py'}" in message
    assert str(site.root / "first_mod.py") in message
    assert not marker.exists()
    report = lock_report(load_config(project))
    assert report.state == "differs"
    assert any("resolves to" in line for line in report.differences)


def test_a_namespace_portion_earlier_on_the_path_is_refused(site, project, tmp_path, monkeypatch):
    marker = tmp_path / "portion-ran"
    site.install("ns-plugin", {"acme_ns/plugin.py": PLUGIN}, {"ns": "acme_ns.plugin:Plugin"})
    write_lock(project)
    earlier = tmp_path / "earlier"
    (earlier / "acme_ns").mkdir(parents=True)
    (earlier / "acme_ns" / "plugin.py").write_text(marking(marker))
    monkeypatch.syspath_prepend(str(earlier))
    _files.forget()
    sys.modules.pop("acme_ns", None)
    with pytest.raises(ConfigError) as refused:
        Runtime(config=project)
    assert f"resolves to {earlier / 'acme_ns' / 'plugin.py'}" in str(refused.value)
    assert not marker.exists()
    sys.modules.pop("acme_ns", None)


def test_a_submodule_outside_the_lock_is_refused_at_import(site, project, tmp_path, monkeypatch):
    """Found only when the locked package imports it: the finder refuses it there."""
    marker = tmp_path / "sub-ran"
    init = f"from . import helper\n{PLUGIN}"
    site.install(
        "sub-plugin",
        {"sub_pkg/__init__.py": init, "sub_pkg/helper.py": "VALUE = 1\n"},
        {"sub": "sub_pkg:Plugin"},
    )
    project.write_text('[plugins]\non_load_error = "skip"\n')
    write_lock(project)
    # an extension module wins over helper.py in the same folder: never hashed, never locked
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (site.root / "sub_pkg" / f"helper{suffix}").write_text("not a real extension")
    with Runtime(config=project) as rt:
        row = {i.name: i for i in rt.plugins(include_disabled=True)}["sub"]
    assert row.enabled is False and row.reason is not None
    assert "refused by the plugin lock" in row.reason and f"helper{suffix}" in row.reason
    assert not marker.exists()


def test_an_edited_pth_of_an_editable_plugin_fails_the_check(site, project, tmp_path):
    source = tmp_path / "checkout" / "src"
    site.install(
        "edit-plugin", {"edit_pkg/__init__.py": PLUGIN}, {"edit": "edit_pkg:Plugin"},
        editable_source=source,
    )  # fmt: skip
    write_lock(project)
    assert lock_report(load_config(project)).state == "ok"
    pth = next(site.root.glob("__editable__.edit-plugin-*.pth"))
    pth.write_text(pth.read_text() + "import os; os.system('echo owned')\n")
    _files.forget()
    report = lock_report(load_config(project))
    assert report.state == "differs", report.summary
    assert "plugin 'edit' differs from the lock: its files changed" in report.differences[0]
