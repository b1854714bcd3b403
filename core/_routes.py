"""The approval routes named by ``[approvals] route``: ``queue`` (SQLite) and ``tty`` (terminal).

Both are plain sync callables: the runtime runs them in a daemon thread under the request's
timeout, so they may block. Each also enforces the deadline itself (``PendingApproval.expires_at``)
so that a thread the runtime gave up on does not linger.

Restart of the agent (queue route): an approval row is keyed by the call's digest (tool, frozen
params, sender, session) plus the requesting plugin. When a call is proposed, the approver first
looks for a row with the same digest and plugin that is not past its deadline and was never
picked up: still pending (the agent that asked died while waiting), or decided while no agent was
waiting. It waits on / takes that row instead of creating a new one. Picking up a decision marks
the row consumed (atomically, once), so an allow-once is used by exactly one call.
"""

from __future__ import annotations

import json
import os
import select
import threading
import time
from collections.abc import Callable
from typing import IO

from ._approvals import ApprovalUnavailable, Approver
from ._config import LoadedConfig
from ._driver import TimedOut
from ._frozen import thaw
from ._models import new_id
from ._queue import ApprovalQueue
from ._results import ApprovalDecision, PendingApproval

NO_TTY = "no terminal to ask on (/dev/tty cannot be opened)"
TTY_EOF = "the terminal closed (end of file) before an answer"
PARAMS_SHOWN = 2000
_ANSWERS = {"o": "allow-once", "once": "allow-once", "a": "allow-always", "always": "allow-always",
            "d": "deny", "deny": "deny", "n": "deny", "no": "deny"}  # fmt: skip
_LABELS = {"allow-once": "[o]nce", "allow-always": "[a]lways", "deny": "[d]eny"}


def approver_for_route(route: str, config: LoadedConfig) -> Approver:
    """The approver for a configured route; relative db paths are relative to the cwd now."""
    if route == "queue":
        table = config.approvals
        return QueueApprover(ApprovalQueue(table.db), table.poll_interval_s)
    if route == "tty":
        return TtyApprover()
    raise config.error(
        f"unknown approval route {route!r} (expected none, queue or tty)", "approvals", "route"
    )


class QueueApprover:
    """Submit the approval to the SQLite queue and poll until it is decided or expires."""

    def __init__(self, queue: ApprovalQueue, poll_interval_s: float = 0.2) -> None:
        self.queue = queue
        self.poll_interval_s = poll_interval_s

    def __call__(self, pending: PendingApproval) -> ApprovalDecision:
        queue = self.queue
        row_id = pending.id
        try:
            while time.time() < pending.expires_at:
                row = queue.submit_or_reuse(pending, id=row_id)
                remaining = pending.expires_at - time.time()
                decision = queue.wait(row.id, remaining, self.poll_interval_s)
                if decision is not None and queue.consume(row.id):
                    return decision
                # Expired early (a reused row had an earlier deadline), or another call took the
                # decision first: ask again, under a fresh id, for the time that is left.
                row_id = f"appr_{new_id()}"
        finally:
            queue.close()
        raise TimedOut(pending.request.timeout_s)


def printable(text: str, keep: str = "\n\t") -> str:
    """Printable text only (escapes shown instead): a hostile title must not drive a terminal."""
    return "".join(ch if ch.isprintable() or ch in keep else repr(ch)[1:-1] for ch in text)


def describe(pending: PendingApproval) -> str:
    """What the operator reads before deciding."""
    request, call = pending.request, pending.call
    params = json.dumps(
        thaw(call.params), indent=2, sort_keys=True, ensure_ascii=True, default=repr
    )
    if len(params) > PARAMS_SHOWN:
        params = params[:PARAMS_SHOWN] + f"\n[... {len(params) - PARAMS_SHOWN} more characters]"
    sender = call.sender.id if call.sender else "-"
    tool, plugin = printable(call.name), printable(pending.plugin)
    lines = [
        "",
        f"=== Approval requested: {printable(request.title)} ===",
        printable(request.description),
        f"severity: {request.severity}   tool: {tool}   plugin: {plugin}",
        f"sender: {printable(sender)}   session: {printable(call.session_id or '-')}   id: {pending.id}",
        "params:",
        *("  " + line for line in params.splitlines()),
    ]
    return "\n".join(lines) + "\n"


class _Terminal:
    """A line-oriented terminal: a tty file descriptor, or a pair of text streams (tests)."""

    def __init__(self, fd: int | None = None, input: IO[str] | None = None,
                 output: IO[str] | None = None) -> None:  # fmt: skip
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
