"""Serving the proxy over streamable HTTP, behind bearer tokens that name the sender.

The SDK's own auth middleware checks the ``Authorization: Bearer`` header before any MCP
handler runs (401 with ``WWW-Authenticate: Bearer ... resource_metadata="..."`` otherwise); the
token verifier here compares the token's sha256 against the ``[[mcp.auth.tokens]]`` entries in
constant time (the entry's ``sender`` becomes the token's client id, which ``caller_of`` turns
into the call's sender), then, with ``[mcp.auth.oauth]``, verifies it as an OAuth 2.1 access
token (``_oauth``), whose claims name the sender. With OAuth the protected-resource metadata
(RFC 9728) is served at ``/.well-known/oauth-protected-resource/mcp`` and at the bare
``/.well-known/oauth-protected-resource``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.routing import Route
from toolhooks import ConfigError

from ._config import McpTable
from ._oauth import OAuthVerifier

if TYPE_CHECKING:
    from ._proxy import Proxy

DEFAULT_HOST = "127.0.0.1"


class TokenVerifier:
    """Bearer token -> sender, from ``[[mcp.auth.tokens]]``; digests are read when checked, so
    a token from an environment variable can be rotated by restarting with a new value."""

    def __init__(self, settings: McpTable, oauth: OAuthVerifier | None = None) -> None:
        self.entries = settings.auth.tokens
        self.oauth = oauth

    async def verify_token(self, token: str) -> AccessToken | None:
        found = self._configured(token)
        if found is None and self.oauth is not None:
            return await self.oauth.verify(token)
        return found

    def _configured(self, token: str) -> AccessToken | None:
        given = hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
        found = None
        for entry in self.entries:  # every entry is compared: no early exit to time
            digest = entry.digest()
            if digest is not None and hmac.compare_digest(digest, given) and found is None:
                found = entry
        if found is None:
            return None
        return AccessToken(token=token, client_id=found.sender, scopes=[], expires_at=None)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1); ValueError with a one-line reason."""
    host, _, port_text = text.rpartition(":")
    host = host.strip("[]") or DEFAULT_HOST
    try:
        port = int(port_text)
        if not 0 <= port <= 65535:
            raise ValueError
        if host != "localhost":
            ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(
            f"--http {text!r}: expected HOST:PORT with an IP address and a port 0-65535 "
            "(for example 127.0.0.1:8765)"
        ) from None
    return host, port


def http_app(proxy: Proxy, host: str, port: int) -> Any:
    """The Starlette app: ``/mcp``, bearer tokens required, DNS-rebinding checks on localhost."""
    auth = proxy.settings.auth
    if not auth.tokens and auth.oauth is None:
        raise ConfigError(
            "serving over HTTP needs at least one [[mcp.auth.tokens]] entry "
            "(sender plus env or sha256) or [mcp.auth.oauth]: requests without a valid token "
            "are refused",
            file=proxy.runtime.config.file,
        )
    here = f"http://{'localhost' if host == DEFAULT_HOST else host}:{port}"
    oauth = auth.oauth
    if oauth is None:
        return proxy.server.streamable_http_app(
            host=host,
            auth=AuthSettings(
                issuer_url=AnyHttpUrl(here), resource_server_url=None, required_scopes=[]
            ),
            token_verifier=TokenVerifier(proxy.settings),
        )
    source = proxy.runtime.config.source
    verifier = OAuthVerifier(oauth, source.parent if source is not None else None)
    if oauth.jwks_file is not None:
        verifier.read_file()  # a missing or broken key file stops the start, naming it
    audience = oauth.audience if oauth.audience.startswith(("http://", "https://")) else None
    # Strings, validated by the SDK's models, which keep a path-less URL without the trailing
    # slash AnyHttpUrl would add: RFC 8414 compares issuers as exact strings.
    resource = oauth.resource or audience or f"http://{host}:{port}/mcp"
    servers = list(oauth.authorization_servers or (oauth.issuer,))
    settings = AuthSettings(
        issuer_url=servers[0],  # type: ignore[arg-type]
        resource_server_url=resource,  # type: ignore[arg-type]
        required_scopes=list(oauth.scopes) or None,
        validate_token_resource=False,  # the verifier checks the audience itself
    )
    # The SDK serves the metadata at the resource's path (RFC 9728 §3.1); clients that look
    # at the host's root find the same document there.
    metadata = ProtectedResourceMetadata(
        resource=resource,  # type: ignore[arg-type]
        authorization_servers=servers,  # type: ignore[arg-type]
        scopes_supported=list(oauth.scopes) or None,
    )
    bare = Route(
        "/.well-known/oauth-protected-resource",
        endpoint=ProtectedResourceMetadataHandler(metadata).handle,
        methods=["GET"],
    )
    return proxy.server.streamable_http_app(
        host=host,
        auth=settings,
        token_verifier=TokenVerifier(proxy.settings, verifier),
        custom_starlette_routes=[bare],
    )


async def serve_http(proxy: Proxy, host: str, port: int, stop: anyio.Event | None = None) -> None:
    """Serve until interrupted, or until ``stop`` is set (then uvicorn closes its sockets)."""
    import uvicorn

    app = http_app(proxy, host, port)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))

    async def stopper(stop: anyio.Event) -> None:
        await stop.wait()
        server.should_exit = True

    async with proxy.running(), anyio.create_task_group() as group:
        if stop is not None:
            group.start_soon(stopper, stop)
        await server.serve()
        group.cancel_scope.cancel()
