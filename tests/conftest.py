"""Fixtures shared by every test folder."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# No deadlines and no "too slow" health check anywhere: both are timing assertions, and a
# shared CI machine (or hypothesis building its unicode tables on a fresh clone) trips them.
settings.register_profile("toolhooks", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("toolhooks")


@pytest.fixture
def install_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Install a tiny real distribution (module + dist-info with entry points) on sys.path.

    Returns the site directory, so that a subprocess can use it as PYTHONPATH too.
    """
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    monkeypatch.syspath_prepend(str(site))
    added: list[str] = []

    def install(
        dist: str, modules: dict[str, str], entry_points: dict[str, str], version: str = "1.0"
    ) -> Path:
        for module, source in modules.items():
            (site / f"{module}.py").write_text(textwrap.dedent(source))
            added.append(module)
        info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        lines = "\n".join(f"{name} = {value}" for name, value in entry_points.items())
        (info / "entry_points.txt").write_text(f"[toolhooks]\n{lines}\n")
        importlib.invalidate_caches()
        return site

    yield install
    for module in added:
        sys.modules.pop(module, None)
