"""``toolhooks agentd``: one resident runtime for a project's coding-agent hooks.

Building a runtime and loading the plugins costs a few hundred milliseconds, which a hook would
pay twice per tool call. The daemon pays it once and answers on ``.toolhooks/agentd.sock`` (a
Unix socket, mode 0600, in a 0700 folder; a peer of another user is refused by its credentials
too) and, with ``[agents] http_port``, on 127.0.0.1 for Claude Code's ``type: "http"`` hook.

Life cycle:

- **Start.** Under ``.toolhooks/agentd.lock`` (``flock``): if a daemon answers on the socket,
  this one exits 0 at once (two hooks that start one at the same moment get one daemon);
  otherwise it builds the runtime (a config that does not load: exit 1, the hook answers
  in-process), binds the socket (and the HTTP hook port: one another process holds is exit 1,
  never a daemon on the Unix socket alone), writes ``agentd.pid`` and lets go of the lock.
- **Serve.** Worker threads wait in ``accept`` and each answers the connection it takes
  (``_workers``); the daemon ends after ``[agents] idle_timeout_s`` with none in flight. A
  changed config rebuilds the runtime (``_served``).
- **Stop.** After ``[agents] idle_timeout_s`` (or ``--idle-timeout``) without a request, on
  SIGTERM / SIGINT / SIGHUP or ``toolhooks agentd --stop``: the socket is unlinked first (a hook
  arriving now starts a new daemon), connections already queued are answered, requests in
  flight get ``STOP_GRACE_S`` to finish, the runtime is closed.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator

from . import _project as paths
from ._http import Guard, load_token, tcp_listener
from ._project import Project
from ._routes import Routes
from ._served import Resident
from ._workers import ACCEPT_POLL_S, Workers

logger = logging.getLogger("toolhooks.agents.agentd")
LOCK_WAIT_S = 60.0
"""How long a starting daemon waits for another one's start (building a runtime) to finish."""
STOP_GRACE_S = 10.0
MEMORY_HEADROOM_BYTES = 2 * 1024 * 1024 * 1024
"""What a started daemon's address space may still grow by: its worker threads' stacks and
arenas, and the runs in flight. A run past it gets a ``MemoryError``, answered as a refusal,
where the OOM killer would have ended every run in flight unanswered."""


class AlreadyServing(Exception):
    """Another daemon answers on this project's socket."""


class PortNotOurs(Exception):
    """The HTTP hook port is held by another process: the daemon does not start."""


