"""The label store in Redis (``[state] url``): every process of a fleet sees the same labels.

Layout under ``<key_prefix>:lbl:<sha256(session)[:32]>:``, five keys a session whatever its
labels, all of which every write gives the session's ``ttl_s`` (they expire together, ``ttl_s``
after the session's last write: a result's tokens never outlive or predecease its labels):

- ``labels``: a set, the labels the session carries;
- ``tok``: a set of ``<label>\\0<token>``, the tokens of the session's results with each label;
- ``n``: how many (token, label) pairs ``tok`` holds (the bound);
- ``over``: a set, the labels whose results went past the bound;
- ``trusted``: a set, the tokens of the session's trusted input.

A write is one Lua script (the bound is checked, the sets grow and the five keys get the TTL in
one step on the server); a check is one script call, whatever the size of the results behind it.
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
    check_labels,
)
from ._provenance import Provenance
from ._state import SharedState

_PARTS = ("labels", "n", "over", "trusted", "tok")
"""The session's keys, in the order every script takes them."""

# Every write script ends here: each key of the session gets the TTL (EXPIRE of a key that does
# not exist is a no-op), so no key outlives another.
_EXPIRE_ALL = """
for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ttl) end
"""

# The labels of ARGV[5 .. 4 + nl] join the session's; returns -1 when the label bound is hit.
_ADD_LABELS = """
for i = 1, nl do
  local label = ARGV[4 + i]
  if redis.call('SISMEMBER', KEYS[1], label) == 0 then
    if redis.call('SCARD', KEYS[1]) >= max_labels then return -1 end
    redis.call('SADD', KEYS[1], label)
  end
end
"""

# KEYS: the five. ARGV: max pairs, max labels, ttl, the labels count, the labels, the tokens.
# Tokens go in by 4,000 a SADD (Lua's unpack has a stack limit near 8,000) while the bound has
# room. Returns -1 when the label bound is hit.
RECORD = (
    """
local max, max_labels, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local nl = tonumber(ARGV[4])
local first = 5 + nl
"""
    + _ADD_LABELS
    + """
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
for i = 1, nl do
  local label = ARGV[4 + i]
  if redis.call('SISMEMBER', KEYS[3], label) == 0 then
    local prefix = label .. '\0'
    local j = first
    while j <= #ARGV do
      local last = math.min(j + 3999, #ARGV)
      if n + (last - j + 1) <= max then
        local batch = {}
        for k = j, last do batch[#batch + 1] = prefix .. ARGV[k] end
        n = n + redis.call('SADD', KEYS[5], unpack(batch))
        j = last + 1
      else
        local member = prefix .. ARGV[j]
        if redis.call('SISMEMBER', KEYS[5], member) == 0 then
          if n >= max then
            redis.call('SADD', KEYS[3], label)
            break
          end
          redis.call('SADD', KEYS[5], member)
          n = n + 1
        end
        j = j + 1
      end
    end
  end
end
redis.call('SET', KEYS[2], n)
"""
    + _EXPIRE_ALL
    + """
return n
"""
)

# KEYS: the five. ARGV: max labels, max trusted, ttl, the labels count, the labels, and the
# trusted tokens. Returns -1 when the label bound is hit.
ADD = (
    """
local max_labels, max_trusted, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local nl = tonumber(ARGV[4])
"""
    + _ADD_LABELS
    + """
local held = redis.call('SCARD', KEYS[4])
for j = 5 + nl, #ARGV do
  if held >= max_trusted then break end
  held = held + redis.call('SADD', KEYS[4], ARGV[j])
end
"""
    + _EXPIRE_ALL
    + """
return held
"""
)

