"""Issue #26 item 2: what one coding-agent hook costs, from the agent starting the hook process to
the answer, through the daemon and without it, against the interpreter's own start.

One project (a ``toolhooks.toml`` with the built-in plugins, the event log and the approvals file
in the project) and its daemon, started once before the rounds. Each round runs every contender
once, in a rotated order, on a Claude Code ``PreToolUse`` event with a new call id (so every call
is a real one in the audit log), wall clock from spawning the process to its exit (the HTTP hook:
from connecting to the full answer):

- ``python -c "import json"``: the same interpreter starting and importing json (the target's
  unit: the command hook's median must stay under 1.5x it);
- ``toolhooks hook claude-code``: the installed console script through the running daemon;
- ``... --no-daemon``: the same hook building its runtime in its own process (every ``step``-th
  round: it costs a few hundred milliseconds);
- ``curl --unix-socket``: the daemon's ``/hook/claude-code`` without any Python process;
- ``sh: curl, else toolhooks hook``: the form an installed hook can take to skip Python while
  keeping the Python client as the fallback that starts the daemon (stdin kept for it);
- the HTTP hook (``[agents] http_port``): a POST from this process to 127.0.0.1 with the token,
  and the daemon's own time for it (its ``Server-Timing`` header: reading the request to having
  the answer, the pipeline and the audit log's write included).

``--client-bin DIR`` takes the baseline's interpreter and the hook's console script from another
installation's ``bin`` folder (e.g. a venv with the wheel installed, ``--no-deps``: the client
needs nothing else), while the daemon and the in-process hook stay this interpreter's: a
development venv's editable install adds its own import hook to every start, the baseline's too.

    python bench/agents.py [--rounds N] [--json FILE] [--quick] [--client-bin DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BIN = Path(sys.executable).parent
TOOLHOOKS = str(BIN / "toolhooks")
CONFIG = """\
[agents]
http_port = 0
idle_timeout_s = 600

[approvals]
db = ".toolhooks/approvals.db"

