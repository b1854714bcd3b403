"""``toolhooks hook AGENT``: hand one hook event to the project's daemon and print its answer.

The agent runs this around every tool call and waits for it, so it imports only the stdlib
(``os``, ``sys``, ``socket``; the protocol modules and the runtime only on the slow paths) and
is reached from the console script without importing the command line (``toolhooks._main``).

1. Read stdin (at most ``STDIN_LIMIT`` + 1 bytes: the daemon refuses what is over
   ``[agents] max_payload_bytes``, in the agent's protocol) and find the project
   (``_project``); move to its root.
2. Send the event to ``.toolhooks/agentd.sock`` (``POST /run/AGENT``, ``_routes``) and write the
   answer's stdout and stderr verbatim; exit with its code.
3. No daemon: start one (``toolhooks agentd --foreground``, in a session of its own, its output
   to ``.toolhooks/agentd.log``), wait for its socket up to ``START_WAIT_S``, ask again.
4. A daemon that cannot start, refuses this config (409), or dies before its
   answer is complete (EOF: killed mid-call): answer in this process (``run_in_process``,
   slow but correct; the before event's hand-over file makes a call decided by the dead daemon
   finishable here).
5. If even that fails: refuse in the agent's own protocol (fail closed), unless the config says
   ``[agents] on_error = "allow"`` (read with the stdlib's TOML parser).

The hook always answers, within its deadline (``_project.DEADLINE_S``, under every agent's hook
timeout; ``[agents] deadline_s`` lowers it): a timer armed first thing (``SIGALRM``: it
interrupts any wait of this process) refuses the event and exits when it expires. This process
only waits (for stdin, the daemon, a child); the work is done by the daemon or by a child
process (``_no_daemon.in_child``, with a memory limit) that a late, crashed, killed or
out-of-memory run cannot take this process down with. A daemon that has not answered by the
deadline is not asked again in-process (the call might then be decided twice, and an approval
waited for twice): the event is refused.

Starting a daemon, answering in-process and refusing are ``_no_daemon``, imported only on those
paths: a hook its daemon answers imports this module and ``_project``, nothing else of ours.
"""

from __future__ import annotations

import _socket  # the C module: ``socket`` itself imports ``selectors`` and ``enum`` (ms)
import os
import sys
import time

from . import _project
from ._project import Project, ProjectError

TYPE_CHECKING = False  # not ``typing``'s: importing typing costs the hook client milliseconds
if TYPE_CHECKING:
    import signal as _signal  # the same functions and constants, typed

    from ._no_daemon import Answer
else:
    import _signal  # the C module: ``signal`` itself imports ``enum`` (ms)

STDIN_LIMIT = 32 * 1024 * 1024
"""What the hook reads at most (one byte more tells it the event was bigger): four times
``[agents] max_payload_bytes``' default, so an event over the default limit is still refused
saying how big it was."""
START_WAIT_S = 10.0
"""How long a hook waits for the daemon it started (building a runtime: 0.3-3 s on a loaded
machine). A daemon that fails says so sooner, by exiting."""
CONNECT_TIMEOUT_S = 5.0
SEND_TIMEOUT_S = 60.0
REFUSE_MARGIN_S = 0.5
"""What the deadline keeps back for refusing: a daemon that has not answered this long before
the deadline is given up on, so the refusal names it."""

ABSENT, FALLBACK, TIMEOUT = "absent", "fallback", "timeout"


class _Hook:
    """What the deadline's refusal needs: the event, the policy on errors, the child to end.
    Module state, because a signal handler receives none."""

    agent = ""
    raw = b""
    on_error = "deny"
    started = 0.0
    ends_at = 0.0
    child = 0


def arm(agent: str, deadline_s: float) -> None:
    """Refuse and exit once ``deadline_s`` have passed since the hook's first ``arm``; a second
    call only ever brings the deadline earlier."""
    now = time.monotonic()
    _Hook.started = _Hook.started or now
    ends_at = _Hook.started + deadline_s
    if _Hook.ends_at and _Hook.ends_at <= ends_at:
        return
    _Hook.agent, _Hook.ends_at = agent, ends_at
    _signal.signal(_signal.SIGALRM, _expired)
    _signal.setitimer(_signal.ITIMER_REAL, max(ends_at - now, 0.001))


def disarm() -> None:
    """The answer is about to be written: the deadline must not write a second one."""
    _signal.setitimer(_signal.ITIMER_REAL, 0)


def left_s() -> float:
    """Seconds until the deadline (large when none is armed)."""
    return _Hook.ends_at - time.monotonic() if _Hook.ends_at else 3600.0


