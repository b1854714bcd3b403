"""``toolhooks agentd``: start, stop or look at the daemon that answers this project's
coding-agent hooks (``toolhooks.agents._daemon``).

The first ``toolhooks hook AGENT`` starts it by itself; this command is for starting it ahead
(Claude Code's HTTP hook cannot start it), for a different idle timeout or HTTP port, and for
stopping it after installing or changing a plugin (a config change it notices by itself).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from typing import Any

from ..agents import _client, _project
from ..agents._no_daemon import spawn
from ._commands import help_of
from ._options import OK, PROBLEMS, add_config_option

DESCRIPTION = """\
Start the daemon that answers this project's coding-agent hooks (toolhooks hook AGENT) with
one resident runtime: a hook then costs a few milliseconds instead of a Python start-up with
every plugin. The project is the config's folder; the daemon listens on .toolhooks/agentd.sock
there (this user only), and with [agents] http_port also on 127.0.0.1 for Claude Code's HTTP
hook. It exits after [agents] idle_timeout_s without a hook and picks up a changed config by
itself; after installing or changing a plugin, stop it (the next hook starts a new one)."""
START_WAIT_S = 60.0


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agentd",
        help=help_of("agentd"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_option(parser)
    parser.add_argument(
        "--idle-timeout",
        metavar="S",
        type=_positive,
        help="exit after S seconds without a hook (default: [agents] idle_timeout_s, 900)",
    )
    parser.add_argument(
        "--http-port",
        metavar="PORT",
        type=_port,
        help="also answer HTTP hooks on 127.0.0.1:PORT (default: [agents] http_port; 0: any)",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--foreground", action="store_true", help="serve in this process (the hooks start it so)"
    )
    what.add_argument("--status", action="store_true", help="print the running daemon's state")
    what.add_argument("--stop", action="store_true", help="stop the running daemon")
    parser.set_defaults(func=agentd)


def agentd(args: argparse.Namespace) -> int:
    try:
        project = _project.find_project(
            os.getcwd(), os.environ, config=getattr(args, "config", None)
        )
    except _project.ProjectError as error:
        print(f"toolhooks: error: {error}", file=sys.stderr)
        return PROBLEMS
    os.chdir(project.root)
    for warning in project.warnings:
        print(f"toolhooks: warning: {warning}", file=sys.stderr)
    if args.status:
        return _status()
    if args.stop:
        return _stop()
    options: list[str] = []
    if args.idle_timeout is not None:
        options += ["--idle-timeout", repr(args.idle_timeout)]
    if args.http_port is not None:
        options += ["--http-port", str(args.http_port)]
    if args.foreground:
        from ..agents._daemon import run

        logging.basicConfig(
            level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", force=True
        )
        return run(project, idle_timeout_s=args.idle_timeout, http_port=args.http_port)
    return _start(project, tuple(options))


def _start(project: _project.Project, options: tuple[str, ...]) -> int:
    """Start a detached daemon unless one serves; return once it answers."""
    if _client.call("GET", "/status") is None:
        try:
            logged = os.stat(_project.LOG).st_size
        except OSError:
            logged = 0
        try:
            pid = spawn(project, options)
        except OSError as error:  # a state folder that is not ours alone (_project.StateDirError)
            print(f"toolhooks: error: {error}", file=sys.stderr)
            return PROBLEMS
        deadline = time.monotonic() + START_WAIT_S
        while _client.call("GET", "/status") is None:
            exited, status = os.waitpid(pid, os.WNOHANG)
            if exited and os.waitstatus_to_exitcode(status) != 0:
                print(f"toolhooks: error: {_why_not(project, logged)}", file=sys.stderr)
                return PROBLEMS
            if time.monotonic() > deadline:
                print("toolhooks agentd: the daemon did not answer in time", file=sys.stderr)
                return PROBLEMS
            time.sleep(0.02)  # the daemon builds its runtime: poll its socket, bounded
    return _status()


def _why_not(project: _project.Project, logged: int) -> str:
    """What the daemon that failed to start wrote to its log (from offset ``logged``)."""
    try:
        with os.fdopen(_project.open_private(_project.LOG, os.O_RDONLY), "rb") as handle:
            handle.seek(logged)
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        lines = []
    said = [line.split("cannot start: ", 1)[1] for line in lines if "cannot start: " in line]
    log = project.path(_project.LOG)
    return (
        f"the daemon did not start: {said[-1]}" if said else f"the daemon did not start; see {log}"
    )


def _status() -> int:
    got = _client.call("GET", "/status")
    if got is None:
        print("no toolhooks agentd serves this project")
        return PROBLEMS
    print(json.dumps(json.loads(got[1]), indent=2))
    return OK


def _stop() -> int:
    if _client.call("POST", "/stop") is None:
        print("no toolhooks agentd serves this project")
        return OK
    deadline = time.monotonic() + 30.0
    while os.path.exists(_project.SOCKET) and time.monotonic() < deadline:
        time.sleep(0.02)  # it unlinks its socket first thing when it stops
    print("stopped")
    return OK


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0-65535): {text!r}")
    return int(text)
