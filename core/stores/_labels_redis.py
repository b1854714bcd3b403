"""The label store in Redis (``[state] url``): every process of a fleet sees the same labels.

Layout under ``<key_prefix>:lbl:<sha256(session)[:32]>:``, every key expiring ``ttl_s`` after the
session's last write:

- ``labels``: a set, the labels the session carries;
- ``tok:<label>``: a set per label, the tokens of the session's results with that label;
- ``n``: how many (token, label) pairs the ``tok:`` sets hold together (the bound);
- ``over``: a set, the labels whose results went past the bound;
- ``trusted``: a set, the tokens of the session's trusted input.

A write is one Lua script (the bound is checked and the sets grow in one step on the server); a
check is one pipelined round trip (``SMEMBERS over`` and one ``SMISMEMBER`` per label and for
``trusted``), whatever the size of the results behind it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable
from typing import Any

from ._contract import StoreError
from ._labels import (
    DEFAULT_MAX_LABELS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MAX_TRUSTED,
    DEFAULT_TTL_S,
    Provenance,
    check_labels,
)
from ._state import SharedState

# KEYS: labels, n, over, then one tok: set per label. ARGV: max pairs, max labels, ttl, then the
# labels (as many as tok: keys), then the tokens. Returns -1 when the label bound is hit. Tokens
# go in by 4,000 a SADD (Lua's unpack has a stack limit near 8,000) while the bound has room.
RECORD = """
local max, max_labels, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local nl = #KEYS - 3
local first = 4 + nl
for i = 1, nl do
  if redis.call('SISMEMBER', KEYS[1], ARGV[3 + i]) == 0 then
    if redis.call('SCARD', KEYS[1]) >= max_labels then return -1 end
    redis.call('SADD', KEYS[1], ARGV[3 + i])
  end
