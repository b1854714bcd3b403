"""Running the real console script on a pseudo-terminal, to see what a person at a TTY sees."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from .conftest import TIMEOUT, Cli, script


def on_tty(cli: Cli, *args: str, columns: int = 80, env: dict[str, str] | None = None) -> str:
    """Stdout of ``toolhooks ARGS`` written to a terminal ``columns`` wide (stderr discarded)."""
    master, slave = pty.openpty()
    environment = dict(cli.env, COLUMNS=str(columns), TERM="xterm", **(env or {}))
    environment.pop("NO_COLOR", None) if env is None or "NO_COLOR" not in env else None
    process = subprocess.Popen(
        [script(), *args],
        cwd=Path(cli.cwd),
        env=environment,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    os.close(slave)
    chunks = []
    try:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the other side closed
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        process.wait(timeout=TIMEOUT)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
