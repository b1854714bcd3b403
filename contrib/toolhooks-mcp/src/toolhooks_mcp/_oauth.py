"""OAuth 2.1 bearer tokens at the HTTP endpoint: the proxy as a resource server.

A token is a JWT checked against the authorization server's keys (a JWKS file, or its URL), or
an opaque token asked about at the server's introspection endpoint (RFC 7662). Either way the
issuer, the audience, the expiry and not-before are checked, and only the configured asymmetric
algorithms are accepted: ``alg=none`` and HMAC (whose "secret" a forger would take from the
public key) never are. Its claims name the sender (``[mcp.auth.oauth.claims]``). A verified
token is remembered, by its sha256, until it expires (introspected ones at most
``introspection_cache_s``), so a client's calls pay for one check.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.server.auth.provider import AccessToken
from toolhooks import ConfigError, Sender

from ._config import OAuthTable

_CACHE = 1024
"""Verified tokens remembered per proxy; the least recently used goes first."""
_JWKS_REFRESH_S = 300.0
"""A JWKS from a URL is fetched again after this, or sooner for a key id it does not have
(at most once a ``_JWKS_RETRY_S``)."""
_JWKS_RETRY_S = 10.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Verified:
    sender: Sender
    expires_at: float
    scopes: tuple[str, ...]


class OAuthAccess(AccessToken):
    """The SDK's AccessToken of a verified OAuth token, with the sender its claims name."""

    sender: Sender


