"""Issue #24: what the plugin lock costs a cold start, with and without a lock, in the same run.

Cold start = a fresh process importing toolhooks, building ``Runtime.from_config(path)`` (every
installed plugin found and imported, the lock checked) and making its first call; the
interpreter's own start-up is left out, and modules load from their ``.pyc`` files (a warm-up
run writes them, whatever ``PYTHONDONTWRITEBYTECODE`` says). The variants are interleaved,
``--rounds`` times each, each round starting with the next one; medians of the wall clock and of
the process's CPU time:

- ``no lock``: a config with no ``toolhooks.lock`` next to it (the usual path);
- ``lock``: the same config with the lock ``toolhooks plugins lock`` writes next to it, every
  installed distribution with a plugin hashed and checked once in the process;
- ``before`` (``--before DIR``): the no-lock config with an older toolhooks found first on
  ``PYTHONPATH`` (``DIR/toolhooks``, e.g. from ``bench/cold_start.py --export-before DIR REV``),
  the same interpreter and installed plugins: to show the no-lock path did not change.

It also times the check alone in this process: the lock read and every plugin's distribution
hashed (cold: the first runtime of a process) and again (warm: a second runtime, hashes kept).

    python bench/cold_start.py --export-before /tmp/before main   # once: main's package
    python bench/cold_start.py [--rounds N] [--before /tmp/before]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import json, sys, time
start, cpu = time.perf_counter(), time.process_time()
from toolhooks import Runtime

def lookup(key: str) -> str:
    return key

rt = Runtime.from_config(sys.argv[1], tools=[lookup])
built = time.perf_counter()
outcome = rt.call({"name": "lookup", "params": {"key": "k"}})
called, cpu = time.perf_counter(), time.process_time() - cpu
assert outcome.status == "ok", outcome
print(json.dumps({"built": built - start, "total": called - start, "cpu": cpu}))
rt.close()
"""


def child(config: Path, before: str | None = None) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    # As installed code runs: from .pyc files (the warm-up run writes them), not compiled anew.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if before:
        env["PYTHONPATH"] = before
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(config)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def export_before(folder: Path, revision: str) -> None:
    """``DIR/toolhooks`` from ``git archive REV``: core/ as the package, plugins/ inside it."""
    root = Path(__file__).resolve().parent.parent
    folder.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", revision, "core", "plugins"], cwd=root, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    (folder / "core").rename(folder / "toolhooks")
    (folder / "plugins").rename(folder / "toolhooks" / "plugins")


def write_configs(folder: Path) -> tuple[Path, Path]:
    """Two folders with the same config, one with the lock written next to it."""
    configs = []
    for name in ("plain", "locked"):
        where = folder / name
        where.mkdir()
        config = where / "toolhooks.toml"
        config.write_text(f'[plugins.event_log]\npath = "{where}/events.jsonl"\n')
        configs.append(config)
    subprocess.run(
        [sys.executable, "-m", "toolhooks", "plugins", "lock", "--config", str(configs[1])],
        check=True,
        capture_output=True,
        cwd=configs[1].parent,
    )
    return configs[0], configs[1]


Times = tuple[float, float]  # wall ms, CPU ms


def check_alone(config: Path, rounds: int) -> tuple[Times, Times, int, int]:
    """(cold, warm, plugins checked, files hashed) of the lock check in this process."""
    from toolhooks.config._settings import load_config
    from toolhooks.loading import _files
    from toolhooks.loading._entry_points import find_entry_points, why_skipped
    from toolhooks.loading._lock import active_lock, refusal

    loaded = load_config(config)
    candidates = [c for c in find_entry_points()[0] if why_skipped(c, loaded) is None]

    def once() -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.process_time()
        lock = active_lock(loaded)
        assert lock is not None
        assert all(refusal(lock, c) is None for c in candidates)
        return (time.perf_counter() - start) * 1e3, (time.process_time() - cpu) * 1e3

    cold, warm = [], []
    for _ in range(rounds):
        _files.forget()
        cold.append(once())
        warm.append(once())
    dists = {c.dist._path: c.dist for c in candidates if c.dist is not None}  # type: ignore[attr-defined]
    files = sum(_files.fingerprint(d).files for d in dists.values())
    median = statistics.median
    return (
        (median(w for w, _ in cold), median(c for _, c in cold)),
        (median(w for w, _ in warm), median(c for _, c in warm)),
        len(candidates),
        files,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--before", metavar="DIR", help="a folder holding an older toolhooks")
    parser.add_argument("--export-before", nargs=2, metavar=("DIR", "REV"))
    args = parser.parse_args(argv)
    if args.export_before:
        export_before(Path(args.export_before[0]), args.export_before[1])
        return
    with tempfile.TemporaryDirectory() as folder:
        plain, locked = write_configs(Path(folder))
        variants: dict[str, tuple[Path, str | None]] = {
            "no lock": (plain, None),
            "lock": (locked, None),
        }
        if args.before:
            variants["before (no lock)"] = (plain, args.before)
        found: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
        for config, before in variants.values():  # warm the disk cache once
            child(config, before)
        names = list(variants)
        for round_ in range(args.rounds):  # each round starts with another variant
            for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
                config, before = variants[name]
                found[name].append(child(config, before))
        cold, warm, plugins, files = check_alone(locked, args.rounds)
    load = os.getloadavg()[0]
    print(f"cold start, {args.rounds} rounds interleaved, medians; load average {load:.1f}")
    base = statistics.median(r["total"] for r in found["no lock"])
    base_cpu = statistics.median(r["cpu"] for r in found["no lock"])
    for name, rows in found.items():
        built = statistics.median(r["built"] for r in rows) * 1e3
        total = statistics.median(r["total"] for r in rows) * 1e3
        cpu = statistics.median(r["cpu"] for r in rows) * 1e3
        print(
            f"  {name:18} import + Runtime.from_config {built:6.1f} ms, + first call "
            f"{total:6.1f} ms ({total / (base * 1e3):.3f}x no lock); CPU {cpu:6.1f} ms "
            f"({cpu / (base_cpu * 1e3):.3f}x)"
        )
    print(
        f"the check alone ({plugins} plugins, {files} files hashed): cold {cold[0]:.2f} ms "
        f"(CPU {cold[1]:.2f} ms), warm {warm[0]:.3f} ms (CPU {warm[1]:.3f} ms)"
    )


if __name__ == "__main__":
    main()