# KEYS: over, trusted, tok. ARGV: the labels count, the labels, then the tokens: joined by \0 in
# one argument when ARGV[2 + labels count] is "1" (what a check sends: redis-py packs each
# argument in Python, 55 of them cost about as much as the round trip), else one each (a token
# holding a \0). The tokens are looked up in ``tok`` with one SMISMEMBER a label, and in
# ``trusted`` only when found (most tokens of a call's params are in no result). Returns {token, 0, labels...} for the first
# untrusted token a labelled result held, {token, 1, overflowed labels...} when none did but an
# asked label went past the bound, or {}.
CHECK = """
local nl = tonumber(ARGV[1])
local tokens = {}
if ARGV[nl + 2] == '1' then
  local joined, start = ARGV[nl + 3], 1
  while true do
    local stop = string.find(joined, '\\0', start, true)
    if stop == nil then
      tokens[#tokens + 1] = string.sub(joined, start)
      break
    end
    tokens[#tokens + 1] = string.sub(joined, start, stop - 1)
    start = stop + 1
  end
else
  for j = nl + 3, #ARGV do tokens[#tokens + 1] = ARGV[j] end
end
-- 1 or 0 for each member: SMISMEMBER (Redis 6.2) by 4,000 (unpack's stack), a SISMEMBER each
-- on an older server. One command for the lot costs the server a fraction of one a token.
local function flags(key, members)
  local out, j = {}, 1
  while j <= #members do
    local last = math.min(j + 3999, #members)
    local found = redis.pcall('SMISMEMBER', key, unpack(members, j, last))
    if found.err then
      for k = j, #members do out[k] = redis.call('SISMEMBER', key, members[k]) end
      return out
    end
    for k = 1, #found do out[j + k - 1] = found[k] end
    j = last + 1
  end
  return out
end
local held = {}
for i = 1, nl do
  local prefix, members = ARGV[1 + i] .. '\\0', {}
  for j = 1, #tokens do members[j] = prefix .. tokens[j] end
  held[i] = flags(KEYS[3], members)
end
for j = 1, #tokens do
  local hit = {}
  for i = 1, nl do
    if held[i][j] == 1 then hit[#hit + 1] = ARGV[1 + i] end
  end
  if #hit > 0 and redis.call('SISMEMBER', KEYS[2], tokens[j]) == 0 then
    return {tokens[j], 0, unpack(hit)}
  end
end
local over = {}
for i = 1, nl do
  if redis.call('SISMEMBER', KEYS[1], ARGV[1 + i]) == 1 then over[#over + 1] = ARGV[1 + i] end
end
if #over == 0 then return {} end
for j = 1, #tokens do
  if redis.call('SISMEMBER', KEYS[2], tokens[j]) == 0 then return {tokens[j], 1, unpack(over)} end
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

    def _keys(self, session: str) -> list[str]:
        return [self._key(session, part) for part in _PARTS]

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
        args: list[Any] = [self.max_labels, self.max_trusted, self.ttl_s, len(checked), *checked]
        self._bound(session, self._run("adding labels", ADD, self._keys(session), args))

    def labels(self, session: str) -> frozenset[str]:
        key = self._key(session, "labels")
        found = self.state.run("reading labels", lambda client: client.smembers(key))
        return frozenset(m.decode("utf-8", "surrogatepass") for m in found)

    def record(self, session: str, labels: Collection[str], tokens: Collection[str]) -> None:
        checked = check_labels(labels)
        if not checked:
            return
        args: list[Any] = [
            self.max_tokens, self.max_labels, self.ttl_s, len(checked), *checked, *tokens
        ]  # fmt: skip
        keys = self._keys(session)
        self._bound(session, self._run("recording a labelled result", RECORD, keys, args))

    def trust(self, session: str, tokens: Collection[str]) -> None:
        if not tokens:
            return
        args: list[Any] = [self.max_labels, self.max_trusted, self.ttl_s, 0, *tokens]
        self._run("recording trusted input", ADD, self._keys(session), args)

    def provenance(
        self, session: str, tokens: Collection[str], labels: Collection[str]
    ) -> Provenance | None:
        wanted = sorted(set(labels))
        order = list(tokens)
        if not wanted or not order:
            return None

        keys = [self._key(session, part) for part in ("over", "trusted", "tok")]
        # One script, one round trip, a reply of a few words: the look-ups stay on the server.
        # The tokens go as one argument joined by \0 unless one of them holds a \0 (no token of
        # the tokeniser does: it cuts text at every character that is not a letter, digit or
        # @._%+-/:).
        joined = "\0".join(order)
        if joined.count("\0") == len(order) - 1:
            args: list[Any] = [len(wanted), *wanted, "1", joined]
        else:
            args = [len(wanted), *wanted, "0", *order]
        found = self._run("checking where a value came from", CHECK, keys, args)
        if not found:
            return None
        token, overflow, *hit = (
            item.decode("utf-8", "surrogatepass") if isinstance(item, bytes) else item
            for item in found
        )
        return Provenance(token=str(token), labels=frozenset(hit), overflow=bool(int(overflow)))

    def forget(self, session: str) -> None:
        def drop(client: Any) -> None:
            client.delete(*self._keys(session))

        self.state.run("forgetting a session's labels", drop)

    def close(self) -> None:
        return None