class OAuthVerifier:
    """Verifies one bearer token: a JWT (JWKS file or URL) or an introspected token."""

    def __init__(self, table: OAuthTable, base: Path | None) -> None:
        self.table = table
        self.base = base
        self._cache: OrderedDict[str, Verified] = OrderedDict()
        self._keys: list[dict[str, Any]] | None = None
        self._fetched = 0.0
        self._lock = anyio.Lock()

    async def verify(self, token: str) -> OAuthAccess | None:
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
        now = time.time()
        found = self._cache.get(digest)
        if found is not None:
            if found.expires_at > now:
                self._cache.move_to_end(digest)
                return self._access(token, digest, found)
            del self._cache[digest]
        try:
            if self.table.introspection_url is not None:
                verified = await self._introspect(token, now)
            else:
                verified = await self._decode(token)
        except Exception:  # malformed, forged, expired, foreign, keys unreachable: not a caller
            return None
        if verified is None:
            return None
        self._cache[digest] = verified
        if len(self._cache) > _CACHE:
            self._cache.popitem(last=False)
        return self._access(token, digest, verified)

    def _access(self, token: str, digest: str, verified: Verified) -> OAuthAccess:
        return OAuthAccess(
            token=token,
            client_id="oauth:" + digest[:32],
            scopes=list(verified.scopes),
            expires_at=int(verified.expires_at),
            sender=verified.sender,
        )

    # -- JWT -------------------------------------------------------------------------------

    async def _decode(self, token: str) -> Verified | None:
        import jwt

        header = jwt.get_unverified_header(token)
        algorithm = header.get("alg")
        if algorithm not in self.table.algorithms:  # none, HS256, anything not configured
            return None
        key = await self._key(header.get("kid"), algorithm)
        if key is None:
            return None
        claims = jwt.decode(
            token,
            key=key,
            algorithms=[algorithm],
            audience=self.table.audience,
            issuer=self.table.issuer,
            leeway=self.table.leeway_s,
            options={"require": ["exp", "iss", "aud"], "verify_nbf": True},
        )
        return self._verified(claims, float(claims["exp"]))

    async def _key(self, kid: str | None, algorithm: str) -> Any:
        keys = await self._jwks(refresh=False)
        found = _pick(keys, kid, algorithm)
        if found is None and self.table.jwks_url is not None:
            keys = await self._jwks(refresh=True)  # a rotated key: fetch again (rate-limited)
            found = _pick(keys, kid, algorithm)
        return found

    async def _jwks(self, refresh: bool) -> list[dict[str, Any]]:
        async with self._lock:
            now = time.monotonic()
            stale = now - self._fetched > (_JWKS_RETRY_S if refresh else _JWKS_REFRESH_S)
            if self._keys is not None and (self.table.jwks_url is None or not stale):
                return self._keys
            if self.table.jwks_file is not None:
                self._keys = self.read_file()
            else:
                import httpx2

                async with httpx2.AsyncClient(timeout=10.0) as http:
                    answer = await http.get(str(self.table.jwks_url))
                answer.raise_for_status()
                self._keys = _key_list(answer.json())
            self._fetched = now
            return self._keys

    def read_file(self) -> list[dict[str, Any]]:
        """The keys of ``jwks_file`` (relative to the config's folder); a ConfigError when it
        is not a JWKS. ``http_app`` reads it before serving, so a bad file stops the start."""
        path = Path(str(self.table.jwks_file)).expanduser()
        if not path.is_absolute() and self.base is not None:
            path = self.base / path
        try:
            return _key_list(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"[mcp.auth.oauth] jwks_file {str(path)!r} is not a JWKS: {exc}"
            ) from None

    # -- introspection ---------------------------------------------------------------------

    async def _introspect(self, token: str, now: float) -> Verified | None:
        import os

        import httpx2

        table = self.table
        secret = os.environ.get(table.client_secret_env or "", "")
        auth = (table.client_id, secret) if table.client_id is not None else None
        async with httpx2.AsyncClient(timeout=10.0) as http:
            answer = await http.post(
                str(table.introspection_url),
                data={"token": token, "token_type_hint": "access_token"},
                auth=auth,
                headers={"Accept": "application/json"},
            )
        answer.raise_for_status()
        claims = answer.json()
        if not isinstance(claims, dict) or claims.get("active") is not True:
            return None
        leeway = table.leeway_s
        if claims.get("iss") != table.issuer:
            return None
        audience = claims.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if table.audience not in audiences:
            return None
        expires = claims.get("exp")
        if not isinstance(expires, (int, float)) or expires + leeway < now:
            return None
        not_before = claims.get("nbf")
        if isinstance(not_before, (int, float)) and not_before - leeway > now:
            return None
        return self._verified(claims, min(float(expires), now + table.introspection_cache_s))

    # -- claims -> sender ------------------------------------------------------------------

    def _verified(self, claims: dict[str, Any], expires_at: float) -> Verified | None:
        mapping = self.table.claims
        sender_id = _claim(claims, mapping.id)
        if not isinstance(sender_id, str) or not sender_id:
            return None
        name = _claim(claims, mapping.name) if mapping.name else None
        tenant = _claim(claims, mapping.tenant) if mapping.tenant else None
        roles = _claim(claims, mapping.role) if mapping.role else None
        if isinstance(roles, str):
            roles = roles.split()
        scopes = claims.get("scope", "")
        scope_list = tuple(scopes.split()) if isinstance(scopes, str) else ()
        sender = Sender(
            id=sender_id,
            name=name if isinstance(name, str) else None,
            channel="mcp",
            roles=tuple(r for r in roles if isinstance(r, str)) if isinstance(roles, list) else (),
            tenant=tenant if isinstance(tenant, str) else None,
        )
        return Verified(sender=sender, expires_at=expires_at, scopes=scope_list)


def _claim(claims: dict[str, Any], path: str) -> Any:
    """A claim by name, or by a dotted path into nested objects (``realm_access.roles``)."""
    if path in claims:
        return claims[path]
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


_FAMILY = {"RSA": ("RS", "PS"), "EC": ("ES",), "OKP": ("EdDSA",)}
"""The algorithms each asymmetric key type signs with; an ``oct`` (HMAC) key signs none here."""


def _pick(keys: list[dict[str, Any]], kid: str | None, algorithm: str) -> Any:
    """The key for this token: by key id, else the only key that may sign with ``algorithm``.
    A key is used only with its own ``alg`` when it names one, only for signatures (``use``),
    and only with its type's algorithms: an RSA key never verifies an HMAC."""
    import jwt

    candidates = [
        data
        for data in keys
        if algorithm.startswith(_FAMILY.get(str(data.get("kty")), ()))
        and data.get("use", "sig") == "sig"
        and data.get("alg", algorithm) == algorithm
        and (kid is None or data.get("kid") == kid)
    ]
    if len(candidates) != 1:
        return None
    return jwt.PyJWK(candidates[0], algorithm=algorithm).key


def _key_list(document: Any) -> list[dict[str, Any]]:
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list) or not all(isinstance(key, dict) for key in keys):
        raise ValueError('expected {"keys": [...]}')
    return keys
