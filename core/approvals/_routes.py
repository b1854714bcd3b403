"""The approval routes named by ``[approvals] route``: ``queue`` (the store) and ``tty``.

Both are plain sync callables: the runtime runs them in a daemon thread under the request's
timeout, so they may block. Each also enforces the deadline itself (``PendingApproval.expires_at``)
so that a thread the runtime gave up on does not linger.

The queue route waits on the runtime's approval store (a SQLite file, or Redis with ``[state]
url``): the pipeline records the approval there before asking (``stores_rows``), an operator
decides it from another process (``toolhooks approvals approve``), and the pipeline consumes it
once the answer is in, so an allow-once is used exactly once. ``[approvals] wait_s = 0`` defers at
once; a smaller ``wait_s`` than the request's timeout defers when it runs out.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import shlex
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..config._settings import LoadedConfig, discover, load_config
from ..pipeline._driver import TimedOut
from ..records._decisions import ApprovalDecision
from ..records._frozen import thaw
from ..records._results import PendingApproval
from ..stores._contract import ApprovalStore
from ._resolve import ApprovalUnavailable, Approver

NO_TTY = "no terminal to ask on (/dev/tty cannot be opened)"
TTY_EOF = "the terminal closed (end of file) before an answer"
PARAMS_HEAD = 1500
PARAMS_TAIL = 500
"""The prompt shows this many characters of long params from the start and from the end."""
_ANSWERS = {
    "o": "allow-once",
    "once": "allow-once",
    "a": "allow-always",
    "always": "allow-always",
    "d": "deny",
    "deny": "deny",
    "n": "deny",
    "no": "deny",
}
_LABELS = {"allow-once": "[o]nce", "allow-always": "[a]lways", "deny": "[d]eny"}


def approver_for_route(route: str, config: LoadedConfig, store: ApprovalStore) -> Approver:
    """The approver for a configured route; the queue route waits on ``store``."""
    if route == "queue":
        return QueueApprover(store, config.approvals.wait_s, cli_flags(config, store))
    if route == "tty":
        return TtyApprover()
    raise config.error(
        f"unknown approval route {route!r} (expected none, queue or tty)", "approvals", "route"
    )


def cli_flags(config: LoadedConfig, store: ApprovalStore) -> str:
    """What ``toolhooks approvals`` needs, run in this directory, to find this runtime's store."""
    try:
        found, _ = discover()
        same = found is not None and config.source is not None
        same = same and Path(str(found)).resolve() == Path(str(config.source)).resolve()
        cli_db = Path(load_config(found).approvals.db).expanduser().absolute()
    except Exception:  # the operator's default cannot be read: name the store explicitly
        same, cli_db = False, None
    path = getattr(store, "path", None)
    if isinstance(path, Path):  # SQLite: --db unless the CLI's default is this very file
        return "" if cli_db == path else f" --db {_quote(str(path))}"
    if same or config.source is None:
        return ""
    return f" --config {_quote(str(Path(str(config.source)).absolute()))}"


def _quote(text: str) -> str:
    return shlex.quote(printable(text, keep=""))


class QueueApprover:
    """Wait on the approval store until someone decides, the request times out, or ``wait_s``."""

    stores_rows = True
    """The pipeline records the approval in the store before asking, and consumes it after."""
    COMMAND = "approve {}"

    def __init__(
        self,
        store: ApprovalStore,
        wait_s: float | None = None,
        flags: str = "",
        stream: IO[str] | None = None,
    ) -> None:
        self.store = store
        self.wait_s = wait_s
        self.flags = flags
        self.stream = stream

    def _say(self, pending: PendingApproval, what: str) -> None:
        """One stderr line: which approval, and the exact command that approves it."""
        short = pending.short_id or pending.id
        line = (
            f"toolhooks: approval {short} {what} ({printable(pending.request.title, keep='')}, "
            f"tool {printable(pending.call.name, keep='')}): "
            f"toolhooks approvals {self.COMMAND.format(short)}{self.flags}"
        )
        stream = self.stream if self.stream is not None else sys.stderr
        # stderr closed: the approval itself must still work
        with contextlib.suppress(OSError, ValueError):
            print(line, file=stream, flush=True)

    def __call__(self, pending: PendingApproval) -> ApprovalDecision | str:
        if self.wait_s == 0:
            self._say(pending, "deferred")
            return "defer"
        remaining = pending.expires_at - time.time()
        wait = remaining if self.wait_s is None else min(self.wait_s, remaining)
        deferring = wait < remaining
        self._say(pending, "is waiting for a decision")
        row = self.store.wait(pending.id, wait)
        if row is None:
            raise ApprovalUnavailable(f"approval {pending.short_id} left the store")
        if row.state in ("decided", "consumed") and row.decision is not None:
            # Consumed already: a twin call took it; the pipeline sees that and asks again.
            return ApprovalDecision(row.decision, row.reason, row.decided_by, row.decided_params)
        if row.state == "consumed":
            raise ApprovalUnavailable(f"approval {pending.short_id} was closed elsewhere")
        if row.state == "pending" and deferring:
            return "defer"
        raise TimedOut(pending.request.timeout_s)


