"""Cold start: a new process that builds a Runtime from its config, makes one call and closes.

Every command-line hook pays this once per tool call (issue #22: <= 2x ``python -c "import
pydantic"``). Each sample is one child process; its CPU time (user + system, from ``wait4``) is
the measure, because wall time on a shared machine mostly measures the neighbours. Bytecode
caches are warm (one unmeasured run of each first, ``PYTHONDONTWRITEBYTECODE`` unset), as on a
user's machine after the first run. The rounds alternate the commands, so drift hits all alike.

``python bench/cold_process.py [--rounds N]`` (``cold_start.py`` is the plugin lock's share of it)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ONE_CALL = textwrap.dedent(
    """
    from toolhooks import Runtime
    rt = Runtime.from_config()
    rt.call({"name": "read", "params": {"path": "README.md"}}, execute=lambda p: "text")
    rt.close()
    """
)
COMMANDS = {
    "python -c pass": "pass",
    'python -c "import json"': "import json",
    'python -c "import pydantic"': "import pydantic",
    "toolhooks: Runtime from config, one call, close": ONE_CALL,
}


def sample(code: str, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``python -c code`` process."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=cwd, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{code!r} failed with exit code {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def measure(rounds: int) -> dict[str, dict[str, float]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("TOOLHOOKS_CONFIG", None)
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)  # the embedded defaults; the event log writes under .toolhooks/
        for code in COMMANDS.values():
            sample(code, cwd, env)  # warm the bytecode caches
        cpu: dict[str, list[float]] = {name: [] for name in COMMANDS}
        wall: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(rounds):
            for name, code in COMMANDS.items():
                used, took = sample(code, cwd, env)
                cpu[name].append(used)
                wall[name].append(took)
    return {
        name: {
            "cpu_ms": statistics.median(cpu[name]) * 1000,
            "wall_ms": statistics.median(wall[name]) * 1000,
        }
        for name in COMMANDS
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    results = measure(args.rounds)
    base = results['python -c "import pydantic"']["cpu_ms"]
    print(f"{'command':52} {'CPU ms':>8} {'wall ms':>8} {'x pydantic':>11}")
    for name, row in results.items():
        print(f"{name:52} {row['cpu_ms']:8.1f} {row['wall_ms']:8.1f} {row['cpu_ms'] / base:10.2f}x")
    print(f"(median of {args.rounds} rounds; load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
