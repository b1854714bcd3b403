"""Fixtures shared by every test folder."""

from __future__ import annotations

import importlib
import importlib.util
import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from toolhooks.testing import require

# No deadlines and no "too slow" health check anywhere: both are timing assertions, and a
# shared CI machine (or hypothesis building its unicode tables on a fresh clone) trips them.
settings.register_profile("toolhooks", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("toolhooks")


CHROMIUM = os.environ.get("TOOLHOOKS_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's headless Chromium driven by Playwright: the desk's pages and the docs site."""
    require(
        os.path.exists(CHROMIUM) or shutil.which("chromium") is not None,
        f"no Chromium at {CHROMIUM} (apt-get install chromium, or set TOOLHOOKS_TEST_CHROMIUM)",
    )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
            headless=True,
            args=CHROMIUM_FLAGS,
        )
        yield browser
        browser.close()


@pytest.fixture
def agentdojo_installed() -> None:
    """AgentDojo's real suites (requirements-dev.txt installs them, as bench/ uses them): a skip on
    a machine without them, a failure under ``CI``."""
    require(
        importlib.util.find_spec("agentdojo") is not None,
        "agentdojo is not installed (pip install -r bench/requirements-agentdojo.txt)",
    )


@pytest.fixture
def install_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Install a tiny real distribution (module + dist-info with entry points) on sys.path.

    Returns the site directory, so that a subprocess can use it as PYTHONPATH too.
    """
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    monkeypatch.syspath_prepend(str(site))
    added: list[str] = []

    def install(
        dist: str, modules: dict[str, str], entry_points: dict[str, str], version: str = "1.0"
    ) -> Path:
        for module, source in modules.items():
            (site / f"{module}.py").write_text(textwrap.dedent(source))
            added.append(module)
        info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        lines = "\n".join(f"{name} = {value}" for name, value in entry_points.items())
        (info / "entry_points.txt").write_text(f"[toolhooks]\n{lines}\n")
        importlib.invalidate_caches()
        return site

    yield install
    for module in added:
        sys.modules.pop(module, None)


class Child:
    """A child process for the crash tests, shared by every test that kills one (the event log,
    its hash chain, the approval queue, the reliability campaign): its output read a line at a
    time with a deadline, straight from the pipe (no buffer of ours can hide a line that came
    early), a SIGKILL that checks it landed, and whatever it said collected at the end."""

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str] | None, stdin: bool):
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._pending = {"stdout": b"", "stderr": b""}

    def _pipe(self, stream: str):
        return self.proc.stdout if stream == "stdout" else self.proc.stderr

    def line(self, stream: str = "stdout", timeout: float = 60.0) -> str:
        """The next line the child writes on ``stream``; fails, saying what the child wrote on
        stderr, when it exits first or nothing comes before the deadline."""
        deadline = time.monotonic() + timeout
        pipe = self._pipe(stream)
        while b"\n" not in self._pending[stream]:
            left = deadline - time.monotonic()
            readable = select.select([pipe], [], [], max(left, 0))[0] if left > 0 else []
            if not readable:
                self.stop()
                raise AssertionError(f"no line on {stream} within {timeout} s{self._said()}")
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                code = self.proc.wait(30)
                raise AssertionError(f"the child exited ({code}) before a line{self._said()}")
            self._pending[stream] += chunk
        line, _, rest = self._pending[stream].partition(b"\n")
        self._pending[stream] = rest
        return line.decode()

    def wait_for(self, text: str, stream: str = "stdout", timeout: float = 60.0) -> str:
        """Read ``stream`` until a line containing ``text``; that line."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.line(stream, max(deadline - time.monotonic(), 0.001))
            if text in line:
                return line

    def write(self, text: str) -> None:
        assert self.proc.stdin is not None, "started without stdin=True"
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def sigkill(self) -> str:
        """Kill the child with SIGKILL (no cleanup of any kind) and return what it had written
        on stdout that was not read yet."""
        os.kill(self.proc.pid, signal.SIGKILL)
        out, _ = self.finish()
        assert self.proc.returncode == -signal.SIGKILL, self.proc.returncode
        return out

    def finish(self, timeout: float = 60.0) -> tuple[str, str]:
        """Wait for the child to end; everything on stdout and stderr not read yet."""
        out, err = self.proc.communicate(timeout=timeout)
        out, err = self._pending["stdout"] + out, self._pending["stderr"] + err
        self._pending = {"stdout": b"", "stderr": b""}
        return out.decode(), err.decode()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=30)

    def _said(self) -> str:
        if self.proc.poll() is None:
            return ""
        err = self._pending["stderr"] + (self.proc.stderr.read() if self.proc.stderr else b"")
        return f"; its stderr: {err.decode(errors='replace')[-3000:]}"


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Callable[..., Child]]:
    """``spawn(*argv, cwd=, env=, stdin=)`` -> a running :class:`Child` (cwd: the test's
    tmp_path); every child still running at the end of the test is killed."""
    started: list[Child] = []

    def start(
        *argv: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: bool = False
    ) -> Child:
        started.append(Child(list(argv), cwd=cwd or tmp_path, env=env, stdin=stdin))
        return started[-1]

    yield start
    for child in started:
        child.stop()
