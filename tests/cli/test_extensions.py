"""Commands from other distributions (entry-point group toolhooks.commands)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _distribution(
    root: Path, name: str, entry_points: str, module: str = "", summary: str = ""
) -> None:
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    about = f"Summary: {summary}\n" if summary else ""
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n{about}")
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
        cwd=root,
    )


def test_an_add_on_command_is_listed_without_importing_it_and_runs(tmp_path):
    module = (
        "import pathlib\n"
        "pathlib.Path('imported').touch()  # how the test sees that the add-on was imported\n"
        "def add_parser(subparsers):\n"
        "    parser = subparsers.add_parser('hello', help='say hello')\n"
        "    parser.set_defaults(func=lambda args: print('hello from an add-on') or 0)\n"
    )
    entry_points = "[toolhooks.commands]\nhello = hello_addon:add_parser\n"
    _distribution(tmp_path, "hello-addon", entry_points, module, summary="Says hello")
    shown = _toolhooks(tmp_path, "--help")
    assert shown.returncode == 0, shown.stderr
    assert [line.split(None, 1) for line in shown.stdout.splitlines() if "hello-addon" in line] == [
        ["hello", "Says hello (hello-addon 0.1)"]
    ]
    assert not (tmp_path / "imported").exists()  # listed from its entry point alone
    own = _toolhooks(tmp_path, "hello", "--help")
    assert own.returncode == 0 and "usage: toolhooks hello" in own.stdout
    ran = _toolhooks(tmp_path, "hello")
    assert (ran.returncode, ran.stdout.strip()) == (0, "hello from an add-on")
    assert (tmp_path / "imported").exists()


def test_a_broken_add_on_costs_one_line_naming_its_distribution_when_used(tmp_path):
    module = "raise ImportError('needs libfoo 2')\n"
    _distribution(
        tmp_path, "broken-addon", "[toolhooks.commands]\nbroken = broken_addon:add_parser\n", module
    )
    other = _toolhooks(tmp_path, "plugins", "--json")
    assert other.returncode == 0, other.stderr
    assert "broken" not in other.stderr  # other commands never import it
    assert "from broken-addon 0.1" in _toolhooks(tmp_path, "--help").stdout
    used = _toolhooks(tmp_path, "broken", "--anything")
    assert used.returncode == 1
    assert used.stderr.splitlines() == [
        "toolhooks: the 'broken' commands of broken-addon 0.1 failed to load "
        "(ImportError: needs libfoo 2); other commands work"
    ]
