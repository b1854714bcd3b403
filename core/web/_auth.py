"""Who may use the desk: named tokens, the CSRF token bound to each, and the security headers.

A token is a random secret known to one person (or one tool); its name is what decisions record
as ``by``. Tokens come from ``$TOOLHOOKS_DESK_TOKENS`` (``name=secret`` pairs, comma separated)
or from a token file that keeps only their SHA-256: the secret itself is printed once, when it is
made, and never written anywhere.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..records._errors import ConfigError

TOKENS_ENV = "TOOLHOOKS_DESK_TOKENS"
DEFAULT_TOKENS_FILE = ".toolhooks/desk-tokens.json"
COOKIE = "toolhooks_desk"
CSRF_HEADER = "x-csrf-token"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
MIN_SECRET_CHARS = 16

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS: Mapping[str, str] = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    # Not "no-referrer": under it a browser sends "Origin: null" on the desk's own form posts,
    # and the Origin check could not tell them from a sandboxed frame's. URLs carry no secret.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class Identity:
    """A caller whose token was valid: ``name`` is recorded with every decision it makes."""

    name: str
    token_digest: str


class Tokens:
    """The valid tokens, by the SHA-256 of their secret; ``csrf`` derives each one's CSRF token."""

    def __init__(self, digests: Mapping[str, str], *, csrf_key: bytes | None = None) -> None:
        self._by_digest = {digest: name for name, digest in digests.items()}
        # Per server start: a restarted desk asks pages to reload, nothing long-lived leaks.
        self._csrf_key = csrf_key or secrets.token_bytes(32)

    @property
    def names(self) -> list[str]:
        return sorted(self._by_digest.values())

    def check(self, presented: str | None) -> Identity | None:
        """The identity for a presented secret, or None (compared in constant time)."""
        if not presented or len(presented) > 512:
            return None
        wanted = _digest(presented)
        found: Identity | None = None
        for digest, name in self._by_digest.items():
            if hmac.compare_digest(digest, wanted):
                found = Identity(name=name, token_digest=digest)
        return found

    def adding(self, digests: Mapping[str, str]) -> Tokens:
        """These tokens and ``digests`` (name: SHA-256; the people of ``[approvals.people]``),
        under the same CSRF key; a digest already known keeps its name."""
        merged = {name: digest for digest, name in self._by_digest.items()}
        known = set(self._by_digest)
        for name, digest in digests.items():
            if digest not in known and name not in merged:
                merged[name] = digest
        return Tokens(merged, csrf_key=self._csrf_key)

    def knows(self, identity: Identity) -> bool:
        """True while ``identity``'s token is still one of these (a session ends with it)."""
        return self._by_digest.get(identity.token_digest) == identity.name

    def csrf(self, identity: Identity) -> str:
        message = f"csrf:{identity.name}:{identity.token_digest}".encode()
        return hmac.new(self._csrf_key, message, hashlib.sha256).hexdigest()

    def csrf_ok(self, identity: Identity, presented: str | None) -> bool:
        return bool(presented) and hmac.compare_digest(self.csrf(identity), presented or "")


def parse_env(text: str) -> dict[str, str]:
    """``alice=secret1,bob=secret2`` -> name: digest; a bad entry is a ConfigError."""
    found: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, sep, secret = entry.partition("=")
        name, secret = name.strip(), secret.strip()
        if not sep or not NAME.fullmatch(name):
            raise ConfigError(
                f"${TOKENS_ENV}: expected name=token pairs separated by commas; "
                f"names are letters, digits and . _ @ - (got an entry named {name[:40]!r})"
            )
        if len(secret) < MIN_SECRET_CHARS:
            raise ConfigError(
                f"${TOKENS_ENV}: the token for {name!r} is shorter than {MIN_SECRET_CHARS} "
                "characters"
            )
        found[name] = _digest(secret)
    if not found:
        raise ConfigError(f"${TOKENS_ENV} is set but names no token")
    return found


