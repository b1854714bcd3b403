"""The desk's server-rendered pages: waiting approvals, decided ones, grants, calls, one call.

Jinja2 escapes every value (autoescape on for every template), so text from a tool call (a tool
name, a description, params) reaches the page as text. The page's script only swaps in
fragments these same templates rendered, and sets text with ``textContent``.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from ..approvals._routes import printable
from ..events._calls import RecordedCall
from ..stores._contract import StoredApproval
from ._api_models import team_out
from ._auth import COOKIE
from ._desk import Desk, DeskError, rewritten_fields, stamp

TEMPLATES = Path(__file__).parent / "templates"
STATUSES = ("ok", "error", "blocked", "denied", "pending", "running")


def _shown(value: Any) -> Any:
    """Control and bidi-override characters made visible as escapes (a title must not reorder
    or hide the text around it); everything is HTML-escaped after this."""
    return printable(value) if isinstance(value, str) else value


_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(enabled_extensions=("html",), default=True),
    auto_reload=False,
    finalize=_shown,
)
Filter = Annotated[str | None, Query(max_length=200)]

router = APIRouter(include_in_schema=False)


def _render(name: str, status: int = 200, **values: Any) -> HTMLResponse:
    return HTMLResponse(_env.get_template(name).render(**values), status_code=status)


def _page(request: Request, name: str, page: str, title: str, **values: Any) -> HTMLResponse:
    identity = request.state.identity
    return _render(
        name,
        page=page,
        title=title,
        who=identity.name,
        csrf=request.app.state.tokens.csrf(identity),
        **values,
    )


def _desk(request: Request) -> Desk:
    desk: Desk = request.app.state.desk
    return desk


def _json(value: Any) -> str:
    """Indented JSON; a character that is not printable becomes its JSON escape (same value)."""
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return "".join(ch if ch.isprintable() or ch == "\n" else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    units = ch.encode("utf-16-be")
    return "".join(
        f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2)
    )


def _countdown(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def _card(row: StoredApproval, now: float, desk: Desk | None = None) -> dict[str, Any]:
    rewritten = {item["field"]: item for item in rewritten_fields(row)}
    fields = []
    for name in sorted(set(row.params) | set(rewritten)):
        changed = rewritten.get(name)
        fields.append(
            {
                "name": name,
                "value": _json(row.params[name]) if name in row.params else "(removed)",
                "rewritten_by": None if changed is None else changed["plugin"],
                "proposed": None
                if changed is None
                else "(absent)"
                if changed["was_absent"]
                else _json(changed["proposed"]),
            }
        )
    return {
        "id": row.id,
        "short_id": row.short_id,
        "call_id": row.call_id,
        "title": row.title,
        "description": row.description,
        "severity": row.severity,
        "tool": row.tool,
        "plugin": row.plugin,
        "sender": row.sender_id,
        "session_id": row.session_id,
        "digest": row.digest,
        "expires_at": row.expires_at,
        "expires_in": _countdown(row.expires_at - now),
        "allowed_decisions": row.allowed_decisions,
        "fields": fields,
        "params_json": _json(row.params),
        "schema_json": json.dumps(row.schema or {}, ensure_ascii=False),
        "team": _team(row, now, desk),
    }


def _team(row: StoredApproval, now: float, desk: Desk | None) -> dict[str, Any] | None:
    """Votes, who is still needed, escalation and expiry of a team's approval (None: one person
    decides it)."""
    team = None if desk is None else team_out(row, desk.votes(row), now)
    if team is None:
        return None
    shown = team.model_dump()
    allows = sum(1 for v in team.votes if v.vote == "allow")
    shown["tally"] = f"{allows} of {team.quorum} allows"
    if team.escalate_at is not None:
        when = stamp(team.escalate_at)
        shown["escalation"] = (
            f"escalated to {', '.join(team.escalate_to)} at {when}"
            if team.escalated
            else f"escalates to {', '.join(team.escalate_to)} at {when}"
        )
    shown["expiry"] = (
        "kept until decided" if team.on_expiry == "keep" else f"denied at {stamp(row.expires_at)}"
    )
    return shown


def _summary(summary: RecordedCall) -> dict[str, Any]:
    values = summary.summary()
    values["when"] = stamp(summary.updated) if summary.updated else ""
    return values


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    """A refusal shown as a page (a browser followed a link to something that is not there)."""
    page = _page(request, "error.html", "error", "Not found" if status == 404 else "Refused",
                 message=message)  # fmt: skip
    page.status_code = status
    return page


def login_page(request: Request, status: int = 200, error: str | None = None) -> HTMLResponse:
    wanted = request.url.path if request.url.path != "/login" else "/"
    return _render("login.html", status=status, error=error, next=_safe_next(wanted))


def _safe_next(path: str) -> str:
    """Only a path on this desk: never ``//host`` or a scheme (an open redirect)."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path