end
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
for i = 1, nl do
  local key, label = KEYS[3 + i], ARGV[3 + i]
  if redis.call('SISMEMBER', KEYS[3], label) == 0 then
    local j = first
    while j <= #ARGV do
      local last = math.min(j + 3999, #ARGV)
      if n + (last - j + 1) <= max then
        n = n + redis.call('SADD', key, unpack(ARGV, j, last))
        j = last + 1
      else
        if redis.call('SISMEMBER', key, ARGV[j]) == 0 then
          if n >= max then
            redis.call('SADD', KEYS[3], label)
            redis.call('EXPIRE', KEYS[3], ttl)
            break
          end
          redis.call('SADD', key, ARGV[j])
          n = n + 1
        end
        j = j + 1
      end
    end
    if redis.call('EXISTS', key) == 1 then redis.call('EXPIRE', key, ttl) end
  end
end
redis.call('SET', KEYS[2], n, 'EX', ttl)
redis.call('EXPIRE', KEYS[1], ttl)
return n
"""

# KEYS: labels, trusted. ARGV: max labels, max trusted, ttl, then the labels count, labels, and
# the trusted tokens. Returns -1 when the label bound is hit.
ADD = """
local max_labels, max_trusted, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local nl = tonumber(ARGV[4])
for i = 1, nl do
  local label = ARGV[4 + i]
  if redis.call('SISMEMBER', KEYS[1], label) == 0 then
    if redis.call('SCARD', KEYS[1]) >= max_labels then return -1 end
    redis.call('SADD', KEYS[1], label)
  end
end
if nl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
local held = redis.call('SCARD', KEYS[2])
for j = 5 + nl, #ARGV do
  if held >= max_trusted then break end
  held = held + redis.call('SADD', KEYS[2], ARGV[j])
end
if held > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
return held
"""

# KEYS: over, trusted, then one tok: set per label. ARGV: the labels (as many as tok: keys), then
# the tokens. Returns {token, 0, labels...} for the first untrusted token a labelled result held,
# {token, 1, overflowed labels...} when none did but an asked label went past the bound, or {}.
CHECK = """
local nl = #KEYS - 2
local first = nl + 1
for j = first, #ARGV do
  local token = ARGV[j]
  if redis.call('SISMEMBER', KEYS[2], token) == 0 then
    local hit = {}
    for i = 1, nl do
      if redis.call('SISMEMBER', KEYS[2 + i], token) == 1 then hit[#hit + 1] = ARGV[i] end
    end
    if #hit > 0 then return {token, 0, unpack(hit)} end
  end
end
local over = {}
for i = 1, nl do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then over[#over + 1] = ARGV[i] end
end
if #over == 0 then return {} end
for j = first, #ARGV do
  if redis.call('SISMEMBER', KEYS[2], ARGV[j]) == 0 then return {ARGV[j], 1, unpack(over)} end
end
return {}
"""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class RedisLabelStore:
    """Labels and tokens per session in the shared Redis of ``[state] url``."""

    def __init__(
        self,
        state: SharedState,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_trusted: int = DEFAULT_MAX_TRUSTED,
        max_labels: int = DEFAULT_MAX_LABELS,
        ttl_s: int = DEFAULT_TTL_S,
    ) -> None:
        self.state = state
        self.max_tokens = max_tokens
        self.max_trusted = max_trusted
        self.max_labels = max_labels
        self.ttl_s = ttl_s
        self._scripts: dict[str, Any] = {}

    @property
    def where(self) -> str:
        return self.state.label

    def _key(self, session: str, *parts: str) -> str:
        return self.state.key("lbl", _digest(session), *parts)

    def _run(self, what: str, source: str, keys: list[str], args: list[Any]) -> Any:
        def call(client: Any) -> Any:
            script = self._scripts.get(source)
            if script is None:
                script = self._scripts[source] = client.register_script(source)
            return script(keys=keys, args=args, client=client)

        return self.state.run(what, call)

    def _bound(self, session: str, done: Any) -> None:
        if int(done) < 0:
            raise StoreError(f"session {session!r} would carry more than {self.max_labels} labels")

    def add_labels(self, session: str, labels: Iterable[str]) -> None:
        checked = check_labels(labels)
        if not checked:
            return
        keys = [self._key(session, "labels"), self._key(session, "trusted")]
        args: list[Any] = [self.max_labels, self.max_trusted, self.ttl_s, len(checked), *checked]
        self._bound(session, self._run("adding labels", ADD, keys, args))

    def labels(self, session: str) -> frozenset[str]:
        key = self._key(session, "labels")
        found = self.state.run("reading labels", lambda client: client.smembers(key))
        return frozenset(m.decode("utf-8", "surrogatepass") for m in found)

    def record(self, session: str, labels: Collection[str], tokens: Collection[str]) -> None:
        checked = check_labels(labels)
        if not checked:
            return
        keys = [
            self._key(session, "labels"),
            self._key(session, "n"),
            self._key(session, "over"),
            *(self._key(session, "tok", _digest(label)) for label in checked),
        ]
        args: list[Any] = [self.max_tokens, self.max_labels, self.ttl_s, *checked, *tokens]
        self._bound(session, self._run("recording a labelled result", RECORD, keys, args))

    def trust(self, session: str, tokens: Collection[str]) -> None:
        if not tokens:
            return
        keys = [self._key(session, "labels"), self._key(session, "trusted")]
        args: list[Any] = [self.max_labels, self.max_trusted, self.ttl_s, 0, *tokens]
        self._run("recording trusted input", ADD, keys, args)

    def provenance(
        self, session: str, tokens: Collection[str], labels: Collection[str]
    ) -> Provenance | None:
        wanted = sorted(set(labels))
        order = list(tokens)
        if not wanted or not order:
            return None

        keys = [
            self._key(session, "over"),
            self._key(session, "trusted"),
            *(self._key(session, "tok", _digest(label)) for label in wanted),
        ]
        # One script, one round trip, a reply of a few words: the look-ups stay on the server.
        found = self._run("checking where a value came from", CHECK, keys, [*wanted, *order])
        if not found:
            return None
        token, overflow, *hit = (
            item.decode("utf-8", "surrogatepass") if isinstance(item, bytes) else item
            for item in found
        )
        return Provenance(token=str(token), labels=frozenset(hit), overflow=bool(int(overflow)))

    def forget(self, session: str) -> None:
        def drop(client: Any) -> None:
            labels = client.smembers(self._key(session, "labels"))
            keys = [self._key(session, part) for part in ("labels", "n", "over", "trusted")]
            keys += [
                self._key(session, "tok", _digest(m.decode("utf-8", "surrogatepass")))
                for m in labels
            ]
            client.delete(*keys)

        self.state.run("forgetting a session's labels", drop)

    def close(self) -> None:
        return None
