"""The hook client's slow paths, imported only when the project's daemon does not answer: start
the daemon (``spawn``), answer in a child of this process (``in_child``, else ``in_process``), or
refuse in the agent's own protocol (``refuse``). Stdlib only, like ``_client``, until a runtime
is really built here.
"""

from __future__ import annotations

import os
import sys

from ..kit._process import toolhooks_argv
from . import _project
from ._project import Project

TYPE_CHECKING = False  # not ``typing``'s: the hook client imports this module on its slow paths
if TYPE_CHECKING:
    from collections.abc import Callable

Answer = tuple[bytes, bytes, int]
"""What the hook writes: stdout, stderr, exit code."""
LOG_LIMIT = 1024 * 1024
"""``.toolhooks/agentd.log`` is started afresh by the next daemon once it is bigger than this."""
MEMORY_HEADROOM_BYTES = 1024 * 1024 * 1024
"""The address space a child answering in-process may add to what the hook had when it forked:
a runtime with its plugins needs a few hundred MiB; a script whose analysis doubles a word 40
times would take gigabytes, and the machine's OOM killer would end the hook without an answer."""


def spawn(project: Project, options: tuple[str, ...] = ()) -> int:
    """Start ``toolhooks agentd --foreground`` for ``project`` in a session of its own; its pid.

    ``posix_spawn`` rather than ``subprocess`` (which costs the hook a dozen imports): stdin is
    /dev/null and stdout and stderr go to ``.toolhooks/agentd.log``, so the daemon holds none
    of the agent's pipes open (an agent reads the hook's stdout until EOF)."""
    _project.make_private_dir(_project.STATE_DIR)
    log = _project.open_private(_project.LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    if os.fstat(log).st_size > LOG_LIMIT:
        os.ftruncate(log, 0)  # a log of starts and failures: the latest are what matter
    try:
        argv = toolhooks_argv("agentd", "--foreground", *options)
        if project.config is not None:
            argv += ["--config", project.config]
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, log, 1),
            (os.POSIX_SPAWN_DUP2, log, 2),
        ]
        return os.posix_spawn(
            sys.executable, argv, dict(os.environ), file_actions=actions, setsid=True
        )
    finally:
        os.close(log)


def in_process(project: Project, agent: str, raw: bytes) -> Answer:
    """The answer from a runtime built in this process (what the daemon would have said)."""
    try:
        from pathlib import Path

        from ._run import run_in_process

        reply = run_in_process(agent, raw, config=Path(project.config) if project.config else None)
        return _encoded(reply.stdout), _encoded(reply.stderr), reply.exit_code
    except Exception as error:  # no runtime here at all (a broken install): the last resort
        reason = f"toolhooks cannot run: {type(error).__name__}: {error}"
        return refuse(agent, raw, reason, on_error=_project.on_error(project))


def in_child(
    project: Project, agent: str, raw: bytes, *, track: Callable[[int], None] = lambda pid: None
) -> Answer:
    """``in_process`` in a forked child, under ``MEMORY_HEADROOM_BYTES``: whatever happens to the
    run (a crash, a ``MemoryError``, a plugin that kills its process or never returns: the
    client's deadline kills the child), this process is left to answer, and refuses. ``track``
    is told the child's pid, then 0 once it is gone (the deadline kills a child it knows). Where
    there is no ``fork``, ``in_process`` here."""
    if not hasattr(os, "fork"):
        return in_process(project, agent, raw)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, hand the answer over, never return into the caller
        code = 3
        try:
            os.close(read_end)
            os.dup2(2, 1)  # a plugin's print must not become part of the agent's answer
            limit_memory(MEMORY_HEADROOM_BYTES)
            out, err, status = in_process(project, agent, raw)
            _write_all(write_end, f"{len(out)} {len(err)} {status}\n".encode() + out + err)
            code = 0
        finally:
            os._exit(code)
    track(pid)
    os.close(write_end)
    try:
        data = bytearray()
        while chunk := os.read(read_end, 1 << 20):
            data += chunk
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
        track(0)
    answer = _framed(bytes(data)) if os.waitstatus_to_exitcode(status) == 0 else None
    if answer is None:
        reason = f"the in-process run ended without an answer ({_ended(status)})"
        return refuse(agent, raw, reason, on_error=_project.on_error(project))
    return answer


def limit_memory(headroom: int) -> None:
    """Let this process's address space grow by at most ``headroom`` bytes from now on (never
    raising a limit already lower): past it an allocation is a ``MemoryError``, which the run
    answers as a failure, instead of the machine's OOM killer ending the process unanswered."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows, which has no fork either
        return
    limit = getattr(resource, "RLIMIT_AS", None)
    if limit is None:
        return
    try:
        with open("/proc/self/statm", "rb") as handle:
            size = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        size = 256 * 1024 * 1024
    soft, hard = resource.getrlimit(limit)
    wanted = size + headroom
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft == resource.RLIM_INFINITY or wanted < soft:
        resource.setrlimit(limit, (wanted, hard))


def _framed(data: bytes) -> Answer | None:
    head, newline, body = data.partition(b"\n")
    parts = head.split()
    if not newline or len(parts) != 3 or not all(p.lstrip(b"-").isdigit() for p in parts):
        return None
    out_n, err_n, code = (int(p) for p in parts)
    if out_n < 0 or err_n < 0 or out_n + err_n != len(body):
        return None
    return body[:out_n], body[out_n:], code


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit {os.waitstatus_to_exitcode(status)}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def refuse(agent: str, raw: bytes, reason: str, *, on_error: str) -> Answer:
    """Fail closed in ``agent``'s own protocol (stdlib only), or, with ``on_error = "allow"``,
    answer as if no hook were installed."""
    from ._protocol import HookAnswer, ProtocolError, protocol, read_payload

    try:
        proto = protocol(agent)
    except ProtocolError as error:
        return b"", f"toolhooks: {error}\n".encode(), 2
    try:
        payload = read_payload(raw)
    except ProtocolError:
        payload = None
    reply = None
    if on_error == "allow" and payload is not None:
        try:
            reply = proto.render(proto.parse(payload), HookAnswer(action="none"))
        except (ProtocolError, ValueError):
            reply = None
    if reply is None:
        reply = proto.refuse(payload, reason)
    return _encoded(reply.stdout), _encoded(reply.stderr), reply.exit_code


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")
