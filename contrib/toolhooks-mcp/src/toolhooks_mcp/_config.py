"""The ``[mcp]`` table of toolhooks.toml: upstream servers, naming, identity, timeouts, tokens.

The core config loader knows only the table's name; it validates ``[mcp]`` with :class:`McpTable`
(registered in the ``toolhooks.tables`` entry-point group), so a typo is a one-line error that
names the key, the file and the line, like any other toolhooks config error.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
NonEmpty = Annotated[str, Field(min_length=1)]
Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolTable(_Strict):
    """``[mcp.servers.<server>.tools.<tool>]``: what the proxy says about one upstream tool."""

    tags: tuple[NonEmpty, ...] | None = None
    """Replace the tags the annotations would give (``side_effect`` / ``read_only``)."""


class ServerTable(_Strict):
    """``[mcp.servers.<name>]``: one upstream, over stdio (``command``) or HTTP (``url``)."""

    command: NonEmpty | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: NonEmpty | None = None
    url: NonEmpty | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    trusted: bool = Field(default=False, strict=True)
    """Believe this server's ``readOnlyHint``: its read-only tools get ``read_only`` instead of
    ``side_effect``. Hints from an untrusted server never loosen the policy."""
    output_schema: bool = Field(default=False, strict=True)
    """Pass the tools' ``outputSchema`` on (dropped by default: after hooks may change a result
    so that it no longer matches the schema the client would check it against)."""
    tools: dict[str, ToolTable] = Field(default_factory=dict)
    call_timeout_s: Seconds | None = None
    """Overrides ``[mcp] call_timeout_s`` for this server."""
    on_change: Literal["withhold", "ask", "warn"] = "withhold"
    """Once tools are pinned (``toolhooks mcp pin``), what a tool of this server whose definition
    differs from its pin, or that has none, gets: left out of tools/list (``withhold``), an
    approval before each call (``ask``), or only the ``mcp.tool_changed`` event (``warn``)."""

    @model_validator(mode="after")
    def _one_transport(self) -> ServerTable:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of command (stdio) or url (streamable HTTP)")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        if self.url is not None and (self.args or self.env or self.cwd):
            raise ValueError("args, env and cwd are for a command; a url server takes headers")
        return self


class TokenTable(_Strict):
    """One ``[[mcp.auth.tokens]]`` entry: a bearer token and who holds it.

    The token itself is never written in the file: ``env`` names the variable that holds it,
    or ``sha256`` is its hex digest (``printf %s "$TOKEN" | sha256sum``).
    """

    sender: NonEmpty
    env: NonEmpty | None = None
    sha256: Annotated[str, Field(pattern=r"^[0-9a-fA-F]{64}$")] | None = None
    roles: tuple[NonEmpty, ...] = ()
    agent_id: NonEmpty | None = None

    @model_validator(mode="after")
    def _one_source(self) -> TokenTable:
        if (self.env is None) == (self.sha256 is None):
            raise ValueError("give exactly one of env (a variable holding the token) or sha256")
        return self

    def digest(self) -> str | None:
        """The token's sha256 hex digest, or None when its variable is unset or empty."""
        if self.sha256 is not None:
            return self.sha256.lower()
        value = os.environ.get(self.env or "", "")
        return hashlib.sha256(value.encode()).hexdigest() if value else None


ASYMMETRIC = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)


class ClaimsTable(_Strict):
    """``[mcp.auth.oauth.claims]``: which claim of a verified token is which part of the sender.
    A name is a claim, or a dotted path into nested claims (``realm_access.roles``)."""

    id: NonEmpty = "sub"
    name: NonEmpty | None = "name"
    role: NonEmpty | None = "roles"
    """A list of roles, or one string of space-separated roles."""
    tenant: NonEmpty | None = None


