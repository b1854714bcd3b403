"""The daemon's wire: one HTTP/1.1 request per connection, on its Unix socket and, for Claude
Code's ``type: "http"`` hook, on 127.0.0.1.

One protocol for both listeners, so the hook client, ``curl --unix-socket`` and Claude Code all
speak to the same code. Written out by hand rather than with ``http.server``: the reads are
capped (head 16 KiB, body ``limit``), a slow or broken peer costs one thread for at most
``READ_DEADLINE_S`` (the whole request, not each read: a peer sending a byte at a time is cut
off; ``READ_DEADLINE_ENV`` may only shorten it, for tests), and nothing is parsed that the
routes do not use.

Over 300 lines on purpose: the reader, its limits and the guard of the TCP listener are one
wire protocol, read together when its attack surface is reviewed.

The TCP listener (``Guard``) is for a hook that cannot run a command: it answers only a request
whose ``Host`` is loopback (a web page that resolved its own name to 127.0.0.1 is refused, 403),
carries no ``Origin`` (browsers send one), and holds ``Authorization: Bearer TOKEN`` with the
token from ``.toolhooks/agentd.token`` (mode 0600; 401 without it).

A reply for such a hook (``hook_body``) is what Claude Code reads from an HTTP hook: a 2xx body
is read like a command hook's stdout, and there is no exit code, so a blocking exit (2) becomes
``{"decision": "block"}`` with the reason, and any other failing exit a 500 (a non-blocking
error, as exit 1 is for a command hook).
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ._project import open_private
from ._protocol import HookReply

MAX_HEAD = 16 * 1024
REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    411: "Length Required",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    503: "Service Unavailable",
}
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})


class BadRequest(Exception):
    """A request the daemon answers with ``status`` and closes, without handling it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    """Names in lower case; a repeated header keeps its last value."""
    body: bytes = b""


class TooLarge(BadRequest):
    """A body over the limit (413); ``unread``: how much of it is still to come, when its
    ``Content-Length`` says (None: chunked, up to the end); ``size``: the body's size as far as
    it is known."""

    def __init__(self, message: str, *, size: int, unread: int | None = None) -> None:
        super().__init__(413, message)
        self.size = size
        self.unread = unread


READ_DEADLINE_S = 10.0
"""How long a whole request (head and body) may take to arrive. The socket's own timeout bounds
each read only: a peer sending a byte at a time would hold a worker forever, and 64 such peers
every worker, so that the agents' HTTP hooks time out and (Claude Code) run the tool unchecked."""
READ_DEADLINE_ENV = "TOOLHOOKS_AGENTD_READ_DEADLINE_S"
"""A shorter deadline than ``READ_DEADLINE_S``, for the tests that wait for it to pass (the
slowloris attack): the same code cuts the same peers, in seconds instead of tens of seconds."""
MIN_READ_DEADLINE_S = 1.0
"""The shortest deadline the variable may set. A deadline shorter than a real hook's request
takes to arrive would refuse the agents' own hooks, and Claude Code runs the tool when its HTTP
hook fails: "stricter" would then let calls through unchecked. A hook's request on this machine
arrives in milliseconds."""


def read_deadline_s(environ: Mapping[str, str]) -> tuple[float, str | None]:
    """The request deadline this daemon keeps: ``READ_DEADLINE_S``, or a shorter one from
    ``READ_DEADLINE_ENV``; and why that variable was not used, if it is set and was not. Never
    longer: a longer deadline lets slow peers hold the workers longer; never under
    ``MIN_READ_DEADLINE_S``: a deadline real hooks cannot meet fails them (the variable cannot
    weaken the defence either way)."""
    text = environ.get(READ_DEADLINE_ENV)
    if text is None:
        return READ_DEADLINE_S, None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not MIN_READ_DEADLINE_S <= value <= READ_DEADLINE_S:  # NaN fails this too
        limit = f"[{MIN_READ_DEADLINE_S:g}, {READ_DEADLINE_S:g}]"
        return READ_DEADLINE_S, f"{READ_DEADLINE_ENV}={text!r} ignored: not seconds in {limit}"
    return value, None


