"""Helpers for driving the ``toolhooks`` command line.

``cli(ARGS)`` calls ``main(ARGS)`` in this process (the command's own code, with stdout, stderr,
the working folder and the environment of a fresh run); spawning a process per test made these
tests a third of the suite's time. A few tests still run the real console script in a subprocess
or on a pseudo-terminal (``cli.script``, ``cli.module``, ``cli.popen``, ``tty.on_tty``): the
entry point, exit codes as a shell sees them, what a real terminal receives.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from toolhooks.cli import main

TIMEOUT = 120


def script() -> str:
    """The console script installed next to this interpreter (not a shim elsewhere on PATH)."""
    here = Path(sys.executable).parent
    found = shutil.which("toolhooks", path=str(here)) or shutil.which("toolhooks")
    assert found, "the toolhooks console script is not installed (pip install -e .)"
    return found


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)

    def json_lines(self):
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


class Terminal(io.StringIO):
    """A stdout that says it is a terminal (what ``isatty`` tells the CLI, in process)."""

    def isatty(self) -> bool:
        return True


@contextlib.contextmanager
def _environment(env: dict[str, str], cwd: Path) -> Iterator[None]:
    saved, here = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(saved)


class Cli:
    """Runs ``toolhooks ARGS`` in ``cwd`` with a clean, predictable environment."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.env = {
            key: value for key, value in os.environ.items() if not key.startswith("TOOLHOOKS_")
        }
        self.env["COLUMNS"] = "200"
        self.env.pop("PYTHONPATH", None)
        self.site: Path | None = None

    def __call__(
        self,
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        tty: bool = False,
    ) -> Result:
        """``main(ARGS)`` in this process; ``tty``: stdout says it is a terminal.

        With a distribution installed by :meth:`install` (found through ``PYTHONPATH``) the
        command runs in a subprocess instead, so that no test's modules leak into another's.
        """
        if self.site is not None:
            assert not tty, "use tty.on_tty for a subprocess on a terminal"
            return self.script(*args, cwd=cwd, env=env)
        environment = dict(self.env, **(env or {}))
        out, err = (Terminal() if tty else io.StringIO()), io.StringIO()
        streams = sys.stdout, sys.stderr, sys.stdin
        sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO()
        try:
            with _environment(environment, cwd or self.cwd):
                code = main(list(args))
        finally:
            sys.stdout, sys.stderr, sys.stdin = streams
        return Result(code, out.getvalue(), err.getvalue())

    def script(
        self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> Result:
        """The real console script in a subprocess: the entry point, exit codes, stdio."""
        environment = dict(self.env, **(env or {}))
        done = subprocess.run(
            [script(), *args],
            cwd=cwd or self.cwd,
            env=environment,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            encoding="utf-8",
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def module(self, *args: str) -> Result:
        """``python -m toolhooks ARGS``."""
        done = subprocess.run(
            [sys.executable, "-m", "toolhooks", *args],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            encoding="utf-8",
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [script(), *args],
            cwd=self.cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def config(self, text: str, name: str = "toolhooks.toml") -> Path:
        path = self.cwd / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def jsonl(self, name: str, rows: list[dict]) -> Path:
        path = self.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        return path

    def install(self, dist: str, modules: dict[str, str], entry_points: dict[str, str]) -> None:
        """A tiny real distribution (module + dist-info) the subprocess finds via PYTHONPATH."""
        if self.site is None:
            self.site = self.cwd / "_site"
            self.site.mkdir()
            self.env["PYTHONPATH"] = str(self.site)
        for module, source in modules.items():
            (self.site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = self.site / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        lines = "\n".join(f"{name} = {value}" for name, value in entry_points.items())
        (info / "entry_points.txt").write_text(f"[toolhooks]\n{lines}\n")


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    work = tmp_path / "work"
    work.mkdir()
    return Cli(work)
