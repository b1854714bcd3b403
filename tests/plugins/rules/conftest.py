"""A project folder and a home folder for the rules tests, and the starter policies (the package
files the how-to includes)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from toolhooks.plugins import rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
HOWTO = ROOT / "docs" / "how-to" / "write-rules.md"


def howto_case_file() -> str:
    """The case file the how-to shows (its ```toml block; the policies are included files)."""
    text = HOWTO.read_text(encoding="utf-8")
    found = re.findall(r"^```toml\n(.*?)^```$", text, re.S | re.M)
    assert len(found) == 1, "the how-to shows one case file and includes its policies"
    return str(found[0])


def starter_policy(name: str = "deny-list") -> str:
    """A starter policy as the package ships it (and the how-to includes it)."""
    return rules.starter_policy(name)


def load_corpus(name: str) -> list[dict[str, Any]]:
    """The cases of corpus file ``name`` (``corpus.toml``, ``redteam.toml``): a TOML array
    ``case`` of tables, as tests/analysis/corpus.toml; each has ``expect`` and a ``script``."""
    cases = tomllib.loads((HERE / name).read_text(encoding="utf-8"))["case"]
    for number, case in enumerate(cases):
        assert isinstance(case.get("expect"), str), f"{name}: case {number}: {case!r}"
        assert isinstance(case.get("script"), str), f"{name}: case {number}: {case!r}"
    return list(cases)


def make_project(tmp: Path) -> tuple[Path, Path]:
    """``tmp/home`` with .ssh and .aws, and ``tmp/project`` with src/, build/, secrets and
    symlinks (one into ~/.ssh, one out of build/): the home folder and the project."""
    home = tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    for name in ("id_rsa", "id_ed25519", "id_ed25519.pub", "config"):
        (home / ".ssh" / name).write_text("x")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("x")
    root = tmp / "project"
    for folder in ("src", "build/cache", "config", "docs", "scripts"):
        (root / folder).mkdir(parents=True)
    for name in ("src/a.py", "src/env.py", ".env", ".env.example", "config/.env", "README.md"):
        (root / name).write_text("x")
    (root / "link-to-ssh").symlink_to(home / ".ssh")
    (root / "build" / "escape").symlink_to(root / "src")
    return home, root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp/home`` (as ``$HOME``) with .ssh and .aws; ``tmp/project`` (the working directory)
    with src/, build/, secrets and symlinks, and no toolhooks.toml yet."""
    home, root = make_project(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def starter(project: Path) -> Path:
    """The project with the starter policy as its toolhooks.toml."""
    config = project / "toolhooks.toml"
    config.write_text(starter_policy())
    return config
