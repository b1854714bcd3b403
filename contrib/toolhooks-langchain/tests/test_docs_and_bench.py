"""The README's example runs as printed, and the benchmark script runs (tiny sizes, no timing)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
ROOT = PACKAGE.parents[1]


def test_the_readme_example_prints_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (PACKAGE / "README.md").read_text(encoding="utf-8")
    example = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    assert len([line for line in example.splitlines() if line.strip()]) <= 16
    expected = re.search(r"# (wrote .*)", example)
    assert expected is not None
    monkeypatch.chdir(tmp_path)  # the default event log writes under the working directory
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    namespace: dict[str, object] = {"__name__": "readme"}
    exec(compile(example, "README.md", "exec"), namespace)
    assert capsys.readouterr().out.strip() == expected.group(1)
    # The event log writes on an interval; closing the runtime (as exit would) flushes it.
    namespace["guard"].runtime.close()  # type: ignore[attr-defined]
    log = tmp_path / ".toolhooks" / "events.jsonl"
    tools = [json.loads(line).get("tool") for line in log.read_text().splitlines()]
    assert "write_file" in tools


def test_the_benchmark_script_runs_on_tiny_sizes(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "langchain.py"), "--quick", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "toolhooks' share of LangChain's own cost" in done.stdout
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["calls"] == 2
    assert figures["per_call_langchain_s"] > 0
    assert figures["toolhooks_own_s"] > 0
    assert len(figures["runs_s"]) == 6
