"""README's "What the demo shows" is the real demo's output on a 100-column terminal.

``TOOLHOOKS_UPDATE_README=1`` writes the real run into the README; otherwise the README must
match it exactly, but for what differs between runs: the approval's short id and the run's
call-id prefix.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
COMMAND = "$ toolhooks demo --dir .toolhooks/demo"


def demo_output(cli, tmp_path: Path) -> str:
    project = tmp_path / "project"
    project.mkdir()
    result = cli(
        "demo", "--dir", ".toolhooks/demo", cwd=project, tty=True,
        env={"COLUMNS": "100", "NO_COLOR": "1"},
    )  # fmt: skip
    assert result.code == 0, result.err
    return f"{COMMAND}\n{result.out}"


def readme_block() -> tuple[str, int, int]:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"```\n{COMMAND}\n") + len("```\n")
    return text, start, text.index("```\n", start)


def steady(output: str) -> str:
    output = re.sub(r"approval [0-9a-f]{8}", "approval <id>", output)
    return re.sub(r"demo-[0-9a-f]{6}-", "demo-<run>-", output)


def test_the_readme_shows_the_demo_as_it_runs(cli, tmp_path):
    real = demo_output(cli, tmp_path)
    text, start, end = readme_block()
    if os.environ.get("TOOLHOOKS_UPDATE_README"):
        README.write_text(text[:start] + real + text[end:], encoding="utf-8")
    assert steady(text[start:end]) == steady(real)
    assert max(len(line) for line in real.splitlines()) <= 100
