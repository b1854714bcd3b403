"""Loop-detection sessions in Redis (``[state] url``): one session's window, seen by every process.

A session is one Redis hash (``v``: version, ``d``: the encoded state). An update reads it, runs
the detectors on a private copy, and writes it back with a Lua script that succeeds only if the
version is still the one read (compare-and-set); a concurrent writer makes it read and run
again, so no update is lost and no half-written state is ever read. Sessions are bounded (an
index sorted by last use: the least recently used beyond ``max_sessions`` is deleted) and
expire ``ttl_s`` after their last call (the index may still list an expired session until it is
trimmed, so ``session_count()`` can overstate by those).

The encoding is JSON (never pickle: a shared server must not be able to run code in a worker).
A value that does not decode is treated as an empty session and overwritten.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from toolhooks import ToolResult
from toolhooks.kit import SharedState, StateUnavailable
from toolhooks.kit import canonical_json as canonical

from ._hashing import UNKNOWN_TOOL
from ._state import SessionKey, SessionState

T = TypeVar("T")
MAX_TRIES = 64
"""Compare-and-set attempts before an update gives up (fails closed)."""

# KEYS[1]: the session hash, KEYS[2]: the index (session key -> last use), KEYS[3]: the use
# counter that orders the index (strictly increasing: no ties, unlike clock readings).
# ARGV: expected version ('0' for a new session), encoded state, ttl ms, max sessions.
# Returns {1, new version} when saved, else {0, current version, current state} so that the
# caller can rerun on what is really there without another round trip.
SAVE = """
local current = redis.call('HGET', KEYS[1], 'v') or '0'
if current ~= ARGV[1] then return {0, current, redis.call('HGET', KEYS[1], 'd')} end
local version = tostring(tonumber(current) + 1)
redis.call('HSET', KEYS[1], 'v', version, 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), KEYS[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if extra > 0 then
  local popped = redis.call('ZPOPMIN', KEYS[2], extra)
  for i = 1, #popped, 2 do
    if popped[i] ~= KEYS[1] then redis.call('DEL', popped[i]) end
  end
end
return {1, version}
"""
CACHED = 4_096
"""Sessions whose last written version this process remembers: an update of a session that no
other process touched meanwhile is then one round trip (the compare-and-set), not two."""

_OUT_MASK = (1 << 62) - 1
_OUT_BIT = 1 << 62


def stable_outcome_hash(result: ToolResult) -> bytes:
    """``outcome_hash`` with a digest every process computes alike (blake2b, not ``hash()``)."""
    if result.error_kind == "unknown_tool":
        return UNKNOWN_TOOL
    status = result.status
    if status == "ok":
        content = result.content
        value = content if content else "$value:" + canonical(result.value)
    else:
        value = result.error if result.error is not None else result.content
    text = value if type(value) is str else canonical(value)
    digest = hashlib.blake2b(
        f"{status}\0{text}".encode("utf-8", "surrogatepass"), digest_size=8
    ).digest()
    return ((int.from_bytes(digest, "little") & _OUT_MASK) | _OUT_BIT).to_bytes(8, "little")


_LOCK = threading.Lock()  # a SessionState needs a lock; a decoded copy is private to one update


def encode(state: SessionState) -> str:
    return json.dumps(
        {
            "s": state.sigs.hex(),
            "o": state.outs.hex(),
            "t": state.total,
            "k": state.streak,
            "n": state.last_name,
            "w": [
                [kind, sig.hex(), bucket] for (kind, sig), bucket in (state.warned or {}).items()
            ],
            "u": [[tool, runs] for tool, runs in (state.unknown or {}).items()],
        },
        separators=(",", ":"),
    )


def decode(raw: bytes | str | None) -> SessionState:
    state = SessionState(_LOCK)
    if raw is None:
        return state
    try:
        data = json.loads(raw)
        sigs, outs = bytearray.fromhex(data["s"]), bytearray.fromhex(data["o"])
        if len(sigs) != len(outs) or len(sigs) % 8:
            raise ValueError("window rings of different sizes")
        state.sigs, state.outs = sigs, outs
        state.total, state.streak = int(data["t"]), int(data["k"])
        state.last_name = str(data["n"])
        if data["w"]:
            state.warned = {(int(k), bytes.fromhex(s)): int(b) for k, s, b in data["w"]}
        if data["u"]:
            state.unknown = {int(tool): int(runs) for tool, runs in data["u"]}
    except (ValueError, KeyError, TypeError):
        return SessionState(_LOCK)  # not ours or damaged: start the session afresh
    return state


class SharedSessionStore:
    """The SessionStore interface (``update``, ``peek``, ``discard``, ``clear``, ``len``, ``in``)."""

    def __init__(self, state: SharedState, limit: int, ttl_s: int) -> None:
        self.state = state
        self.limit = limit
        self.ttl_ms = ttl_s * 1000
        self._index = state.key("loop", "index")
        self._uses = state.key("loop", "uses")
        self._script: Any = None
        self._known: OrderedDict[str, tuple[bytes, str]] = OrderedDict()
        self._known_lock = threading.Lock()

    def _key(self, session: SessionKey) -> str:
        if session is None:
            return self.state.key("loop", "none")
        digest = hashlib.sha256(str(session).encode("utf-8", "surrogatepass")).hexdigest()
        return self.state.key("loop", "s", digest[:32])

    def update(self, session: SessionKey, change: Callable[[SessionState], T]) -> T:
        """Run ``change`` on the session's state and store the result, atomically."""
        key = self._key(session)
        done: list[T] = []
        self.state.run(
            "updating a loop-detection session",
            lambda client: self._update(client, key, change, True, done),
        )
        return done[0]

    def update_existing(self, session: SessionKey, change: Callable[[SessionState], T]) -> T | None:
        """``update`` for a session that exists; None (nothing written) when it does not."""
        key = self._key(session)
        done: list[T] = []
        self.state.run(
            "updating a loop-detection session",
            lambda client: self._update(client, key, change, False, done),
        )
        return done[0] if done else None

    def _update(
        self,
        client: Any,
        key: str,
        change: Callable[[SessionState], T],
        create: bool,
        done: list[T],
    ) -> None:
        script = self._script
        if script is None or script.registered_client is not client:
            script = self._script = client.register_script(SAVE)
        with self._known_lock:
            known = self._known.get(key)
        if known is None:
            version, raw = client.hmget(key, "v", "d")
        else:
            version, raw = known
        for _ in range(MAX_TRIES):
            if (version is None or version == b"0") and not create:
                return
            state = decode(raw)
            result = change(state)
            encoded = encode(state)
            reply = script(
                keys=[key, self._index, self._uses],
                args=[version or b"0", encoded, self.ttl_ms, self.limit],
            )
            if reply[0] == 1:
                self._remember(key, (reply[1], encoded))
                done.append(result)
                return
            version, raw = reply[1], reply[2]
        raise StateUnavailable(
            f"loop-detection session kept changing under concurrent updates ({MAX_TRIES} tries)"
        )

    def _remember(self, key: str, known: tuple[bytes, str]) -> None:
        with self._known_lock:
            self._known[key] = known
            self._known.move_to_end(key)
            if len(self._known) > CACHED:
                self._known.popitem(last=False)

    def peek(self, session: SessionKey) -> SessionState | None:
        key = self._key(session)
        raw = self.state.run("reading a loop-detection session", lambda c: c.hget(key, "d"))
        return None if raw is None else decode(raw)

    def discard(self, session: SessionKey) -> bool:
        key = self._key(session)

        with self._known_lock:
            self._known.pop(key, None)

        def drop(client: Any) -> bool:
            client.zrem(self._index, key)
            return bool(client.delete(key))

        return bool(self.state.run("forgetting a loop-detection session", drop))

    def clear(self) -> None:
        with self._known_lock:
            self._known.clear()

        def drop_all(client: Any) -> None:
            keys = list(client.scan_iter(match=self.state.key("loop", "*"), count=500))
            for start in range(0, len(keys), 500):
                client.delete(*keys[start : start + 500])

        self.state.run("clearing loop-detection sessions", drop_all)

    def __len__(self) -> int:
        return int(
            self.state.run("counting loop-detection sessions", lambda c: c.zcard(self._index))
        )

    def __contains__(self, session: object) -> bool:
        key = self._key(session)
        return bool(self.state.run("reading a loop-detection session", lambda c: c.exists(key)))
