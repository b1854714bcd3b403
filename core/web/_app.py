"""The desk's FastAPI application: token check, CSRF, body limit and security headers.

Only ``/login`` and ``/static/`` answer without a token (the token form and its stylesheet;
neither shows anything from a tool call). A token comes as ``Authorization: Bearer`` or, for a
browser that signed in with the form, as a cookie; either way POSTs need the CSRF token too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from ._api import router as api_router
from ._auth import COOKIE, CSRF_HEADER, SECURITY_HEADERS, Identity, Tokens
from ._desk import Desk, DeskError
from ._pages import error_page, login_page
from ._pages import router as pages_router

MAX_BODY = 2 << 20
"""Largest request body accepted (an edit carries whole params; 1 MB of them must fit)."""
PUBLIC = ("/login", "/static/")
STATIC = Path(__file__).parent / "static"

Next = Callable[[Request], Awaitable[Response]]


def _presented(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "authorization" in request.headers


def create_app(desk: Desk, tokens: Tokens) -> FastAPI:
    """The desk over ``desk`` (store and event log), accepting ``tokens``."""
    app = FastAPI(
        title="toolhooks approvals desk",
        version="1",
        docs_url=None,  # the interactive docs load scripts from a CDN, which the CSP forbids
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.desk = desk
    app.state.tokens = tokens

    @app.middleware("http")
    async def guard(request: Request, call_next: Next) -> Response:
        response = await _guarded(request, call_next, tokens)
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
    app.include_router(pages_router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


async def _guarded(request: Request, call_next: Next, tokens: Tokens) -> Response:
    path = request.url.path
    if request.method == "POST":
        refused = _body_refused(request)
        if refused is not None:
            return refused
    if path == "/login" or path.startswith("/static/"):
        return await call_next(request)
    identity = tokens.check(_presented(request))
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
