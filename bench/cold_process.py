"""Cold start: a new process that builds a Runtime from its config, makes one call and closes.

Every command-line hook pays this once per tool call (issue #22: <= 2x ``python -c "import
pydantic"``). Each sample is one child process; its CPU time (user + system, from ``wait4``) is
the measure, because wall time on a shared machine mostly measures the neighbours. Bytecode
caches are warm (one unmeasured run of each first, ``PYTHONDONTWRITEBYTECODE`` unset), and so is
the entry-point cache (``toolhooks.loading._scan_cache``, in a folder of the run's own: it is
written once the working folder is 2 s old), as on a user's machine after the first run;
``--no-cache`` turns it off (every process scans the installed distributions). The rounds
alternate the commands, so drift hits all alike.

The two "floor" rows are the one-call process on the defaults plus what an exec call under a
policy cannot do without: the bash grammar (tree-sitter) loaded and one command parsed, then the
whole shell analysis package with it (what the starter-policy rows pay at the least, before any
rule is read; the policy's own examples are shell commands, so its read-call row pays it too).

``--instructions`` counts each command's instructions under valgrind's callgrind instead (one
run each; the same count whatever the machine's load, which makes it the measure to compare
changes by).

``python bench/cold_process.py [--rounds N] [--instructions] [--no-cache]`` (``cold_start.py``
is the plugin lock's share of it)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
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
STARTER = "starter/toolhooks.toml"
"""The rules plugin's deny-list starter policy, as ``toolhooks init`` writes it (issue #44)."""
STARTER_CALL = textwrap.dedent(
    """
    from toolhooks import Runtime
    rt = Runtime.from_config(%r)
    rt.call(%r, execute=lambda p: "text")
    rt.close()
    """
)
GRAMMAR = textwrap.dedent(
    """
    from toolhooks.analysis._grammar import parse
    parse(b"git status")
    """
)
"""The bash grammar alone, loaded as the analysis loads it (tree-sitter-bash's binding without
its package's ``importlib.resources``), and one command parsed."""
ANALYSIS = textwrap.dedent(
    """
    import os
    from toolhooks.analysis import analyse_script
    analyse_script("git status", cwd=os.getcwd(), home=os.path.expanduser("~"))
    """
)
"""The shell analysis an exec call needs (its package and the grammar), one command read."""
COMMANDS = {
    "python -c pass": "pass",
    'python -c "import json"': "import json",
    'python -c "import pydantic"': "import pydantic",
    "toolhooks: Runtime from config, one call, close": ONE_CALL,
    "floor: the defaults' process + the grammar": ONE_CALL + GRAMMAR,
    "floor: the defaults' process + the shell analysis": ONE_CALL + ANALYSIS,
    "toolhooks: starter policy, one read call, close": STARTER_CALL
    % (STARTER, {"name": "read", "params": {"path": "README.md"}}),
    "toolhooks: starter policy, one exec call, close": STARTER_CALL
    % (STARTER, {"name": "exec", "params": {"command": "git status"}}),
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


def instructions(code: str, cwd: Path, env: dict[str, str]) -> int:
    """Instructions of one ``python -c code`` process, counted by callgrind."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            code,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{code!r} under callgrind failed: {done.stderr[-500:]}")
    return int(found.group(1))


def prepared(folder: str, cache: bool) -> tuple[Path, dict[str, str]]:
    """The working folder and environment every command runs in, with warm caches."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("TOOLHOOKS_CONFIG", None)
    env["TOOLHOOKS_CACHE_DIR"] = str(Path(folder, "cache")) if cache else ""
    cwd = Path(folder, "work")  # the embedded defaults; the event log writes under .toolhooks/
    cwd.mkdir()
    from toolhooks.plugins.rules import starter_policy

    (cwd / STARTER).parent.mkdir()
    (cwd / STARTER).write_text(starter_policy("deny-list"), encoding="utf-8")
    for code in COMMANDS.values():
        sample(code, cwd, env)  # warm the bytecode caches
    if cache:  # the working folder (on sys.path as '') must be 2 s old for the scan to be kept
        time.sleep(2.1)
        sample(ONE_CALL, cwd, env)
    return cwd, env


def count(cache: bool) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as folder:
        cwd, env = prepared(folder, cache)
        return {
            name: {"instructions": instructions(code, cwd, env)} for name, code in COMMANDS.items()
        }


def measure(rounds: int, cache: bool) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as folder:
        cwd, env = prepared(folder, cache)
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
    parser.add_argument("--instructions", action="store_true", help="count with callgrind")
    parser.add_argument("--no-cache", action="store_true", help="no entry-point cache")
    args = parser.parse_args()
    if args.instructions:
        if shutil.which("valgrind") is None:
            raise SystemExit("--instructions needs valgrind")
        counted = count(not args.no_cache)
        base_count = counted['python -c "import pydantic"']["instructions"]
        print(f"{'command':52} {'instructions':>14} {'x pydantic':>11}")
        for name, row in counted.items():
            total = row["instructions"]
            print(f"{name:52} {total / 1e6:12,.0f} M {total / base_count:10.2f}x")
        return
    results = measure(args.rounds, not args.no_cache)
    base = results['python -c "import pydantic"']["cpu_ms"]
    print(f"{'command':52} {'CPU ms':>8} {'wall ms':>8} {'x pydantic':>11}")
    for name, row in results.items():
        print(f"{name:52} {row['cpu_ms']:8.1f} {row['wall_ms']:8.1f} {row['cpu_ms'] / base:10.2f}x")
    print(f"(median of {args.rounds} rounds; load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