[plugins.event_log]
path = "events.jsonl"
"""
SHELL_FORM = (
    'p=$(cat); r=$(printf %s "$p" | curl -sf --unix-socket .toolhooks/agentd.sock '
    "--data-binary @- http://agentd/hook/claude-code) && printf '%s\\n' \"$r\" "
    '|| printf %s "$p" | {toolhooks} hook claude-code'
)
BASELINE = 'python -c "import json"'
DAEMON = "toolhooks hook claude-code (daemon)"
IN_PROCESS = "toolhooks hook claude-code --no-daemon"
CURL = "curl --unix-socket (no Python)"
SHELL = "sh: curl, else toolhooks hook"
HTTP = "HTTP hook, 127.0.0.1 + token"
OWN = "  the daemon's own time in it (Server-Timing)"


def event(n: int) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": f"echo {n}"},
            "tool_use_id": f"toolu_{n}",
            "cwd": "/work/project",
            "permission_mode": "default",
        }
    ).encode()


class Bench:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
        self.n = 0
        self.own: list[float] = []
        (root / "toolhooks.toml").write_text(CONFIG)

    def start(self) -> None:
        started = self.run([TOOLHOOKS, "agentd"], b"")
        status = json.loads(started.stdout)
        self.port = int(status["http_port"])
        self.token = (self.root / ".toolhooks" / "agentd.token").read_text().strip()

    def run(self, argv: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
        done = subprocess.run(argv, input=stdin, cwd=self.root, env=self.env, capture_output=True)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {done.stderr.decode()[-500:]}")
        return done

    def timed(self, argv: list[str], check: bool = True) -> float:
        self.n += 1
        stdin = event(self.n)
        start = time.perf_counter()
        done = self.run(argv, stdin)
        took = time.perf_counter() - start
        if check and b"{" not in done.stdout:
            raise RuntimeError(f"{argv} answered {done.stdout!r} {done.stderr!r}")
        return took

    def http(self) -> float:
        self.n += 1
        body = event(self.n)
        request = (
            f"POST /hook/claude-code HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Authorization: Bearer {self.token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.1", self.port)) as conn:
            conn.sendall(request)
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        took = time.perf_counter() - start
        if not answer.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"the HTTP hook answered {answer[:200]!r}")
        timing = answer.partition(b"Server-Timing: hook;dur=")[2].split(b"\r\n", 1)[0]
        self.own.append(float(timing) / 1000)
        return took

    def contenders(self, client_bin: Path) -> dict[str, Callable[[], float]]:
        python, toolhooks = str(client_bin / "python"), str(client_bin / "toolhooks")
        found: dict[str, Callable[[], float]] = {
            BASELINE: lambda: self.timed([python, "-c", "import json"], check=False),
            DAEMON: lambda: self.timed([toolhooks, "hook", "claude-code"]),
            HTTP: self.http,
        }
        if shutil.which("curl"):
            curl = ["curl", "-sf", "--unix-socket", ".toolhooks/agentd.sock", "--data-binary",
                    "@-", "http://agentd/hook/claude-code"]  # fmt: skip
            found[CURL] = lambda: self.timed(curl)
            shell = SHELL_FORM.format(toolhooks=TOOLHOOKS)
            found[SHELL] = lambda: self.timed(["/bin/sh", "-c", shell])
        return found

    def stop(self) -> None:
        subprocess.run([TOOLHOOKS, "agentd", "--stop"], cwd=self.root, env=self.env,
                       capture_output=True, check=False)  # fmt: skip


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(rounds: int, step: int, client_bin: Path = BIN) -> dict[str, object]:
    """Interleaved rounds; every ``step``-th round also times the hook without the daemon."""
    with tempfile.TemporaryDirectory(prefix="toolhooks-bench-agents-") as folder:
        bench = Bench(Path(folder))
        try:
            bench.start()
            contenders = bench.contenders(client_bin)
            for run in contenders.values():  # warm-up: page cache, .pyc files, the daemon's path
                run()
            bench.timed([TOOLHOOKS, "hook", "claude-code", "--no-daemon"])
            times: dict[str, list[float]] = {name: [] for name in contenders}
            times[IN_PROCESS] = []
            bench.own.clear()
            ratios: list[float] = []
            names = list(contenders)
            for r in range(rounds):
                order = names[r % len(names) :] + names[: r % len(names)]
                got = {name: contenders[name]() for name in order}
                for name, took in got.items():
                    times[name].append(took)
                ratios.append(got[DAEMON] / got[BASELINE])
                if r % step == 0:
                    times[IN_PROCESS].append(
                        bench.timed([TOOLHOOKS, "hook", "claude-code", "--no-daemon"])
                    )
            calls = sum(
                1
                for line in (bench.root / "events.jsonl").read_text().splitlines()
                if '"tool.proposed"' in line
            )
        finally:
            bench.stop()
    times[OWN] = bench.own
    baseline = statistics.median(times[BASELINE])
    rows = {
        name: {
            "median_ms": statistics.median(found) * 1000,
            "p99_ms": percentile(found, 0.99) * 1000,
            "runs": len(found),
            "x_baseline": statistics.median(found) / baseline,
        }
        for name, found in times.items()
    }
    return {
        "rows": rows,
        "paired_ratio": statistics.median(ratios),
        "calls_logged": calls,
        "load": os.getloadavg(),
        "console_script_is_the_dispatcher": "toolhooks._main"
        in (client_bin / "toolhooks").read_text(),
        "client_bin": str(client_bin),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--step", type=int, default=4, help="no-daemon every STEP-th round")
    parser.add_argument("--json", help="also write the numbers to this file")
    parser.add_argument("--quick", action="store_true", help="3 rounds: checks that it runs")
    parser.add_argument("--client-bin", type=Path, default=BIN, help="see above (default: ours)")
    args = parser.parse_args(argv)
    result = measure(
        3 if args.quick else args.rounds, 1 if args.quick else args.step, args.client_bin
    )
    if not result["console_script_is_the_dispatcher"]:
        print(
            f"note: {TOOLHOOKS} predates toolhooks._main: pip install -e . again", file=sys.stderr
        )
    rows = result["rows"]
    assert isinstance(rows, dict)
    print(f"load average {result['load']}")
    print(f"| | median | p99 | runs | x {BASELINE} |\n|---|---|---|---|---|")
    for name, row in rows.items():
        print(f"| {name} | {row['median_ms']:.1f} ms | {row['p99_ms']:.1f} ms | {row['runs']} | "
              f"{row['x_baseline']:.2f}x |")  # fmt: skip
    print(f"paired ratio, daemon hook / baseline (median of rounds): {result['paired_ratio']:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