class Daemon:
    """The resident runtime of one project, serving until idle or stopped."""

    def __init__(
        self, project: Project, *, idle_timeout_s: float | None = None, http_port: int | None = None
    ) -> None:
        self.project = project
        self._idle_given = idle_timeout_s
        self._http_port_given = http_port
        self._stop = threading.Event()
        self.workers = Workers(self._stop)
        self.unix: socket.socket | None = None
        self.tcp: socket.socket | None = None
        self._socket_ino = 0
        self.resident: Resident | None = None
        self.routes: Routes | None = None

    # -- start -------------------------------------------------------------------------------

    def start(self) -> None:
        """Build the runtime and bind the listeners; ``AlreadyServing`` when another daemon does."""
        os.chdir(self.project.root)
        paths.make_private_dir(paths.STATE_DIR)
        with self._startup_lock():
            if _answers(paths.SOCKET):
                raise AlreadyServing(os.path.abspath(paths.SOCKET))
            self.resident = Resident(self.project.config)
            try:
                self.unix = self._bind_unix()
                guard = self._bind_tcp()
            except BaseException:
                self.resident.close()
                raise
            self.routes = Routes(self.resident, self.project, guard, self.request_stop)
            _write_private(paths.PIDFILE, f"{os.getpid()}\n")
        logger.info(
            "agentd %d serving %s (config %s)",
            os.getpid(),
            self.project.path(paths.SOCKET),
            self.project.config or "none: the defaults",
        )

    @contextlib.contextmanager
    def _startup_lock(self) -> Iterator[None]:
        fd = paths.open_private(paths.LOCK, os.O_RDWR | os.O_CREAT)
        try:
            deadline = time.monotonic() + LOCK_WAIT_S
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        message = f"{paths.LOCK} stayed locked for {LOCK_WAIT_S:g} s"
                        raise TimeoutError(message) from None
                    time.sleep(0.02)  # another daemon is starting: poll its lock, bounded
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _bind_unix(self) -> socket.socket:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(paths.SOCKET)  # a stale one: nobody answered on it (checked under the lock)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # created 0600: there is no moment when others may connect
        try:
            server.bind(paths.SOCKET)
        finally:
            os.umask(old)
        os.chmod(paths.SOCKET, 0o600)
        server.listen(128)
        self._socket_ino = os.stat(paths.SOCKET).st_ino
        return server

    def _bind_tcp(self) -> Guard | None:
        """The HTTP hook listener, when a port is configured. A port this daemon cannot bind
        (another process, perhaps another user's, holds it) ends the start: Claude Code's HTTP
        hook would send that process every event and the token, and obey its answers. The port
        file is removed first, so it never names a port this daemon does not hold."""
        port = self._http_port_given
        if port is None and self.resident is not None:
            port = self.resident.settings.http_port
        with contextlib.suppress(FileNotFoundError):
            os.unlink(paths.PORT)
        if port is None:
            return None
        token = load_token(paths.TOKEN)
        try:
            self.tcp = tcp_listener(port)
        except OSError as error:
            raise PortNotOurs(
                f"127.0.0.1:{port} for HTTP hooks cannot be bound ({error.strerror or error}); "
                "another process holds it, and an HTTP hook sent there would give it every event "
                "and the token: free the port or choose another ([agents] http_port, --http-port)"
            ) from None
        bound = self.tcp.getsockname()[1]
        _write_private(paths.PORT, f"{bound}\n")
        logger.info("agentd: HTTP hooks on http://127.0.0.1:%d/hook/AGENT", bound)
        return Guard(token, bound)

    # -- serve -------------------------------------------------------------------------------

    def idle_timeout_s(self) -> float:
        if self._idle_given is not None:
            return self._idle_given
        return self.resident.settings.idle_timeout_s if self.resident is not None else 900.0

    def request_stop(self) -> None:
        self._stop.set()

    def serve(self) -> None:
        """Answer connections until idle or stopped, then shut down."""
        assert self.unix is not None and self.routes is not None
        self.workers.start(self._listeners(), self.routes)
        try:
            while not self._stop.is_set():
                idle_s = self.workers.idle_s()
                left = self.idle_timeout_s() - (idle_s or 0.0)
                if idle_s is not None and left <= 0:
                    logger.info("agentd %d: idle, exiting", os.getpid())
                    break
                self._stop.wait(min(left, 1.0) if idle_s is not None and left > 0 else 1.0)
        finally:
            self.shutdown()

    def _listeners(self) -> list[tuple[socket.socket, str]]:
        found = [(self.unix, "unix")] if self.unix is not None else []
        return found + ([(self.tcp, "tcp")] if self.tcp is not None else [])

    # -- stop --------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Unlink the socket (only if it is still ours: a new daemon may be starting), let the
        workers answer what is already queued, wait for the requests in flight, close the
        runtime."""
        self._stop.set()
        if self.unix is not None:
            with self._startup_lock(), contextlib.suppress(OSError):
                if os.stat(paths.SOCKET).st_ino == self._socket_ino:
                    os.unlink(paths.SOCKET)
        deadline = time.monotonic() + STOP_GRACE_S + ACCEPT_POLL_S
        self.workers.join(deadline)
        for server, _ in self._listeners():
            server.close()
        with contextlib.suppress(OSError):
            with os.fdopen(
                paths.open_private(paths.PIDFILE, os.O_RDONLY), encoding="utf-8"
            ) as handle:
                ours = handle.read().strip() == str(os.getpid())
            if ours:
                os.unlink(paths.PIDFILE)
        if self.resident is not None:
            self.resident.close()


def run(
    project: Project,
    *,
    idle_timeout_s: float | None = None,
    http_port: int | None = None,
    ready: Callable[[Daemon], None] | None = None,
) -> int:
    """``toolhooks agentd --foreground``: 0 when it served (or another daemon serves), 1 when it
    could not start (the reason is logged)."""
    daemon = Daemon(project, idle_timeout_s=idle_timeout_s, http_port=http_port)
    try:
        daemon.start()
    except AlreadyServing as serving:
        logger.info("agentd: another daemon already serves %s", serving)
        return 0
    except Exception as error:
        logger.error("agentd: cannot start: %s: %s", type(error).__name__, error)
        return 1
    from ._no_daemon import limit_memory

    limit_memory(MEMORY_HEADROOM_BYTES)
    previous = {sig: signal.signal(sig, lambda *_: daemon.request_stop()) for sig in _SIGNALS}
    try:
        if ready is not None:
            ready(daemon)
        daemon.serve()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _answers(address: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(2.0)
    try:
        probe.connect(address)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _write_private(path: str, text: str) -> None:
    fd = paths.open_private(path, os.O_WRONLY | os.O_CREAT, truncate=True)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
