"""What the daemon answers, per listener and path.

On the Unix socket (this user only):

- ``POST /run/AGENT``: the hook client's form. The body is the hook's stdin, unchanged;
  ``X-Toolhooks-Config`` is the config the hook resolved (its path's bytes in hex; empty: none).
  The answer's body is the reply's stdout then its stderr, split at
  ``X-Toolhooks-Stdout-Length``, with ``X-Toolhooks-Exit-Code``: the client writes them out
  verbatim without a JSON parser. 409: another config than the daemon's (the hook answers
  in-process).
- ``POST /hook/AGENT``: the HTTP hook's form (``_http.hook_body``), for ``curl --unix-socket``.
- ``GET /status``: the daemon's pid, config, uptime, counts and request deadline, as JSON.
- ``POST /stop``: ``toolhooks agentd --stop``.

A hook's answer carries ``Server-Timing: hook;dur=MS``, the daemon's own time for it.

On 127.0.0.1 (``[agents] http_port``), behind ``_http.Guard``: ``POST /hook/AGENT`` only.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Callable

from ._client import STDIN_LIMIT
from ._http import (
    BadRequest,
    Guard,
    Request,
    TooLarge,
    drain,
    error_response,
    hook_body,
    read_deadline_s,
    read_head,
    response,
    with_body,
)
from ._project import Project
from ._protocol import PROTOCOLS, HookReply
from ._served import Mismatch, Resident

logger = logging.getLogger("toolhooks.agents.agentd")
DRAIN_S = 30.0
"""How long the rest of a body over the limit is read (and dropped) after its answer is sent."""


class Routes:
    """Reads one request from a connection and sends its answer."""

    def __init__(
        self,
        resident: Resident,
        project: Project,
        guard: Guard | None,
        stop: Callable[[], None],
    ) -> None:
        self.resident = resident
        self.project = project
        self.guard = guard
        self._stop = stop
        self.started = time.time()
        self.answered = 0
        self.read_deadline_s, ignored = read_deadline_s(os.environ)
        if ignored is not None:
            logger.warning("agentd: %s", ignored)

    def serve(self, conn: socket.socket, kind: str) -> None:
        limit = max(STDIN_LIMIT + 1, self.resident.settings.max_payload_bytes + 1)
        too_large: TooLarge | None = None
        try:
            deadline = time.monotonic() + self.read_deadline_s
            timeout = conn.gettimeout()
            head, rest = read_head(conn, deadline)
            if kind == "tcp":
                # Who asks is known from the head: nobody without the token makes the daemon
                # read (and hold) a body.
                assert self.guard is not None
                refused = self.guard.check(head)
                if refused is not None:
                    raise refused
            try:
                request = with_body(conn, head, rest, limit, deadline)
            except TooLarge as big:
                answer, too_large = self._too_large(head, kind, big), big
            else:
                answer = self.route(request, kind)
        except BadRequest as bad:
            answer = error_response(bad.status, str(bad))
        except (OSError, TimeoutError):
            return  # the peer went away or stalled: nobody to answer
        with contextlib.suppress(OSError):
            conn.settimeout(timeout)  # the answer gets the socket's own timeout again
            conn.sendall(answer)
        if too_large is not None:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_WR)
            drain(conn, too_large.unread, time.monotonic() + DRAIN_S)

    def _hook_agent(self, request: Request, kind: str) -> tuple[str, str] | None:
        """``(section, agent)`` when ``request`` asks for a hook's answer on this listener."""
        section, _, agent = request.path.split("?", 1)[0].lstrip("/").partition("/")
        if section == "hook" or (section == "run" and kind == "unix"):
            return section, agent
        return None

    def route(self, request: Request, kind: str) -> bytes:
        method, path = request.method, request.path.split("?", 1)[0]
        hook = self._hook_agent(request, kind)
        if hook is not None:
            section, agent = hook
            if method != "POST":
                raise BadRequest(405, f"{path} takes POST")
            if agent not in PROTOCOLS:
                raise BadRequest(404, f"no agent {agent!r} (known: {', '.join(PROTOCOLS)})")
            if section == "run":
                return self._run(request, agent)
            start = time.perf_counter()
            status, body = hook_body(self._answer(agent, request.body, self.resident.config))
            timing = {"Server-Timing": _timing(start)}
            return response(status, body, content_type="application/json", headers=timing)
        if kind == "unix" and path == "/status" and method == "GET":
            return response(200, self._status(), content_type="application/json")
        if kind == "unix" and path == "/stop" and method == "POST":
            self._stop()
            return response(200, b'{"stopping": true}', content_type="application/json")
        raise BadRequest(404, f"nothing at {method} {path}")

    def _too_large(self, request: Request, kind: str, big: TooLarge) -> bytes:
        """An HTTP hook's event over the limit is refused in the agent's protocol, as any other
        event toolhooks cannot read, and logged: Claude Code reads a 413 as a non-blocking error
        and runs the tool. Any other request gets the 413 (the hook client's ``/run`` form then
        answers in-process, which refuses the event as too big)."""
        hook = self._hook_agent(request, kind)
        if hook is None or hook[0] != "hook" or request.method != "POST":
            raise big
        agent = hook[1]
        if agent not in PROTOCOLS:
            raise big
        start = time.perf_counter()
        logger.warning("agentd: refused a %s hook event: %s", agent, big)
        reply = self.resident.refuse(agent, f"the hook event is too big: {big}", big.size)
        self.answered += 1
        status, body = hook_body(reply)
        timing = {"Server-Timing": _timing(start)}
        return response(status, body, content_type="application/json", headers=timing)

    def _run(self, request: Request, agent: str) -> bytes:
        start = time.perf_counter()
        given = request.headers.get("x-toolhooks-config", "")
        try:
            config = os.fsdecode(bytes.fromhex(given)) if given else None
        except ValueError:
            raise BadRequest(400, "X-Toolhooks-Config is not hex") from None
        try:
            reply = self._answer(agent, request.body, config)
        except Mismatch as mismatch:
            raise BadRequest(409, str(mismatch)) from None
        return _run_response(reply, start)

    def _answer(self, agent: str, raw: bytes, config: str | None) -> HookReply:
        try:
            reply = self.resident.answer(agent, raw, config)
        except Mismatch:
            raise
        except Exception as error:  # the bridge never raises; if it did, still fail closed
            logger.exception("agentd: a %s hook event failed", agent)
            reason = f"toolhooks failed: {type(error).__name__}: {error}"
            reply = self.resident.refuse(agent, reason, len(raw))
        self.answered += 1
        return reply

    def _status(self) -> bytes:
        status = {
            "pid": os.getpid(),
            "root": self.project.root,
            "config": self.resident.config,
            "uptime_s": round(time.time() - self.started, 3),
            "answered": self.answered,
            "reloads": self.resident.reloads,
            "broken": self.resident.broken,
            "http_port": self.guard.port if self.guard is not None else None,
            "read_deadline_s": self.read_deadline_s,
        }
        return json.dumps(status).encode()

    def refuse_peer(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            conn.sendall(error_response(403, "this daemon answers its own user only"))


def _run_response(reply: HookReply, start: float) -> bytes:
    """The hook client's form of ``reply`` (``POST /run/AGENT``)."""
    out = reply.stdout.encode("utf-8", "surrogatepass")
    err = reply.stderr.encode("utf-8", "surrogatepass")
    headers = {
        "X-Toolhooks-Exit-Code": str(reply.exit_code),
        "X-Toolhooks-Stdout-Length": str(len(out)),
        "Server-Timing": _timing(start),
    }
    return response(200, out + err, content_type="application/octet-stream", headers=headers)


def _timing(start: float) -> str:
    """The daemon's own time for a hook (``Server-Timing``), to tell it from the round trip."""
    return f"hook;dur={(time.perf_counter() - start) * 1000:.3f}"
