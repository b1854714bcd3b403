"""The README's example runs as printed and prints what its comment says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_runs_and_shows_the_block_reason(tmp_path: Path) -> None:
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[0]
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 20, "the example should stay short"
    script = tmp_path / "example.py"
    script.write_text(
        "from agents import set_tracing_disabled\nset_tracing_disabled(True)\n" + code
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "writes under /etc are not allowed"