def _expired(signum: int, frame: object) -> None:
    if _Hook.child:
        try:  # noqa: SIM105 - contextlib is one more import on every hook
            os.kill(_Hook.child, _signal.SIGKILL)
        except OSError:
            pass
    try:
        from ._no_daemon import refuse

        reason = "toolhooks did not decide in time (the hook's deadline passed)"
        out, err, code = refuse(_Hook.agent, _Hook.raw, reason, on_error=_Hook.on_error)
    except BaseException:  # even the protocol cannot be rendered: block, as exit 2 says
        out, err, code = b"", b"toolhooks: the hook did not decide in time\n", 2
    _write(1, out)
    _write(2, err)
    os._exit(code)


def main(agent: str, argv: list[str]) -> int:
    """``toolhooks hook AGENT [--config FILE] [--no-daemon]``; the exit code is the reply's."""
    config: str | None = None
    daemon = True
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--config" and args:
            config = args.pop(0)
        elif arg.startswith("--config="):
            config = arg.partition("=")[2]
        elif arg == "--no-daemon":
            daemon = False
        else:
            os.write(2, f"toolhooks hook {agent}: unknown argument {arg!r}\n".encode())
            return 2
    if hasattr(_signal, "setitimer"):
        arm(agent, _project.DEADLINE_S)
    raw = _Hook.raw = _read_stdin()
    try:
        out, err, code = answer(agent, raw, config=config, daemon=daemon)
    except Exception as error:  # even the agent's protocol failed: block, as its exit 2 says
        out, err, code = b"", f"toolhooks: the hook failed: {error!r}\n".encode(), 2
    if hasattr(_signal, "setitimer"):
        disarm()
    _write(1, out)
    _write(2, err)
    return code


def answer(agent: str, raw: bytes, *, config: str | None = None, daemon: bool = True) -> Answer:
    """The answer to one hook event of ``agent``: from the daemon, else in-process, else refused."""
    try:
        project = _project.find_project(os.getcwd(), os.environ, config=config)
        os.chdir(project.root)
    except (ProjectError, OSError) as error:
        from ._no_daemon import refuse

        return refuse(agent, raw, f"the config cannot be read: {error}", on_error="deny")
    _Hook.on_error = _project.on_error(project)
    if _Hook.ends_at:
        arm(agent, _project.deadline_s(project))
    for warning in project.warnings:
        _write(2, f"toolhooks: warning: {warning}\n".encode())
    problem = _project.state_dir_problem(_project.STATE_DIR)
    if problem is not None:  # its files may be planted (approvals, hand-over): fail closed
        from ._no_daemon import refuse

        return refuse(agent, raw, f"the state folder is refused: {problem}", on_error="deny")
    if daemon and hasattr(os, "posix_spawn") and hasattr(_socket, "AF_UNIX"):
        try:
            got = via_daemon(project, agent, raw)
        except Exception:  # whatever went wrong on the way to the daemon: answer here instead
            got = FALLBACK
        if isinstance(got, tuple):
            return got
        if got == TIMEOUT:
            from ._no_daemon import refuse

            reason = "the toolhooks daemon did not answer before the hook's deadline"
            return refuse(agent, raw, reason, on_error=_Hook.on_error)
    from ._no_daemon import in_child

    return in_child(project, agent, raw, track=_track)


def _track(pid: int) -> None:
    _Hook.child = pid


def via_daemon(project: Project, agent: str, raw: bytes) -> Answer | str:
    """The daemon's answer, starting the daemon if there is none; else ``FALLBACK`` or
    ``TIMEOUT``."""
    got = ask(project, agent, raw)
    if got != ABSENT:
        return got
    from ._no_daemon import spawn

    try:
        pid = spawn(project)
    except (OSError, NotImplementedError):  # no .toolhooks/ here, no setsid on this platform
        return FALLBACK
    deadline = time.monotonic() + START_WAIT_S
    delay = 0.002
    respawned = False
    while True:
        got = ask(project, agent, raw)
        if got != ABSENT:
            return got
        exited, status = os.waitpid(pid, os.WNOHANG)
        if exited:
            if os.waitstatus_to_exitcode(status) != 0 or respawned:
                return FALLBACK  # it could not start (the reason is in .toolhooks/agentd.log)
            # It exited 0: another daemon was serving, and has just left (idle). Once more.
            pid, respawned = spawn(project), True
        if time.monotonic() > deadline:
            return FALLBACK
        time.sleep(delay)  # polling the socket the daemon is binding, bounded by the deadline
        delay = min(delay * 2, 0.05)


