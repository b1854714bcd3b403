"""The desk's FastAPI application: token check, CSRF, body limit and security headers.

Every request must name the desk in ``Host`` (one of the names it was told of; DNS
rebinding onto 127.0.0.1 gets 421), and a state-changing one that carries ``Origin`` must come
from such a name too. Only ``/login`` and ``/static/`` answer without a token (the token form
and its stylesheet; neither shows anything from a tool call). A token comes as ``Authorization:
Bearer``; a browser that signed in with the form holds a session cookie instead (a random id
kept on the server, never the token). Either way POSTs need the CSRF token too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from ..approvals._slack import CALLBACK_PATH
from ._api import router as api_router
from ._auth import (
    COOKIE,
    CSRF_HEADER,
    LOOPBACK_HOSTS,
    SECURITY_HEADERS,
    Identity,
    Sessions,
    Tokens,
    host_allowed,
)
from ._desk import Desk, DeskError
from ._pages import error_page, login_page
from ._pages import router as pages_router
from ._slack_route import router as slack_router

MAX_BODY = 2 << 20
"""Largest request body accepted (an edit carries whole params; 1 MB of them must fit)."""
PUBLIC = ("/login", "/static/")
STATIC = Path(__file__).parent / "static"

Next = Callable[[Request], Awaitable[Response]]


def _identity(request: Request, tokens: Tokens, sessions: Sessions) -> Identity | None:
    """A bearer token (API clients), else the session a signed-in browser's cookie names."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return tokens.check(value.strip())
    return sessions.identity(request.cookies.get(COOKIE), tokens)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "authorization" in request.headers


def create_app(
    desk: Desk,
    tokens: Tokens,
    *,
    hosts: Collection[str] = LOOPBACK_HOSTS,
    secure_cookies: bool = False,
    sessions: Sessions | None = None,
) -> FastAPI:
    """The desk over ``desk`` (store and event log), accepting ``tokens``.

    :param hosts: the names and addresses a request's ``Host`` may give (any port); the default
        is this machine's loopback names. ``toolhooks serve`` adds the address it binds and
        every ``--allow-host``.
    :param secure_cookies: mark the session cookie ``Secure`` even on plain HTTP (a reverse
        proxy in front terminates TLS); over HTTPS it is marked anyway.
    """
    app = FastAPI(
        title="toolhooks approvals desk",
        version="1",
        docs_url=None,  # the interactive docs load scripts from a CDN, which the CSP forbids
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    allowed = frozenset(host.lower().strip("[]") for host in hosts)
    app.state.desk = desk
    app.state.tokens = tokens
    app.state.sessions = sessions = sessions or Sessions()
    app.state.secure_cookies = secure_cookies

    @app.middleware("http")
    async def guard(request: Request, call_next: Next) -> Response:
        response = await _guarded(request, call_next, tokens, sessions, allowed)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.exception_handler(DeskError)
    async def desk_error(request: Request, exc: DeskError) -> Response:
        if not _wants_json(request) and hasattr(request.state, "identity"):
            return error_page(request, exc.status, exc.message)
        return JSONResponse({"detail": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        # Only where and what: echoing the input back could be a megabyte of someone's params.
        problems = [
            {"loc": list(error.get("loc", ())), "msg": str(error.get("msg", ""))}
            for error in exc.errors()
        ]
        return JSONResponse({"detail": problems}, status_code=422)

    app.include_router(api_router)
    app.include_router(slack_router)
    app.include_router(pages_router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


async def _guarded(
    request: Request,
    call_next: Next,
    tokens: Tokens,
    sessions: Sessions,
    allowed: frozenset[str],
) -> Response:
    path = request.url.path
    if not host_allowed(request.headers.get("host"), allowed):
        return JSONResponse(
            {"detail": "this desk does not answer to that Host (start it with --allow-host)"},
            status_code=421,
        )
    if request.method not in ("GET", "HEAD") and not _origin_ok(request, allowed):
        return JSONResponse({"detail": "cross-origin request refused"}, status_code=403)
    if request.method == "POST":
        refused = _body_refused(request)
        if refused is not None:
            return refused
    if path == "/login" or path.startswith("/static/") or path == CALLBACK_PATH:
        return await call_next(request)  # the Slack callback is verified by its signature
    identity = _identity(request, tokens, sessions)
    if identity is None:
        return _unauthorized(request)
    if request.method not in ("GET", "HEAD") and not tokens.csrf_ok(
        identity, request.headers.get(CSRF_HEADER)
    ):
        return JSONResponse(
            {"detail": "missing or wrong CSRF token (send X-CSRF-Token; GET /api/me has it)"},
            status_code=403,
        )
    request.state.identity = identity
    return await call_next(request)


def _origin_ok(request: Request, allowed: frozenset[str]) -> bool:
    """A browser's ``Origin`` on a state-changing request must be the desk itself; a client
    that sends none (curl, an agent) is judged by its token and CSRF token alone."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False  # "null" (a sandboxed frame, a file) and anything odd
    return host_allowed(parts.netloc, allowed)


def _body_refused(request: Request) -> Response | None:
    length = request.headers.get("content-length")
    if length is None:
        if request.headers.get("transfer-encoding"):
            return JSONResponse({"detail": "send a Content-Length"}, status_code=411)
        return None
    if not length.isdigit() or int(length) > MAX_BODY:
        return JSONResponse(
            {"detail": f"request body larger than {MAX_BODY} bytes"}, status_code=413
        )
    return None


def _unauthorized(request: Request) -> Response:
    if _wants_json(request):
        return JSONResponse(
            {"detail": "a valid desk token is required (Authorization: Bearer TOKEN)"},
            status_code=401,
            headers={"www-authenticate": 'Bearer realm="toolhooks"'},
        )
    return login_page(request, status=401)


def identity_of(request: Request) -> Identity:
    found: Identity = request.state.identity
    return found
