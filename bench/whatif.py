"""Issue #23: ``toolhooks whatif`` calls per second over a large log.

The log is made the way the real pipeline writes it, fast: a real runtime with the default
built-ins (policy with the coding profile, loop detection, result budget, the JSONL event log
with its hash chain) makes one call of each kind, and its lines are the templates of every call
of the big log, with their own call id, trace id, session, params and time (the chain fields are
copied as they are: ``whatif`` does not verify the chain; ``toolhooks logs verify`` would fail on
such a log). The kinds, in turn: a read that runs, a guest's exec the policy blocks, and every
1,000th call an exec that runs. Ten calls a session, every path different: loop detection sees
an agent making progress, as in item 2.

``whatif`` then replays it under the same config (nothing changes) and under a stricter one (the
runnable execs are blocked: one call in 1,000 changes), timed from start to end, reading
included, with the console script's own code (``toolhooks.cli.main``) writing its JSON to a file.

    python bench/whatif.py [--calls N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

KINDS = ("read", "blocked", "exec")
TEMPLATE_IDS = {kind: f"tpl-{kind}" for kind in KINDS}
EXEC_EVERY = 1_000
PER_SESSION = 10
FILE_BYTES = 50_000_000
"""The event log's default ``max_bytes``: the big log is rotated the same way."""

BASE = """
[tools]
profile = "coding"

[tools.by_sender."role:guest"]
deny = ["group:runtime"]

[plugins]
only = ["policy", "loop_detection", "result_budget", "event_log"]

[plugins.result_budget]
artifact_dir = "{folder}/artifacts"

[plugins.event_log]
path = "{folder}/templates.jsonl"
durability = "call"
"""
STRICTER_EXTRA = '\n[tools.by_sender."role:dev"]\ndeny = ["exec"]\n'


def configs(folder: str) -> tuple[str, str]:
    """The config the templates are recorded with, and the stricter one; their paths."""
    base = os.path.join(folder, "base.toml")
    stricter = os.path.join(folder, "stricter.toml")
    with open(base, "w", encoding="utf-8") as out:
        out.write(BASE.format(folder=folder))
    with open(stricter, "w", encoding="utf-8") as out:
        out.write(BASE.format(folder=folder) + STRICTER_EXTRA)
    return base, stricter


def record_templates(folder: str, base: str) -> dict[str, list[bytes]]:
    """One real call of each kind through the real pipeline; its log lines, by kind."""
    from toolhooks import Runtime

    rt = Runtime(config=base)
    calls = {
        "read": {"name": "read", "params": {"path": "PATH"}, "sender": {"id": "dev"}},
        "blocked": {
            "name": "exec",
            "params": {"command": "ls PATH"},
            "sender": {"id": "guest", "roles": ["guest"]},
        },
        "exec": {
            "name": "exec",
            "params": {"command": "make PATH"},
            "sender": {"id": "dev", "roles": ["dev"]},
        },
    }
    for kind, call in calls.items():
        proposal = dict(call, id=TEMPLATE_IDS[kind], session_id="SESSION", trace_id="TRACE")
        rt.call(proposal, execute=lambda params: "x = 1\n" * 30)
    rt.close()
    lines: dict[str, list[bytes]] = {kind: [] for kind in KINDS}
    by_id = {template: kind for kind, template in TEMPLATE_IDS.items()}
    with open(os.path.join(folder, "templates.jsonl"), "rb") as log:
        for raw in log:
            kind = by_id.get(json.loads(raw)["call_id"])
            if kind is not None:
                lines[kind].append(raw)
    return lines


def kind_of(number: int) -> str:
    if number % EXEC_EVERY == 0:
        return "exec"
    return "blocked" if number % 2 else "read"


