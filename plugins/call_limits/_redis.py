"""Counters in Redis: one Lua script checks every limit of a call and counts it, atomically.

The script runs on the server as one step, so N processes (on N machines) never admit more
than the limit: there is no read-then-write window between them. Times come from the server's
clock (``TIME``), so workers with skewed clocks still share one window.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from toolhooks.kit import SharedState

from ._counters import Check, Refusal

# KEYS: one counter per limit. ARGV[1]: a unique member for the sliding-window sets; then per
# limit: kind (1 count, 2 rate), calls, window in ms. Returns {0, 0} when admitted, else
# {position (1-based), milliseconds until the limit admits again, -1 for a count}.
ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do
  local kind = tonumber(ARGV[i * 3 - 1])
  local calls = tonumber(ARGV[i * 3])
  local window = tonumber(ARGV[i * 3 + 1])
  if kind == 1 then
    local used = tonumber(redis.call('GET', KEYS[i]) or '0')
    if used >= calls then return {i, -1} end
  else
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
    if redis.call('ZCARD', KEYS[i]) >= calls then
      local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
      return {i, tonumber(oldest[2]) + window - now}
    end
  end
end
for i = 1, #KEYS do
  local kind = tonumber(ARGV[i * 3 - 1])
  local window = tonumber(ARGV[i * 3 + 1])
  if kind == 1 then
    redis.call('INCR', KEYS[i])
  else
    redis.call('ZADD', KEYS[i], now, ARGV[1])
  end
  redis.call('PEXPIRE', KEYS[i], window)
end
return {0, 0}
"""


class RedisCounters:
    """Counters shared by every process using ``[state] url``; exact across them."""

    def __init__(self, state: SharedState) -> None:
        self.state = state
        self._script: Any = None

    def key(self, *parts: str) -> str:
        return self.state.key("limits", *parts)

    def admit(self, checks: Sequence[Check]) -> Refusal | None:
        keys = [key for _, key in checks]
        args: list[Any] = [uuid.uuid4().hex]
        for limit, _ in checks:
            args.extend((2 if limit.rate else 1, limit.calls, limit.window_ms))
        result = self.state.run(
            "checking call limits", lambda client: self._run(client, keys, args)
        )
        position, wait_ms = int(result[0]), int(result[1])
        if position == 0:
            return None
        return position - 1, None if wait_ms < 0 else wait_ms / 1000.0

    def _run(self, client: Any, keys: list[str], args: list[Any]) -> Any:
        script = self._script
        if script is None or script.registered_client is not client:
            script = self._script = client.register_script(ADMIT)
        return script(keys=keys, args=args)

    def reset(self) -> int:
        """Delete every counter under this deployment's key prefix; returns how many."""

        def clear(client: Any) -> int:
            removed = 0
            batch: list[bytes] = []
            for key in client.scan_iter(match=self.key("*"), count=500):
                batch.append(key)
                if len(batch) >= 500:
                    removed += client.delete(*batch)
                    batch.clear()
            if batch:
                removed += client.delete(*batch)
            return removed

        return int(self.state.run("resetting call limits", clear))