def printable(text: str, keep: str = "\n\t") -> str:
    """Printable text only (escapes shown instead): a hostile title must not drive a terminal."""
    return "".join(ch if ch.isprintable() or ch in keep else repr(ch)[1:-1] for ch in text)


def clip(text: str, head: int = PARAMS_HEAD, tail: int = PARAMS_TAIL) -> str:
    """``text``'s head and tail, with the length and sha256 of what was cut between them."""
    if len(text) <= head + tail:
        return text
    cut = text[head : len(text) - tail]
    digest = hashlib.sha256(cut.encode("utf-8", "surrogatepass")).hexdigest()
    return (
        f"{text[:head]}\n[... {len(cut)} characters cut of {len(text)}, "
        f"sha256 {digest} ...]\n{text[len(text) - tail :]}"
    )


def describe(pending: PendingApproval) -> str:
    """What the operator reads before deciding; one line per field, whatever the text holds.

    Newlines and control characters in caller-controlled text are shown escaped, so that a
    description cannot draw prompt lines of its own.
    """
    request, call = pending.request, pending.call
    params = json.dumps(
        thaw(call.params), indent=2, sort_keys=True, ensure_ascii=True, default=repr
    )
    sender = call.sender.id if call.sender else "-"

    def one(text: str) -> str:
        return printable(text, keep="")

    lines = [
        "",
        f"=== Approval requested: {one(request.title)} ===",
        one(request.description),
        f"severity: {request.severity}   tool: {one(call.name)}   plugin: {one(pending.plugin)}",
        f"sender: {one(sender)}   session: {one(call.session_id or '-')}   "
        f"id: {one(pending.short_id or pending.id)}",
        "params:",
        *("  " + one(line) for line in clip(params).splitlines()),
    ]
    return "\n".join(lines) + "\n"


class _Terminal:
    """A line-oriented terminal: a tty file descriptor, or a pair of text streams (tests)."""

    def __init__(
        self, fd: int | None = None, input: IO[str] | None = None, output: IO[str] | None = None
    ) -> None:
        self.fd, self.input, self.output = fd, input, output

    def write(self, text: str) -> None:
        if self.fd is not None:
            os.write(self.fd, text.encode("utf-8", "replace"))
        elif self.output is not None:
            self.output.write(text)
            self.output.flush()

    def readline(self, deadline: float) -> str | None:
        """One line without its newline; None at end of file; TimedOut past ``deadline``."""
        if self.fd is None:
            line = self.input.readline() if self.input is not None else ""
            return line.rstrip("\r\n") if line else None
        data = b""
        while not data.endswith(b"\n"):
            remaining = deadline - time.time()
            if remaining <= 0:
                raise TimedOut(0.0)
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self.fd, 1024)
            if not chunk:
                return data.decode("utf-8", "replace") if data else None
            data += chunk
        return data.decode("utf-8", "replace").rstrip("\r\n")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


def _open_tty() -> _Terminal | None:
    try:
        return _Terminal(fd=os.open("/dev/tty", os.O_RDWR | getattr(os, "O_NOCTTY", 0)))
    except OSError:
        return None


class TtyApprover:
    """Ask on the controlling terminal (``/dev/tty``, so it works with piped stdio).

    One prompt at a time; no terminal or end of file is a deny with a reason saying so.
    ``input`` / ``output`` replace the terminal (tests, embedding).
    """

    _lock = threading.Lock()

    def __init__(self, input: IO[str] | None = None, output: IO[str] | None = None) -> None:
        self._opener: Callable[[], _Terminal | None] = _open_tty
        if input is not None:
            self._opener = lambda: _Terminal(input=input, output=output)

    def __call__(self, pending: PendingApproval) -> ApprovalDecision:
        deadline = pending.expires_at
        if not self._lock.acquire(timeout=max(0.0, deadline - time.time())):
            raise TimedOut(pending.request.timeout_s)
        try:
            terminal = self._opener()
            if terminal is None:
                raise ApprovalUnavailable(NO_TTY)
            try:
                return self._ask(terminal, pending, deadline)
            finally:
                terminal.close()
        finally:
            self._lock.release()

    def _ask(
        self, terminal: _Terminal, pending: PendingApproval, deadline: float
    ) -> ApprovalDecision:
        allowed = [d for d in _LABELS if d in pending.request.allowed_decisions or d == "deny"]
        terminal.write(describe(pending))
        prompt = f"Allow this call? {' / '.join(_LABELS[d] for d in allowed)}: "
        while True:
            terminal.write(prompt)
            try:
                line = terminal.readline(deadline)
            except TimedOut:
                terminal.write("\n(no answer in time: denied)\n")
                raise TimedOut(pending.request.timeout_s) from None
            if line is None:
                terminal.write("\n")
                raise ApprovalUnavailable(TTY_EOF)
            decision = _ANSWERS.get(line.strip().lower())
            if decision in allowed:
                return ApprovalDecision(decision, None, "tty")
            terminal.write(f"Please answer {', '.join(_LABELS[d] for d in allowed)}.\n")
