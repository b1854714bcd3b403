"""Who is calling: the sender and agent of an MCP request, and the request an approver answers.

Over stdio the identity is the config's (``[mcp] sender`` / ``agent_id``): one user, one client.
Over HTTP it is the bearer token's (``[[mcp.auth.tokens]]``, or the claims of an OAuth access
token, ``[mcp.auth.oauth]``), checked by the SDK's auth middleware before any handler runs.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.server.auth.middleware.auth_context import get_access_token
from toolhooks import Sender

from ._oauth import OAuthAccess

if TYPE_CHECKING:
    from ._proxy import Proxy

SESSION_HEADER = "mcp-session-id"


@dataclass(frozen=True, slots=True, kw_only=True)
class Caller:
    sender: Sender | None
    agent_id: str | None
    session_id: str
    connection: str
    """One key per client connection (its HTTP session, or the stdio pipe)."""
    owner: str
    """Whose tasks this caller may read: its token's sender over HTTP (any session of it), else
    its session."""


@dataclass(slots=True, kw_only=True)
class RequestScope:
    ctx: Any
    caller: Caller
    asked_client: bool = False
    """The approver deferred to an input-required round with this client (2026-07-28)."""


current_request: ContextVar[RequestScope | None] = ContextVar("toolhooks_mcp_request", default=None)


_CALLERS = 4096
"""At most this many callers remembered per proxy (one per token and session); then forgotten."""


def caller_of(ctx: Any, proxy: Proxy) -> Caller:
    """Who sends this request. The same token on the same session is the same caller: made
    once and kept (else a Sender and a Caller made each call: BENCHMARKS.md, choices made for speed)."""
    token = get_access_token()
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    http_session = headers.get(SESSION_HEADER) if headers is not None else None
    session_id = http_session or proxy.session_id
    key = (None if token is None else token.client_id, session_id)
    callers = proxy.callers
    caller = callers.get(key)
    if caller is None:
        if len(callers) >= _CALLERS:
            callers.clear()
        if isinstance(token, OAuthAccess):  # one key per token: a new token may say new roles
            caller = callers[key] = Caller(
                sender=token.sender,
                agent_id=proxy.settings.agent_id,
                session_id=session_id,
                connection=session_id,
                owner="sender:" + token.sender.id,
            )
        else:
            caller = callers[key] = _new_caller(proxy, key[0], session_id)
    return caller


def _new_caller(proxy: Proxy, client_id: str | None, session_id: str) -> Caller:
    settings = proxy.settings
    if client_id is not None:
        entry = proxy.token_entries.get(client_id)
        roles = entry.roles if entry is not None else ()
        agent_id = entry.agent_id if entry is not None else None
        return Caller(
            sender=Sender(id=client_id, roles=roles, channel="mcp"),
            agent_id=agent_id or settings.agent_id,
            session_id=session_id,
            connection=session_id,
            owner="sender:" + client_id,
        )
    sender = Sender(id=settings.sender, channel="mcp") if settings.sender else None
    return Caller(
        sender=sender,
        agent_id=settings.agent_id,
        session_id=session_id,
        connection=session_id,
        owner="session:" + session_id,
    )
