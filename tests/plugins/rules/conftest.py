"""A project folder and a home folder for the rules tests, and the starter policy of the how-to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HOWTO = ROOT / "docs" / "how-to" / "write-rules.md"


def howto_toml(index: int) -> str:
    """The how-to's ``index``-th ```toml block (0: the starter policy, 1: its case file)."""
    text = HOWTO.read_text(encoding="utf-8")
    found = re.findall(r"^```toml\n(.*?)^```$", text, re.S | re.M)
    assert len(found) > index, "the how-to has its starter policy and its case file"
    return str(found[index])


def starter_policy() -> str:
    """The starter policy exactly as the how-to shows it (its first ```toml block)."""
    return howto_toml(0)


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