def _recv(conn: socket.socket, size: int, deadline: float | None) -> bytes:
    """``conn.recv(size)``, failing with ``TimeoutError`` once ``deadline`` (``time.monotonic()``)
    has passed."""
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took longer than its deadline to arrive")
        previous = conn.gettimeout()
        conn.settimeout(left if previous is None else min(previous, left))
    return conn.recv(size)


def read_request(conn: socket.socket, limit: int) -> Request:
    """One request from ``conn``: the head (at most ``MAX_HEAD`` bytes) and a body of at most
    ``limit`` bytes (``Content-Length``, or chunked); ``BadRequest`` for anything else."""
    request, rest = read_head(conn)
    return with_body(conn, request, rest, limit)


def read_head(conn: socket.socket, deadline: float | None = None) -> tuple[Request, bytes]:
    """The request's head (a ``Request`` with no body yet) and the bytes read past it: who is
    asking is checked from the head before any body is read (issue #32 item 9)."""
    buffer = bytearray()
    end = -1
    while end < 0:
        chunk = _recv(conn, 65536, deadline)
        if not chunk:
            raise BadRequest(400, "the connection closed before the request's head ended")
        start = max(0, len(buffer) - 3)
        buffer += chunk
        end = buffer.find(b"\r\n\r\n", start)
        if end < 0 and len(buffer) > MAX_HEAD:
            raise BadRequest(431, f"the request's head is over {MAX_HEAD} bytes")
    if end > MAX_HEAD:
        raise BadRequest(431, f"the request's head is over {MAX_HEAD} bytes")
    lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(400, "the request line is not 'METHOD PATH HTTP/1.x'")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest(400, f"a header line is malformed: {line[:80]!r}")
        headers[name.lower()] = value.strip()
    return Request(method=parts[0], path=parts[1], headers=headers), bytes(buffer[end + 4 :])


def with_body(
    conn: socket.socket, request: Request, rest: bytes, limit: int, deadline: float | None = None
) -> Request:
    """``request`` with its body read (``rest``: what ``read_head`` read past the head);
    ``TooLarge`` past ``limit`` bytes, before reading them."""
    headers = request.headers
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _read_chunked(conn, rest, limit, deadline)
    elif "transfer-encoding" in headers:
        raise BadRequest(400, "only the chunked transfer encoding is understood")
    else:
        body = _read_sized(conn, rest, headers, limit, deadline)
    return Request(method=request.method, path=request.path, headers=headers, body=body)


def drain(conn: socket.socket, unread: int | None, deadline: float) -> None:
    """Read and drop what is left of a body that is not used (``unread`` bytes, or up to EOF)
    until ``deadline`` (``time.monotonic()``), after its answer is sent: a peer still sending
    when its connection is closed gets a reset, and may never read the answer."""
    import time

    left = unread
    while left is None or left > 0:
        if time.monotonic() > deadline:
            return
        try:
            chunk = conn.recv(1 << 20 if left is None else min(left, 1 << 20))
        except OSError:
            return
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)


def _read_sized(
    conn: socket.socket,
    rest: bytes,
    headers: Mapping[str, str],
    limit: int,
    deadline: float | None = None,
) -> bytes:
    given = headers.get("content-length")
    if given is None:
        if rest:
            raise BadRequest(411, "a request with a body needs Content-Length")
        return b""
    if not given.isdigit():
        raise BadRequest(400, f"Content-Length is not a number: {given[:40]!r}")
    size = int(given)
    if size > limit:
        raise TooLarge(
            f"the body is {size} bytes, over the limit of {limit}",
            size=size,
            unread=size - len(rest),
        )
    return _read_exactly(conn, rest, size, deadline)


