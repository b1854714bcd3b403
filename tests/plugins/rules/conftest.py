"""A project folder and a home folder for the rules tests, and the starter policies (the package
files the how-to includes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from toolhooks.plugins import rules

ROOT = Path(__file__).resolve().parents[3]
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
