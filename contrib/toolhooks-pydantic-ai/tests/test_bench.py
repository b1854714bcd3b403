"""bench/pydanticai.py runs on tiny sizes (a smoke test: nothing about timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_bench_script_prints_its_table(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "pydanticai.py"), "--quick"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| PydanticAI + toolhooks, 3 tool calls |" in done.stdout
    assert "toolhooks / framework per call, measured directly:" in done.stdout