def _read_exactly(
    conn: socket.socket, rest: bytes, size: int, deadline: float | None = None
) -> bytes:
    if len(rest) >= size:
        return rest[:size]
    parts = [rest]
    missing = size - len(rest)
    while missing:
        chunk = _recv(conn, min(missing, 1 << 20), deadline)
        if not chunk:
            raise BadRequest(400, "the connection closed before the body ended")
        parts.append(chunk)
        missing -= len(chunk)
    return b"".join(parts)


def _read_chunked(
    conn: socket.socket, rest: bytes, limit: int, deadline: float | None = None
) -> bytes:
    pending = bytearray(rest)
    body = bytearray()

    def line() -> bytes:
        while (end := pending.find(b"\r\n")) < 0:
            if len(pending) > 1024:
                raise BadRequest(400, "a chunk's size line is too long")
            more = _recv(conn, 65536, deadline)
            if not more:
                raise BadRequest(400, "the connection closed inside a chunked body")
            pending.extend(more)
        taken = bytes(pending[:end])
        del pending[: end + 2]
        return taken

    while True:
        size_text = line().split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise BadRequest(400, "a chunk's size is not hexadecimal") from None
        if size == 0:
            while line():  # trailers, up to the empty line
                pass
            return bytes(body)
        if len(body) + size > limit:
            raise TooLarge(f"the body is over the limit of {limit} bytes", size=len(body) + size)
        chunk = _read_exactly(conn, bytes(pending), size + 2, deadline)
        del pending[: min(len(pending), size + 2)]
        body += chunk[:size]


def response(
    status: int, body: bytes, *, content_type: str, headers: Mapping[str, str] = {}
) -> bytes:
    """A complete response; every connection closes after one."""
    head = [
        f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def error_response(status: int, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    return response(status, body, content_type="application/json")


def hook_body(reply: HookReply) -> tuple[int, bytes]:
    """``reply`` as an HTTP hook's answer: status and body (see the module's docstring)."""
    if reply.exit_code == 0:
        return 200, reply.stdout.encode("utf-8", "surrogatepass")
    reason = reply.stderr.strip() or "toolhooks refused this event"
    if reply.exit_code == 2:
        return 200, json.dumps({"decision": "block", "reason": reason}).encode()
    return 500, reason.encode("utf-8", "surrogatepass")


# -- the TCP listener's guard ------------------------------------------------------------------


class Guard:
    """Who may use the TCP listener on ``port``: loopback ``Host``, no ``Origin``, the token."""

    def __init__(self, token: str, port: int) -> None:
        self._token = token.encode()
        self.port = port

    def check(self, request: Request) -> BadRequest | None:
        """None when ``request`` may be answered, else the refusal to send."""
        host = request.headers.get("host", "")
        name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
        if name not in LOOPBACK_HOSTS or (port and port != str(self.port)):
            return BadRequest(403, f"Host {host[:80]!r} is not this daemon's loopback address")
        if "origin" in request.headers:
            return BadRequest(403, "requests from web pages (with an Origin) are refused")
        given = request.headers.get("authorization", "")
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            token.strip().encode(), self._token
        ):
            return BadRequest(401, "a valid 'Authorization: Bearer TOKEN' header is required")
        return None


def load_token(path: str) -> str:
    """The token in ``path``, created (mode 0600) the first time; kept across restarts, so hook
    settings that carry it stay valid. A token file others can read is refused."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(32) + "\n")
    with os.fdopen(open_private(path, os.O_RDONLY), encoding="utf-8") as handle:
        info = os.fstat(handle.fileno())
        if info.st_mode & 0o077:
            raise PermissionError(f"{path} can be read by others (mode {info.st_mode & 0o777:o})")
        token = handle.read().strip()
    if len(token) < 16:
        raise PermissionError(f"{path} holds no token (at least 16 characters)")
    return token


def tcp_listener(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 only (never a wildcard address)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(64)
    except OSError:
        server.close()
        raise
    return server