def read_file(path: Path) -> dict[str, str]:
    """The token file: ``{"tokens": {name: sha256}}``; a broken file is a ConfigError."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        tokens = data["tokens"]
        if not isinstance(tokens, dict) or not all(
            isinstance(k, str) and NAME.fullmatch(k) and isinstance(v, str) and len(v) == 64
            for k, v in tokens.items()
        ):
            raise ValueError("tokens must map names to SHA-256 hex digests")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"desk token file {path}: cannot be read ({exc})") from None
    return dict(tokens)


def add_token(path: Path, name: str) -> str:
    """Make a token called ``name``, keep its digest in ``path`` (mode 0600); return the secret."""
    if not NAME.fullmatch(name):
        raise ConfigError(
            f"token name {name[:40]!r}: use letters, digits and . _ @ - (at most 64 characters)"
        )
    tokens = read_file(path) if path.exists() else {}
    if name in tokens:
        raise ConfigError(f"desk token file {path}: a token named {name!r} exists already")
    secret = secrets.token_urlsafe(24)
    tokens[name] = _digest(secret)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump({"tokens": tokens}, handle, indent=2)
        handle.write("\n")
    os.replace(partial, path)
    return secret


def load_tokens(path: Path, environ: Mapping[str, str] | None = None) -> tuple[Tokens, str | None]:
    """The tokens to accept, and a secret made now (first start: print it once) or None.

    ``$TOOLHOOKS_DESK_TOKENS`` wins over the file; with neither, a token named ``admin`` is made.
    """
    env = os.environ if environ is None else environ
    text = env.get(TOKENS_ENV)
    if text is not None:
        return Tokens(parse_env(text)), None
    if path.exists():
        return Tokens(read_file(path)), None
    secret = add_token(path, "admin")
    return Tokens(read_file(path)), secret


SESSION_TTL_S = 12 * 3600
"""How long a browser's sign-in lasts (a working day); the API's bearer tokens do not expire."""
MAX_SESSIONS = 10_000
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class Sessions:
    """Browser sign-ins kept on the server: the cookie holds a random id, never the token.

    A session expires after ``ttl_s``, ends at sign-out, and ends with its token (removed from
    the token file or the environment, the desk restarted); ids are 256-bit random and looked up
    by their SHA-256, so a memory dump of this table holds no cookie either.
    """

    def __init__(self, ttl_s: float = SESSION_TTL_S) -> None:
        self.ttl_s = ttl_s
        self._by_digest: dict[str, tuple[Identity, float]] = {}
        self._lock = threading.Lock()

    def start(self, identity: Identity) -> str:
        session_id = secrets.token_urlsafe(32)
        now = time.monotonic()
        with self._lock:
            if len(self._by_digest) >= MAX_SESSIONS:
                self._drop_expired(now)
                if len(self._by_digest) >= MAX_SESSIONS:  # the oldest sign-in makes room
                    del self._by_digest[next(iter(self._by_digest))]
            self._by_digest[_digest(session_id)] = (identity, now + self.ttl_s)
        return session_id

    def identity(self, session_id: str | None, tokens: Tokens) -> Identity | None:
        """Who a cookie's session belongs to, or None (unknown, expired or its token revoked)."""
        if not session_id or len(session_id) > 128:
            return None
        key = _digest(session_id)
        with self._lock:
            found = self._by_digest.get(key)
            if found is None:
                return None
            identity, expires = found
            if expires <= time.monotonic() or not tokens.knows(identity):
                del self._by_digest[key]
                return None
        return identity

    def end(self, session_id: str | None) -> None:
        if session_id:
            with self._lock:
                self._by_digest.pop(_digest(session_id), None)

    def _drop_expired(self, now: float) -> None:
        for key in [k for k, (_, expires) in self._by_digest.items() if expires <= now]:
            del self._by_digest[key]


def host_allowed(host_header: str | None, allowed: Collection[str]) -> bool:
    """True when a request's ``Host`` names this desk: one of ``allowed``, any port.

    A page on a rebinding domain (one that resolves to 127.0.0.1) reaches the desk with its own
    name in ``Host``; refusing every name the desk was not told of keeps it from being used
    through such a page.
    """
    if not host_header:
        return False
    host = host_header.strip().lower()
    if host.startswith("["):  # an IPv6 literal: [::1]:8765
        name, _, rest = host[1:].partition("]")
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return False
    else:
        name, _, port = host.partition(":")
        if port and not port.isdigit():
            return False
    return name in allowed
