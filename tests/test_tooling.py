"""The tooling configured in pyproject.toml holds for the whole tree: ruff lint + format, mypy."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(
    *command: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)


def test_ruff_lint_is_clean():
    done = run(sys.executable, "-m", "ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean():
    done = run(sys.executable, "-m", "ruff", "format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_on_the_core_and_plugins(tmp_path):
    """mypy cannot see setuptools' package-dir mapping, so mirror it with symlinks: toolhooks -> core."""
    shim = tmp_path / "toolhooks"
    shim.mkdir()
    for entry in (ROOT / "core").iterdir():
        if entry.name != "__pycache__":
            (shim / entry.name).symlink_to(entry)
    (shim / "plugins").symlink_to(ROOT / "plugins")
    if (
        shutil.which("mypy") is None
        and run(sys.executable, "-m", "mypy", "--version").returncode != 0
    ):
        pytest.fail("mypy is part of the test extras; install with pip install -e '.[test]'")
    done = run(
        sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
        "--cache-dir", str(tmp_path / "cache"), "-p", "toolhooks",
        cwd=tmp_path, env={"MYPYPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_hypothesis_runs_without_deadlines() -> None:
    """A deadline is a timing assertion: the suite's profile (tests/conftest.py) turns it off."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
