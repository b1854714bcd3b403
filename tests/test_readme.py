"""The README's promises: its quick start prints what it says, and CI runs its test command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_quick_start_prints_what_the_readme_says(tmp_path):
    """Its toolhooks.toml is written where it runs: Runtime() must read it (issue #10 item 17)."""
    toml = README.split("```toml", 1)[1].split("```", 1)[0]
    (tmp_path / "toolhooks.toml").write_text(toml)
    code = README.split("```python", 1)[1].split("```", 1)[0]
    claimed = re.search(r"prints `(.+?)`, `(.+?)` and `(.+?)`", README)
    assert claimed is not None
    env = {key: value for key, value in os.environ.items() if key != "TOOLHOOKS_CONFIG"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == list(claimed.groups())
    assert (tmp_path / ".toolhooks" / "events.jsonl").is_file()


def test_ci_runs_exactly_the_readme_test_command():
    commands = [
        line.strip() for line in README.splitlines() if line.startswith("    python3 -m venv")
    ]
    assert len(commands) == 2, "the README carries exactly two set-up commands"
    demo, tests = commands
    assert demo.endswith("toolhooks demo")
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    steps = [line for line in ci if line and not line.startswith(("#", "set ", "cd ", "export "))]
    # Only what the README cannot install comes before it: Debian's Chromium.
    assert steps[-1] == tests
    assert all(step.startswith("apt-get ") for step in steps[:-1]), steps
