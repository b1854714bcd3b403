"""The Lua scripts the Redis approval store runs on the server, so that each transition (add,
decide, consume, grant) is one atomic step there: two processes consuming one approval get it
once between them, and a reader never sees half of a change."""

# KEYS: row, ids, time, call index, digest index. ARGV: row JSON, then MUTABLE values (JSON),
# id member, created_at, id, ttl ms. A known id only moves a pending row's deadline.
ADD = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'state') == '"pending"' then
    redis.call('HSET', KEYS[1], 'expires_at', ARGV[3])
    redis.call('PEXPIRE', KEYS[1], ARGV[13])
  end
  return 0
end
redis.call('HSET', KEYS[1], 'row', ARGV[1], 'state', ARGV[2], 'expires_at', ARGV[3],
  'decision', ARGV[4], 'decided_params', ARGV[5], 'decided_by', ARGV[6], 'decided_at', ARGV[7],
  'reason', ARGV[8], 'consumed_at', ARGV[9])
redis.call('PEXPIRE', KEYS[1], ARGV[13])
redis.call('ZADD', KEYS[2], 0, ARGV[10])
redis.call('ZADD', KEYS[3], ARGV[11], ARGV[12])
redis.call('ZADD', KEYS[4], ARGV[11], ARGV[12])
redis.call('ZADD', KEYS[5], ARGV[11], ARGV[12])
return 1
"""

# KEYS: row. ARGV: now, decision, decided_params, decided_by, reason (JSON each), ttl ms,
# channel. Pending and unexpired -> decided.
DECIDE = """
if redis.call('HGET', KEYS[1], 'state') ~= '"pending"' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'state', '"decided"', 'decision', ARGV[2], 'decided_params', ARGV[3],
  'decided_by', ARGV[4], 'decided_at', ARGV[1], 'reason', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PUBLISH', ARGV[7], 'decided')
return 1
"""

# KEYS: row. ARGV: now, ttl ms, channel. Not yet consumed -> consumed, exactly once.
CONSUME = """
local consumed = redis.call('HGET', KEYS[1], 'consumed_at')
if not consumed or consumed ~= 'null' then return 0 end
redis.call('HSET', KEYS[1], 'state', '"consumed"', 'consumed_at', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], 'consumed')
return 1
"""

# KEYS: grants hash, the scope's key. ARGV: grant id, grant JSON. One grant per scope.
GRANT = """
if redis.call('SET', KEYS[2], ARGV[1], 'NX') then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0
"""

# KEYS: row, votes hash. ARGV: now, person, vote JSON, quorum, ttl ms, channel, the vote's
# decision, reason JSON, params JSON. A pending row only ever holds allow votes (a deny or an edit
# decides it), so only this vote can be a deny or an edit. Returns -1: no row; 0: closed;
# 2: this person voted already; 1: counted; 3: counted and decided.
VOTE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'state') ~= '"pending"' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[1]) then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 0 then return 2 end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local decision, by, reason, params = nil, cjson.encode(ARGV[2]), ARGV[8], 'null'
if ARGV[7] == 'deny' then
  decision = '"deny"'
elseif ARGV[7] == 'edit' then
  decision, params = '"edit"', ARGV[9]
else
  local names = redis.call('HKEYS', KEYS[2])
  if #names < tonumber(ARGV[4]) then return 1 end
  table.sort(names)
  decision, by, reason = '"allow-once"', cjson.encode(table.concat(names, ', ')), 'null'
end
redis.call('HSET', KEYS[1], 'state', '"decided"', 'decision', decision, 'decided_params', params,
  'decided_by', by, 'decided_at', ARGV[1], 'reason', reason)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PUBLISH', ARGV[6], 'decided')
return 3
"""
