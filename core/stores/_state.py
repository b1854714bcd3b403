"""``[state] url``: where the state that decisions depend on lives when several processes share it.

Absent (and no ``$TOOLHOOKS_STATE_URL``): embedded, every process keeps its own state. A
``redis://`` (or ``rediss://`` / ``unix://``) URL: loop-detection sessions, call-limit counters
and the approval store live in that Redis, shared by every process that points at it.

The client is made lazily (a runtime that never needs shared state never connects) and one
client per URL serves every runtime of the process: redis-py pools its connections and makes a
new one after a failure, so a restarted server is picked up by the next operation.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._public import public
from ..records._errors import ConfigError, ToolhooksError

STATE_ENV = "TOOLHOOKS_STATE_URL"
SCHEMES = ("redis", "rediss", "unix")

if TYPE_CHECKING:
    from ..config._tables import StateTable


class StateUnavailable(ToolhooksError):
    """The shared state could not be read or written (server down, timeout, refused script)."""


class StateDefaults:
    """No ``[state]`` table: every key of ``config._tables.StateTable`` (documented there) at its
    default, without building the model (a plain read-only class: see ``config._defaults``)."""

    __slots__ = ()

    url: str | None = None
    key_prefix: str = "toolhooks"
    timeout_s: float = 2.0
    session_ttl_s: int = 86_400

    def __reduce__(self) -> str:
        # The one instance, by name: a pickled or copied config runs on the same defaults (an
        # instance compares by identity), not on a new instance equal to nothing.
        return "STATE_DEFAULTS"


STATE_DEFAULTS = StateDefaults()


def check_url(url: str) -> None:
    """Raise ValueError unless ``url`` is a Redis URL this backend can open."""
    scheme = urlsplit(url).scheme
    if scheme not in SCHEMES:
        raise ValueError(
            f"state url {redact_url(url)!r}: unsupported scheme {scheme or '(none)'!r} "
            f"(expected {', '.join(s + '://' for s in SCHEMES)})"
        )


def redact_url(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


class SharedState:
    """A handle on one Redis: the lazily made client, key naming and the error translation."""

    def __init__(self, url: str, key_prefix: str = "toolhooks", timeout_s: float = 2.0) -> None:
        check_url(url)
        self.url = url
        self.key_prefix = key_prefix
        self.timeout_s = timeout_s
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SharedState({redact_url(self.url)!r}, key_prefix={self.key_prefix!r})"

    @property
    def label(self) -> str:
        """The URL without its password, for messages."""
        return redact_url(self.url)

    def key(self, *parts: str) -> str:
        """``<key_prefix>:part:part...``"""
        return ":".join((self.key_prefix, *parts))

    @property
    def client(self) -> Any:
        """The ``redis.Redis`` client (made on first use; ConfigError without ``toolhooks[redis]``)."""
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = _make_client(self.url, self.timeout_s)
                client = self._client
        return client

    def run(self, what: str, operation: Callable[[Any], Any]) -> Any:
        """``operation(client)``, with any Redis failure turned into StateUnavailable(``what``)."""
        import redis

        try:
            return operation(self.client)
        except redis.RedisError as exc:
            raise StateUnavailable(
                f"shared state at {self.label} unavailable while {what}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def close(self) -> None:
        """Close the client, if one was made; the next operation makes a new one."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


def _make_client(url: str, timeout_s: float) -> Any:
    try:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry
    except ImportError:
        raise ConfigError(
            "[state] url needs the Redis client: pip install 'toolhooks[redis]'"
        ) from None
    # No retries inside the client: a script that timed out may have run, and running it again
    # could consume an approval twice or count a call twice. The next operation takes a fresh
    # connection from the pool, which is the reconnect.
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        health_check_interval=30,
        retry=Retry(NoBackoff(), 0),
        decode_responses=False,
    )


_shared: dict[tuple[str, str, float], SharedState] = {}
_shared_lock = threading.Lock()


def state_from(table: StateTable | StateDefaults) -> SharedState | None:
    """The process-wide handle for the table's URL (or ``$TOOLHOOKS_STATE_URL``); None: embedded."""
    url = table.url or os.environ.get(STATE_ENV) or None
    if url is None:
        return None
    try:
        check_url(url)
    except ValueError as exc:
        raise ConfigError(f"${STATE_ENV}: {exc}" if table.url is None else str(exc)) from None
    key = (url, table.key_prefix, table.timeout_s)
    with _shared_lock:
        state = _shared.get(key)
        if state is None:
            state = _shared[key] = SharedState(url, table.key_prefix, table.timeout_s)
        return state


public("toolhooks.kit", SharedState, StateUnavailable)