@router.get("/login")
def login_form(request: Request) -> HTMLResponse:
    return login_page(request)


@router.post("/login")
async def login(request: Request) -> Response:
    form = parse_qs((await request.body()).decode("utf-8", "replace"), max_num_fields=4)
    token = (form.get("token") or [""])[0]
    identity = request.app.state.tokens.check(token)
    if identity is None:
        return login_page(request, status=401, error="That token is not valid.")
    target = _safe_next((form.get("next") or ["/"])[0])
    response = RedirectResponse(target, status_code=303)
    sessions = request.app.state.sessions
    response.set_cookie(
        COOKIE,
        sessions.start(identity),  # a random session id: the token never leaves the form
        max_age=math.ceil(sessions.ttl_s),
        httponly=True,
        samesite="strict",
        secure=request.app.state.secure_cookies or request.url.scheme == "https",
        path="/",
    )
    return response


@router.post("/logout")
def logout(request: Request) -> Response:
    request.app.state.sessions.end(request.cookies.get(COOKIE))
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/")
def waiting(request: Request) -> HTMLResponse:
    now = time.time()
    desk = _desk(request)
    cards = [_card(row, now, desk) for row in desk.waiting()]
    return _page(request, "waiting.html", "waiting", "Waiting", approvals=cards)


@router.get("/fragments/waiting")
def waiting_fragment(request: Request) -> HTMLResponse:
    now = time.time()
    desk = _desk(request)
    return _render("_cards.html", approvals=[_card(row, now, desk) for row in desk.waiting()])


@router.get("/history")
def history(request: Request) -> HTMLResponse:
    rows = []
    for row in _desk(request).history():
        item = row.to_dict()
        item["when"] = stamp(row.decided_at or row.expires_at)
        rows.append(item)
    return _page(request, "history.html", "history", "Decided", approvals=rows)


@router.get("/grants")
def grants(request: Request) -> HTMLResponse:
    rows = []
    for grant in _desk(request).grants():
        item = grant.to_dict()
        item["when"] = stamp(grant.created_at)
        rows.append(item)
    return _page(request, "grants.html", "grants", "Grants", grants=rows)


def _filtered(
    request: Request, session: str | None, trace: str | None, tool: str | None, status: str | None
) -> tuple[dict[str, str | None], list[dict[str, Any]]]:
    filters = {"session": session or None, "trace": trace or None, "tool": tool or None,
               "status": status or None}  # fmt: skip
    found = _desk(request).calls.calls(
        session=filters["session"], trace=filters["trace"], tool=filters["tool"],
        status=filters["status"],
    )  # fmt: skip
    return filters, [_summary(summary) for summary in found]


@router.get("/calls")
def calls(
    request: Request,
    session: Filter = None,
    trace: Filter = None,
    tool: Filter = None,
    status: Filter = None,
) -> HTMLResponse:
    filters, rows = _filtered(request, session, trace, tool, status)
    log = _desk(request).calls
    return _page(request, "calls.html", "calls", "Calls", calls=rows, filters=filters,
                 statuses=STATUSES, log_path=str(log.path), unreadable=log.unreadable,
                 unreadable_count=log.unreadable_count, chain=log.chain(),
                 lock=_desk(request).plugin_lock())  # fmt: skip


@router.get("/fragments/calls")
def calls_fragment(
    request: Request,
    session: Filter = None,
    trace: Filter = None,
    tool: Filter = None,
    status: Filter = None,
) -> HTMLResponse:
    _, rows = _filtered(request, session, trace, tool, status)
    return _render("_calls.html", calls=rows)


@router.get("/calls/{call_id}")
def call(request: Request, call_id: str) -> HTMLResponse:
    desk = _desk(request)
    summary = desk.calls.call(call_id)
    if summary is None:
        raise DeskError(404, f"no call {call_id!r} in the event log")
    events = []
    envelope = ("ts", "event", "trace_id", "call_id", "session_id", "tool", "plugin")
    for event in desk.calls.timeline(call_id):
        ts = event.get("ts")
        data = {key: value for key, value in event.items() if key not in envelope}
        events.append(
            {
                "when": stamp(float(ts)) if isinstance(ts, (int, float)) else "",
                "event": event.get("event"),
                "plugin": event.get("plugin"),
                "data": _json(data),
            }
        )
    return _page(request, "call.html", "call", "Call", call=summary.summary(), events=events)
