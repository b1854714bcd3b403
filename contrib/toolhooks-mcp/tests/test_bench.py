"""bench/mcp.py runs (tiny sizes, nothing timed is asserted) and prints its table and verdict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench" / "mcp.py"


def test_the_mcp_bench_runs_both_setups(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json", str(out)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| in-process |" in done.stdout and "| over stdio |" in done.stdout
    assert "target: the proxy adds at most 1.2x the upstream hop's cost: " in done.stdout
    assert out.read_text().startswith("[")


def test_the_mcp_bench_can_write_the_log_on_each_call(tmp_path):
    """``--durability call``: the handler writes each call's lines before it answers."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--durability", "call"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'event log durability "call"' in done.stdout
    assert "target (issue #22): the pipeline <= 50 µs per call: " in done.stdout


def test_the_mcp_bench_runs_pinned_over_http_and_with_a_large_result(tmp_path):
    """Issue #43: ``--pins`` (a lock pins the upstream) and ``--http`` (token against OAuth);
    issue #44: ``--large`` (one big result, four readers), in the same process to save a start."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--no-stdio", "--pins", "--http",
         "--large", "0.2", "--large-rounds", "1"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| in-process, pinned |" in done.stdout and "| over stdio |" not in done.stdout
    assert "| a [[mcp.auth.tokens]] token | an OAuth JWT (verified once, cached) |" in done.stdout
    assert "## A 0.2 MB result over stdio, one tools/call (median)" in done.stdout
    for reader in ("its stdio_client", "the proxy's transport", "(before)", "(now)"):
        assert f"{reader} | " in done.stdout