def _call_lines(templates: dict[str, list[bytes]], number: int, ts: float) -> Iterator[bytes]:
    kind = kind_of(number)
    call_id = f"call-{number:08d}".encode()
    for raw in templates[kind]:
        line = raw.replace(TEMPLATE_IDS[kind].encode(), call_id)
        line = line.replace(b'"TRACE"', b'"%s"' % call_id)
        line = line.replace(b'"SESSION"', b'"s%d"' % (number // PER_SESSION))
        line = line.replace(b"PATH", b"src/m%d.py" % number)
        yield _with_ts(line, ts)


def _with_ts(line: bytes, ts: float) -> bytes:
    start = line.index(b'"ts":') + 5
    end = line.index(b",", start)
    return line[:start] + repr(ts).encode() + line[end:]


def write_log(templates: dict[str, list[bytes]], path: str, calls: int) -> list[str]:
    """``calls`` calls in the shape of ``templates``, rotated like the event log; the files."""
    chunk: list[bytes] = []
    size = 0
    written: list[str] = []
    start = time.time() - calls * 0.001
    parts: list[str] = []

    def flush() -> None:
        nonlocal size
        name = f"{path}.part{len(parts)}"
        with open(name, "wb") as out:
            out.write(b"".join(chunk))
        parts.append(name)
        chunk.clear()
        size = 0

    for number in range(1, calls + 1):
        for line in _call_lines(templates, number, start + number * 0.001):
            chunk.append(line)
            size += len(line)
        if size >= FILE_BYTES:
            flush()
    if chunk:
        flush()
    # The oldest part is the highest rotated number; the newest is the log itself.
    for index, name in enumerate(parts):
        target = path if index == len(parts) - 1 else f"{path}.{len(parts) - 1 - index}"
        os.replace(name, target)
        written.append(target)
    return written


@dataclass
class Run:
    seconds: float
    cpu_seconds: float
    calls: int
    changed: int
    unchanged: int
    peak_rss_kb: int

    @property
    def per_second(self) -> float:
        """Calls per second of wall time."""
        return self.calls / self.seconds

    @property
    def per_cpu_second(self) -> float:
        """Calls per second of the process's CPU time (what a busy machine does not inflate)."""
        return self.calls / self.cpu_seconds


_CHILD = """
import json, sys, time
from toolhooks.cli import main
out_path, args = sys.argv[1], sys.argv[2:]
started, cpu = time.perf_counter(), time.process_time()
with open(out_path, "w", encoding="utf-8") as out:
    sys.stdout = out
    code = main(args)
    sys.stdout = sys.__stdout__
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
# VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so it would report the parent's.
with open("/proc/self/status", encoding="ascii") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"code": code, "seconds": seconds, "cpu": cpu, "peak_rss_kb": peak}))
"""


def run_whatif(log: str, config: str, out_path: str) -> Run:
    """``toolhooks whatif LOG --config CONFIG --json`` in a process of its own (its peak RSS is
    the command's alone), its JSON written to ``out_path``; timed around the command's code,
    building the runtime included, starting Python not."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, out_path, "whatif", log, "--config", config, "--json"],
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")},
    )
    if done.returncode != 0:
        raise RuntimeError(f"whatif failed: {done.stderr.strip()[-2000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if report["code"] != 0:
        raise RuntimeError(f"whatif exited {report['code']}: {done.stderr.strip()[-2000:]}")
    with open(out_path, encoding="utf-8") as result:
        data: dict[str, Any] = json.load(result)
    return Run(
        seconds=report["seconds"],
        cpu_seconds=report["cpu"],
        calls=data["calls"],
        changed=len(data["changed"]),
        unchanged=data["unchanged"],
        peak_rss_kb=report["peak_rss_kb"],
    )


def measure(calls: int, folder: str) -> dict[str, Run]:
    base, stricter = configs(folder)
    templates = record_templates(folder, base)
    log = os.path.join(folder, "big", "events.jsonl")
    os.makedirs(os.path.dirname(log))
    write_log(templates, log, calls)
    return {
        "same config": run_whatif(log, base, os.path.join(folder, "same.json")),
        "stricter config": run_whatif(log, stricter, os.path.join(folder, "stricter.json")),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--keep", metavar="DIR", help="make the log here and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="toolhooks-whatif-bench-") as scratch:
        folder = args.keep or scratch
        os.makedirs(folder, exist_ok=True)
        runs = measure(args.calls, os.path.abspath(folder))
    for label, run in runs.items():
        print(
            f"{label:16} {run.calls:,} calls in {run.seconds:.1f} s: {run.per_second:,.0f} calls/s"
            f" wall, {run.per_cpu_second:,.0f} calls/s CPU ({run.changed:,} changed);"
            f" peak RSS {run.peak_rss_kb / 1024:.0f} MB",
            file=sys.stdout,
        )


if __name__ == "__main__":
    main()
