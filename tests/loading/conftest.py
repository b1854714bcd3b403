"""Tiny installed distributions for the loading tests: module files and a ``.dist-info`` with
METADATA (its Requires-Dist too), entry_points.txt and a RECORD listing every file with its hash,
as an installer writes them; or an editable install (a ``.pth`` line naming a source folder, and
``direct_url.json`` saying so)."""

from __future__ import annotations

import base64
import hashlib
import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolhooks.loading import _files

PLUGIN = """\
from toolhooks import hookimpl


class Plugin:
    @hookimpl
    def before_tool_call(self, call):
        return None
"""


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


class Site:
    """A site-packages folder on sys.path for the test's duration."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: list[str] = []

    def install(
        self,
        dist: str,
        modules: dict[str, str],
        entry_points: dict[str, str],
        *,
        version: str = "1.0",
        requires: tuple[str, ...] = (),
        editable_source: Path | None = None,
    ) -> Path:
        """Install ``dist``; returns its dist-info folder. ``modules`` maps a file path in the
        site (``pkg/__init__.py``) or, with ``editable_source``, in that source folder, to text."""
        base = editable_source if editable_source is not None else self.root
        written: list[Path] = []
        for relative, source in modules.items():
            path = base / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(source), encoding="utf-8")
            self.modules.append(relative.split("/")[0].removesuffix(".py"))
            if editable_source is None:
                written.append(path)
        info = self.root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        lines = ["Metadata-Version: 2.1", f"Name: {dist}", f"Version: {version}"]
        lines += [f"Requires-Dist: {requirement}" for requirement in requires]
        (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
        listed = "\n".join(f"{name} = {value}" for name, value in entry_points.items())
        (info / "entry_points.txt").write_text(f"[toolhooks]\n{listed}\n", encoding="utf-8")
        (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
        written += [info / "METADATA", info / "entry_points.txt", info / "INSTALLER"]
        if editable_source is not None:
            pth = self.root / f"__editable__.{dist}-{version}.pth"
            pth.write_text(f"{editable_source}\n", encoding="utf-8")
            url = editable_source.as_uri()
            (info / "direct_url.json").write_text(
                f'{{"dir_info": {{"editable": true}}, "url": "{url}"}}', encoding="utf-8"
            )
            written += [pth, info / "direct_url.json"]
            sys.path.append(str(editable_source))  # what site.py does with the .pth line
        record = [f"{p.relative_to(self.root).as_posix()},{_record_hash(p.read_bytes())},"
                  f"{p.stat().st_size}" for p in written]  # fmt: skip
        record.append(f"{info.name}/RECORD,,")
        (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")
        importlib.invalidate_caches()
        return info


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    saved_path = list(sys.path)
    made = Site(root)
    _files.forget()  # hashes are kept per process: each test starts from the files as they are
    yield made
    sys.path[:] = saved_path
    for module in made.modules:
        for name in [n for n in sys.modules if n == module or n.startswith(f"{module}.")]:
            sys.modules.pop(name, None)
    _files.forget()
    importlib.invalidate_caches()
