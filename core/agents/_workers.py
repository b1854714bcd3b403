"""The daemon's workers: threads that wait in ``accept`` and each answer the connection they take.

Leader/followers: the kernel hands a connection to a worker waiting in ``accept``, with no
hand-over between threads. An approval may keep a worker waiting up to ``[agents] wait_s``, so a
worker that takes the last idle place starts another, at most ``MAX_CONNECTIONS`` at once; more
than ``SPARE_WORKERS`` idle ones end. A request that cannot be read is answered with an error and
closed, and nothing a request does ends the daemon. The workers also keep the daemon's idle
clock: how long since the last request, with none in flight.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import threading
import time

from ._routes import Routes

logger = logging.getLogger("toolhooks.agents.agentd")
MAX_CONNECTIONS = 64
"""Hooks answered at once (each may wait up to ``[agents] wait_s`` for an approval); more wait in
the socket's queue."""
SPARE_WORKERS = 2
ACCEPT_POLL_S = 0.5
"""How often a waiting worker looks whether the daemon is stopping."""
READ_TIMEOUT_S = 30.0
"""How long a connection may take to send its request; the answer may take as long as it takes."""


class Workers:
    """The threads answering one daemon's listeners, until ``stop`` is set."""

    def __init__(self, stop: threading.Event) -> None:
        self._stop = stop
        self._state = threading.Lock()
        self._in_flight = 0
        self._last = time.monotonic()
        self._idle: dict[str, int] = {}
        self._workers = 0
        self._threads: list[threading.Thread] = []
        self.routes: Routes | None = None

    def start(self, listeners: list[tuple[socket.socket, str]], routes: Routes) -> None:
        """A first worker on each listener (``kind``: ``"unix"`` or ``"tcp"``)."""
        self.routes = routes
        for server, kind in listeners:
            server.settimeout(ACCEPT_POLL_S)
            self._add_worker(server, kind)

    def idle_s(self) -> float | None:
        """Seconds since the last request ended, or None while one is in flight."""
        with self._state:
            busy, last = self._in_flight, self._last
        return None if busy else time.monotonic() - last

    def join(self, deadline: float) -> None:
        """Wait for the workers (``time.monotonic()`` ``deadline``) to answer what is queued."""
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def _add_worker(self, server: socket.socket, kind: str) -> None:
        with self._state:
            self._idle[kind] = self._idle.get(kind, 0) + 1
            self._workers += 1
        thread = threading.Thread(
            target=self._worker, args=(server, kind), name=f"agentd-{kind}", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    def _worker(self, server: socket.socket, kind: str) -> None:
        """Accept and answer connections on ``server`` (leader/followers: the kernel hands a
        connection to a worker waiting in ``accept``, with no hand-over between threads). A
        worker that takes the last idle place starts another, up to ``MAX_CONNECTIONS``; more
        than ``SPARE_WORKERS`` idle ones end. With the daemon stopping, a worker leaves once no
        connection is left queued (an accept that times out)."""
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                if self._stop.is_set():
                    break
                continue
            except OSError:  # the listener is closed
                break
            with self._state:
                self._idle[kind] -= 1
                self._in_flight += 1
                self._last = time.monotonic()
                more = self._idle[kind] == 0 and self._workers < MAX_CONNECTIONS
            if more:
                self._add_worker(server, kind)
            self._serve_one(conn, kind)
            with self._state:
                self._idle[kind] += 1
                leave = self._idle[kind] > SPARE_WORKERS
                if leave:
                    self._idle[kind] -= 1
                    self._workers -= 1
            if leave:
                return
        with self._state:
            self._idle[kind] -= 1
            self._workers -= 1

    def _serve_one(self, conn: socket.socket, kind: str) -> None:
        assert self.routes is not None
        try:
            conn.settimeout(READ_TIMEOUT_S)  # also undoes the listener's accept timeout
            if kind == "unix" and not _same_user(conn):
                self.routes.refuse_peer(conn)
            else:
                self.routes.serve(conn, kind)
        except Exception:  # one request never ends the daemon
            logger.exception("agentd: a request failed")
        finally:
            with contextlib.suppress(OSError):
                conn.close()
            with self._state:
                self._in_flight -= 1
                self._last = time.monotonic()


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as this daemon's user (Linux ``SO_PEERCRED``; elsewhere the socket's mode
    and its folder's are the whole check)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, 12))
    except OSError:
        return False
    return bool(uid == os.getuid())
