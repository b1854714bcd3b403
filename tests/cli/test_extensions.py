"""Commands from other distributions (entry-point group toolhooks.commands)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _distribution(root: Path, name: str, entry_points: str, module: str = "") -> None:
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    if module:
        (root / f"{name.replace('-', '_')}.py").write_text(module)


def _toolhooks(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-m", "toolhooks", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_an_add_on_command_is_listed_and_runs(tmp_path):
    module = (
        "def add_parser(subparsers):\n"
        "    parser = subparsers.add_parser('hello', help='say hello')\n"
        "    parser.set_defaults(func=lambda args: print('hello from an add-on') or 0)\n"
    )
    _distribution(
        tmp_path, "hello-addon", "[toolhooks.commands]\nhello = hello_addon:add_parser\n", module
    )
    shown = _toolhooks(tmp_path, "--help")
    assert shown.returncode == 0 and "say hello" in shown.stdout
    ran = _toolhooks(tmp_path, "hello")
    assert (ran.returncode, ran.stdout.strip()) == (0, "hello from an add-on")


def test_a_broken_add_on_costs_one_line_naming_its_distribution(tmp_path):
    module = "raise ImportError('needs libfoo 2')\n"
    _distribution(
        tmp_path, "broken-addon", "[toolhooks.commands]\nbroken = broken_addon:add_parser\n", module
    )
    shown = _toolhooks(tmp_path, "plugins", "--json")
    assert shown.returncode == 0, shown.stderr
    lines = [line for line in shown.stderr.splitlines() if "broken" in line]
    assert lines == [
        "toolhooks: the 'broken' commands of broken-addon 0.1 failed to load "
        "(ImportError: needs libfoo 2); other commands work"
    ]
    assert "Traceback" not in shown.stderr
