"""``toolhooks serve``: the approvals desk, a web page over the approval store and the event log.

FastAPI and uvicorn are imported only when the command runs (``toolhooks[web]``), so the rest of
the command line starts as fast without them.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..records._errors import ToolhooksError
from ._commands import help_of
from ._common import OK, PROBLEMS, add_config_option, plugin_table, read_config

DESCRIPTION = """\
Serve the approvals desk: waiting approvals (live), decided ones, allow-always grants and the
calls of the event log. It works over the approval store agents share: the queue route's SQLite
file ([approvals] route = "queue") or Redis ([state] url).

Every request needs a token. Tokens come from $TOOLHOOKS_DESK_TOKENS (name=token pairs,
comma separated) or from the token file, which keeps only their SHA-256; the first start makes
a token named admin and prints it once. --add-token NAME makes another (decisions record the
name of the token that made them). Each person of [approvals.people] with a token signs in as
that person: on an approval a team policy governs, their decisions are their votes. Slack's
button clicks come to POST /slack/interactions, verified with the signing secret."""
DEFAULT_PORT = 8765
DEFAULT_LOG = ".toolhooks/events.jsonl"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help=help_of("serve"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--tokens",
        metavar="FILE",
        default=None,
        help="the token file (default: .toolhooks/desk-tokens.json)",
    )
    parser.add_argument(
        "--add-token", metavar="NAME", help="make a token called NAME, print it once, and exit"
    )
    parser.add_argument(
        "--log", metavar="FILE", help="the event log (default: [plugins.event_log] path in config)"
    )
    parser.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="a name the desk answers to in the Host header, besides the address it listens on "
        "(and localhost on loopback); repeat for several. Any other Host gets 421",
    )
    parser.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate")
    parser.add_argument("--tls-key", metavar="FILE", help="the certificate's private key")
    parser.add_argument(
        "--https-proxy",
        action="store_true",
        help="a reverse proxy in front serves HTTPS: mark the session cookie Secure",
    )
    add_config_option(parser)
    parser.set_defaults(func=run)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    return int(text)


def _tokens_file(args: argparse.Namespace) -> Path:
    return Path(args.tokens or ".toolhooks/desk-tokens.json")


def run(args: argparse.Namespace) -> int:
    if args.add_token:
        from ..web._auth import add_token  # no FastAPI needed to make a token

        secret = add_token(_tokens_file(args), args.add_token)
        print(f"desk token for {args.add_token} (shown once, keep it):\n{secret}")
        return OK
    if bool(args.tls_cert) != bool(args.tls_key):
        raise ToolhooksError("serve: --tls-cert and --tls-key go together")
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError:
        print("toolhooks serve: needs the web extra: pip install 'toolhooks[web]'", file=sys.stderr)
        return PROBLEMS
    from ..web import LOOPBACK_HOSTS, CallLog, Desk, create_app, load_tokens, open_store

    config = read_config(args)
    log = args.log or plugin_table(config, "event_log").get("path", DEFAULT_LOG)
    store, runtime = open_store(config)
    tokens, made = load_tokens(_tokens_file(args))
    tokens = tokens.adding(people_tokens(config))
    listener = _listen(args.host, args.port)
    try:
        host, port = listener.getsockname()[:2]
        hosts = {host, *(name.lower() for name in args.allow_host)}
        if ipaddress.ip_address(host).is_loopback:
            hosts |= LOOPBACK_HOSTS
        desk = Desk(store, CallLog(Path(os.path.expanduser(str(log)))), config)
        if desk.team is not None:
            escalating(desk, config.approvals.poll_interval_s)
        app = create_app(
            desk,
            tokens,
            hosts=hosts,
            secure_cookies=bool(args.tls_cert) or args.https_proxy,
        )
        shown = f"[{host}]" if ":" in host else host
        if made is not None:
            print(
                f"desk token for admin (shown once, keep it; kept as a hash in "
                f"{_tokens_file(args)}):\n{made}"
            )
        if not ipaddress.ip_address(host).is_loopback:
            print(
                f"toolhooks serve: listening on {host}: anyone who can reach it and holds a "
                "token can decide approvals",
                file=sys.stderr,
            )
        scheme = "https" if args.tls_cert else "http"
        print(f"toolhooks desk on {scheme}://{shown}:{port}/ (tokens: {', '.join(tokens.names)})")
        sys.stdout.flush()
        server = uvicorn.Server(
            uvicorn.Config(
                app,
                log_level="warning",
                timeout_graceful_shutdown=2,
                ssl_certfile=args.tls_cert,
                ssl_keyfile=args.tls_key,
            )
        )
        server.run(sockets=[listener])
    finally:
        listener.close()
        runtime.close()
    return OK


def people_tokens(config: Any) -> dict[str, str]:
    """The SHA-256 of each person's token (``[approvals.people.<name>] token``): each signs in
    to the desk as that person, whose votes count."""
    from ..approvals._team import Team

    found = {}
    for name, member in Team(config).people.items():
        digest = member.token_digest()
        if digest is not None:
            found[name] = digest
    return found


def escalating(desk: Any, interval_s: float) -> threading.Thread:
    """A daemon thread that escalates the team's approvals as their time comes (once among
    every process sharing the store; a waiting agent or a vote may be first)."""
    from ..approvals._team import escalate_due

    def loop() -> None:
        while True:
            try:
                escalate_due(desk.store, desk.team)
            except Exception as exc:  # the store is down for a moment: try again next round
                print(f"toolhooks serve: escalation: {exc}", file=sys.stderr)
            time.sleep(max(1.0, interval_s))

    thread = threading.Thread(target=loop, name="toolhooks-escalate", daemon=True)
    thread.start()
    return thread


def _listen(host: str, port: int) -> socket.socket:
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        raise ToolhooksError(f"serve: --host must be an IP address, got {host!r}") from None
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        raise ToolhooksError(f"serve: cannot listen on {host}:{port}: {exc.strerror}") from None
    listener.listen(128)
    return listener
