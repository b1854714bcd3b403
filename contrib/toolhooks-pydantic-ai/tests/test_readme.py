"""The README's example runs as it is and prints what the README says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_the_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    code = README.split("```python", 1)[1].split("```", 1)[0]
    claimed = re.search(r"^prints `(.+?)`", README, re.MULTILINE)
    assert claimed is not None
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [claimed.group(1)]
