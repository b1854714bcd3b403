"""The hook client's slow paths, imported only when the project's daemon does not answer: start
the daemon (``spawn``), answer in this process (``in_process``), or refuse in the agent's own
protocol (``refuse``). Stdlib only, like ``_client``, until a runtime is really built here.
"""

from __future__ import annotations

import os
import sys

from ..kit._process import toolhooks_argv
from . import _project
from ._project import Project

Answer = tuple[bytes, bytes, int]
"""What the hook writes: stdout, stderr, exit code."""
LOG_LIMIT = 1024 * 1024
"""``.toolhooks/agentd.log`` is started afresh by the next daemon once it is bigger than this."""


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
