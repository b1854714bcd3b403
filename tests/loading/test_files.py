"""What the lock's sha256 covers: the installed files' contents, not RECORD's hashes; not
compiled files or the installer's notes; for an editable install, the source it points at."""

from __future__ import annotations

import shutil
import sys
from importlib import metadata
from pathlib import Path

from toolhooks.loading import _files

from .conftest import PLUGIN


def fingerprint(dist: str) -> _files.Fingerprint:
    _files.forget()
    return _files.fingerprint(metadata.distribution(dist))


def test_an_edit_changes_the_hash_though_record_still_says_the_old_one(site):
    site.install("first-plugin", {"first_pkg/__init__.py": PLUGIN}, {"first": "first_pkg:Plugin"})
    before = fingerprint("first-plugin")
    assert (before.files, before.editable) == (3, False)  # module, METADATA, entry points
    module = site.root / "first_pkg" / "__init__.py"
    module.write_text(PLUGIN.replace("return None", "return None  # changed"))
    assert fingerprint("first-plugin").sha256 != before.sha256
    module.write_text(PLUGIN)
    assert fingerprint("first-plugin") == before
    module.unlink()  # a file RECORD lists that is gone counts as a change too
    assert fingerprint("first-plugin").sha256 != before.sha256


def test_compiled_files_and_installer_notes_do_not_count(site):
    info = site.install(
        "first-plugin", {"first_pkg/__init__.py": PLUGIN}, {"first": "first_pkg:Plugin"}
    )
    before = fingerprint("first-plugin")
    cache = site.root / "first_pkg" / "__pycache__"
    cache.mkdir()
    (cache / "__init__.cpython-311.pyc").write_bytes(b"compiled, with a timestamp")
    record = info / "RECORD"
    record.write_text(record.read_text() + "first_pkg/__pycache__/__init__.cpython-311.pyc,,\n")
    (info / "REQUESTED").write_text("")
    (info / "INSTALLER").write_text("uv\n")
    assert fingerprint("first-plugin") == before


def test_an_editable_install_hashes_its_source_wherever_the_checkout_is(site, tmp_path):
    source = tmp_path / "checkout" / "src"
    site.install(
        "edit-plugin",
        {"edit_pkg/__init__.py": PLUGIN, "edit_pkg/rules.txt": "allow"},
        {"edit": "edit_pkg:Plugin"},
        editable_source=source,
    )
    before = fingerprint("edit-plugin")
    # two source files, METADATA, entry points, and the .pth (its path line taken out)
    assert before.editable and before.files == 5
    (source / "edit_pkg" / "rules.txt").write_text("allow everything")
    changed = fingerprint("edit-plugin")
    assert changed.sha256 != before.sha256
    (source / "edit_pkg" / "rules.txt").write_text("allow")
    # The same source in another folder: the .pth names another path, the hash is the same.
    moved = tmp_path / "elsewhere" / "src"
    shutil.copytree(source, moved)
    pth = next(site.root.glob("__editable__.edit-plugin-*.pth"))
    pth.write_text(f"{moved}\n")
    sys.path[sys.path.index(str(source))] = str(moved)
    assert fingerprint("edit-plugin") == before


def test_setuptools_editable_finder_mapping_is_read_not_run(tmp_path: Path):
    finder = tmp_path / "__editable___x_1_0_finder.py"
    finder.write_text(
        "raise SystemExit('must not run')\n"
        "MAPPING: dict[str, str] = {'pkg': '/src/pkg', 'pkg.sub': '/elsewhere/sub'}\n"
    )
    assert _files._finder_mapping(finder) == {
        "pkg": Path("/src/pkg"),
        "pkg.sub": Path("/elsewhere/sub"),
    }


def test_toolhooks_itself_is_hashed_with_its_plugins_folder():
    dist = metadata.distribution("toolhooks")
    names = {name for name, _ in _files.installed_files(dist, _files.is_editable(dist))}
    assert any(name.endswith("plugins/policy/__init__.py") for name in names)
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)