def ask(project: Project, agent: str, raw: bytes) -> Answer | str:
    """One request to the daemon: its answer, ``ABSENT`` (no daemon), ``FALLBACK`` or
    ``TIMEOUT``."""
    try:
        info = os.lstat(_project.SOCKET)
    except FileNotFoundError:
        return ABSENT
    except OSError:
        return FALLBACK
    # Only a socket this user created is trusted: nobody else can make one owned by us.
    if (info.st_mode & 0o170000) != 0o140000 or info.st_uid != os.getuid():
        return FALLBACK
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(CONNECT_TIMEOUT_S)
        try:
            conn.connect(_project.SOCKET)
        except (FileNotFoundError, ConnectionRefusedError):
            return ABSENT  # a socket file left by a daemon that is gone
        except OSError:
            return FALLBACK
        if not peer_is_me(conn):
            return FALLBACK  # the file checked above may have been swapped since: not ours
        named = os.fsencode(project.config).hex() if project.config else ""
        head = (
            f"POST /run/{agent} HTTP/1.1\r\nHost: agentd\r\nContent-Length: {len(raw)}\r\n"
            f"X-Toolhooks-Config: {named}\r\n\r\n"
        ).encode("ascii")
        conn.settimeout(SEND_TIMEOUT_S)
        try:
            if len(raw) < 65536:
                conn.sendall(head + raw)
            else:  # no copy of a big event
                conn.sendall(head)
                conn.sendall(raw)
        except OSError:
            pass  # it may have answered already (and closed): read what it said
        conn.settimeout(max(left_s() - REFUSE_MARGIN_S, 0.001))
        return _read_answer(conn)
    finally:
        conn.close()


def peer_is_me(conn: _socket.socket) -> bool:
    """Whether the process listening at the other end of ``conn`` runs as this user (Linux
    ``SO_PEERCRED``, read after connecting: a check of the socket file before connecting can be
    raced by swapping the file). Elsewhere the file's owner and its 0700 folder are the check."""
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        creds = conn.getsockopt(_socket.SOL_SOCKET, option, 12)  # struct ucred: pid, uid, gid
    except OSError:
        return False
    return int.from_bytes(creds[4:8], sys.byteorder) == os.getuid()


def _read_answer(conn: _socket.socket) -> Answer | str:
    data = bytearray()
    need = -1
    head_end = -1
    try:
        while need < 0 or len(data) < need:
            chunk = conn.recv(65536 if need < 0 else max(need - len(data), 65536))
            if not chunk:
                return FALLBACK  # EOF before a whole answer: the daemon died mid-call
            data += chunk
            if need < 0:
                head_end = data.find(b"\r\n\r\n")
                if head_end >= 0:
                    headers = _headers(bytes(data[:head_end]))
                    if headers is None:
                        return FALLBACK
                    need = head_end + 4 + int(headers.get("content-length", "0"))
    except TimeoutError:
        return TIMEOUT
    except OSError:
        return FALLBACK
    headers = _headers(bytes(data[:head_end]))
    if headers is None or headers.get(":status") != "200":
        return FALLBACK  # 409 another config, any other error: this process answers instead
    try:
        split = int(headers["x-toolhooks-stdout-length"])
        code = int(headers["x-toolhooks-exit-code"])
    except (KeyError, ValueError):
        return FALLBACK
    body = bytes(data[head_end + 4 : need])
    return body[:split], body[split:], code


def _headers(head: bytes) -> dict[str, str] | None:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        return None
    found = {":status": parts[1]}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        found[name.strip().lower()] = value.strip()
    if not found.get("content-length", "0").isdigit():
        return None
    return found


def call(method: str, path: str) -> tuple[int, bytes] | None:
    """One bodiless request to the daemon of the project in the cwd (``toolhooks agentd
    --status`` / ``--stop``): its status and body, or None when no daemon answers."""
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(CONNECT_TIMEOUT_S)
        conn.connect(_project.SOCKET)
        if not peer_is_me(conn):
            return None
        conn.sendall(f"{method} {path} HTTP/1.1\r\nHost: agentd\r\n\r\n".encode("ascii"))
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    except OSError:
        return None
    finally:
        conn.close()
    head, _, body = data.partition(b"\r\n\r\n")
    headers = _headers(head)
    if headers is None:
        return None
    return int(headers[":status"]), body


def _read_stdin() -> bytes:
    stdin = sys.stdin
    if stdin is None:
        return b""
    try:
        return stdin.buffer.read(STDIN_LIMIT + 1)
    except (OSError, ValueError):
        return b""


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except OSError:
            return  # the agent stopped reading: nothing more to tell it
        view = view[written:]