class OAuthTable(_Strict):
    """``[mcp.auth.oauth]``: the proxy as an OAuth 2.1 resource server (``--http``).

    A bearer token is a JWT checked against the authorization server's keys (``jwks_file`` or
    ``jwks_url``), or is asked about at ``introspection_url`` (RFC 7662). Its issuer, audience,
    expiry and not-before are checked; a token that fails any check gets 401, never an
    anonymous call."""

    issuer: NonEmpty
    """The ``iss`` every token must carry: the authorization server."""
    audience: NonEmpty
    """The ``aud`` every token must carry: this proxy (usually its URL)."""
    jwks_file: NonEmpty | None = None
    """The authorization server's public keys, a JWKS file (relative to the config)."""
    jwks_url: NonEmpty | None = None
    """Where the authorization server publishes its JWKS (fetched again as keys rotate)."""
    introspection_url: NonEmpty | None = None
    """RFC 7662 token introspection, for opaque tokens."""
    client_id: NonEmpty | None = None
    """The proxy's client id at the introspection endpoint (HTTP basic auth)."""
    client_secret_env: NonEmpty | None = None
    """The variable holding the proxy's client secret for introspection."""
    algorithms: tuple[str, ...] = ("RS256", "ES256")
    """The JWT signature algorithms accepted: asymmetric ones only."""
    resource: NonEmpty | None = None
    """This resource's identifier in its metadata (RFC 9728): default, the audience when it is a
    URL, else ``http://HOST:PORT/mcp``."""
    authorization_servers: tuple[NonEmpty, ...] = ()
    """Listed in the metadata for clients to get tokens from; default: the issuer."""
    scopes: tuple[NonEmpty, ...] = ()
    """Scopes every token must have (403 otherwise)."""
    leeway_s: float = Field(default=30.0, ge=0, le=300, allow_inf_nan=False)
    """Clock skew allowed on ``exp`` and ``nbf``."""
    introspection_cache_s: Seconds = 60.0
    """An introspected token is asked about again after this (a revocation shows then)."""
    claims: ClaimsTable = Field(default_factory=ClaimsTable)

    @model_validator(mode="after")
    def _one_source(self) -> OAuthTable:
        given = [self.jwks_file, self.jwks_url, self.introspection_url]
        if sum(value is not None for value in given) != 1:
            raise ValueError("give exactly one of jwks_file, jwks_url or introspection_url")
        for url in (self.jwks_url, self.introspection_url):
            if url is not None and not url.startswith(("http://", "https://")):
                raise ValueError(f"{url!r} must start with http:// or https://")
        if not self.algorithms:
            raise ValueError("algorithms must name at least one algorithm")
        for algorithm in self.algorithms:
            if algorithm not in ASYMMETRIC:
                raise ValueError(
                    f"algorithm {algorithm!r} is not accepted: only asymmetric signatures "
                    f"({', '.join(ASYMMETRIC)}); 'none' and HMAC (HS256...) would let a token "
                    "be forged"
                )
        if (self.client_id is None) != (self.client_secret_env is None):
            raise ValueError("client_id and client_secret_env go together")
        return self


class AuthTable(_Strict):
    """``[mcp.auth]``: who may use the HTTP endpoint. Requests without a valid token get 401."""

    tokens: tuple[TokenTable, ...] = ()
    oauth: OAuthTable | None = None
    """OAuth 2.1 bearer tokens, verified by the proxy as a resource server (``--http``)."""


class McpTable(_Strict):
    """``[mcp]``: the proxy's own settings."""

    servers: dict[str, ServerTable] = Field(default_factory=dict)
    separator: Annotated[str, Field(min_length=1, max_length=8)] = "__"
    """Between the server's name and the tool's: ``files__read_file``."""
    prefix: bool = Field(default=True, strict=True)
    """False: tools keep their own names (allowed with one upstream only)."""
    sender: NonEmpty | None = None
    """Who calls over stdio (the human at the MCP client); HTTP callers are named by their token."""
    agent_id: NonEmpty | None = None
    call_timeout_s: Seconds = 120.0
    """A tools/call the upstream has not answered by then fails (and is audited)."""
    start_timeout_s: Seconds = 30.0
    restart_backoff_s: Seconds = 0.5
    """First wait before restarting a dead upstream; doubles up to ``restart_max_s``."""
    restart_max_s: Seconds = 30.0
    health_interval_s: Seconds = 5.0
    """How often an upstream is pinged, so a dead one leaves the list without a call."""
    health_timeout_s: Seconds = 10.0
    """A ping unanswered this long means the upstream hangs: it is restarted."""
    max_message_mb: Annotated[float, Field(gt=0, le=4096, allow_inf_nan=False)] = 128.0
    """The longest message (one line) a stdio upstream may send, in MB: a longer one fails the
    call waiting for it and closes the connection (the server is restarted) rather than being
    held in memory."""
    elicit: bool = Field(default=True, strict=True)
    """Ask the MCP client's user to approve (elicitation / input-required rounds)."""
    auth: AuthTable = Field(default_factory=AuthTable)

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, ServerTable]) -> dict[str, ServerTable]:
        for name in servers:
            if not _NAME.match(name):
                raise ValueError(
                    f"server name {name!r} must be 1-64 letters, digits, '_', '.' or '-'"
                )
        return servers

    @model_validator(mode="after")
    def _prefix_needs_one_server(self) -> McpTable:
        if not self.prefix and len(self.servers) > 1:
            raise ValueError("prefix = false needs exactly one server (names could collide)")
        for name in self.servers:
            if self.separator in name:
                raise ValueError(f"server name {name!r} contains the separator {self.separator!r}")
        return self
