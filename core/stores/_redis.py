"""The approval store in Redis (``[state] url``): shared by every process, single use across them.

Layout under ``<key_prefix>:appr:``

- ``row:<id>``: a hash. ``row`` holds the approval as JSON, written once. The fields that change
  (``state``, ``expires_at``, ``decision``, ``decided_params``, ``decided_by``, ``decided_at``,
  ``reason``, ``consumed_at``) are fields of their own, JSON-encoded, and change only inside a
  Lua script. A transition (decide, consume) is therefore one atomic step on the server: two
  processes consuming one approval get it once between them, and a reader never sees half of a
  change. The scripts never parse the JSON of the params, so params come back exactly as written.
- ``ids`` (lexicographic: short-id prefix lookup), ``time`` (newest first), ``call:<call_id>``,
  ``digest:<digest>``: sorted sets that index the rows. An index entry whose row is gone (purged,
  or expired by its Redis TTL, a backstop for purge) is skipped and dropped.
- ``chan:<id>``: a pub/sub channel. decide and consume publish on it, so ``wait`` in another
  process returns at once instead of on a poll interval.
- ``grants`` (grant id -> JSON) and ``grant:<scope hash>`` (the grant id for one scope, so that
  granting the same thing twice at once keeps one grant).

The Lua scripts that make each transition one atomic step are :mod:`._redis_scripts`. Over 300
lines on purpose: this is the whole approval store contract for one backend, read side by side
with ``_sqlite.py``.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..records._frozen import freeze_params, thaw
from ._contract import (
    DEFAULT_RETENTION_S,
    AmbiguousId,
    Grant,
    StoredApproval,
    Tally,
    Vote,
    closed_reason,
    grant_matches,
    grants_from_json,
    id_key,
    past_retention,
    revoke_matches,
    votes_from_json,
)
from ._redis_scripts import ADD, CONSUME, DECIDE, GRANT, VOTE
from ._state import SharedState

MUTABLE = (
    "state",
    "expires_at",
    "decision",
    "decided_params",
    "decided_by",
    "decided_at",
    "reason",
    "consumed_at",
)
"""Fields kept outside the row's JSON: only these ever change after ``add``."""

_LOOKUP_LIMIT = 20
"""Matches fetched for a prefix; more than one is ambiguous, this many are enough to list."""


def _dumps(value: Any) -> str:
    # ASCII: a lone surrogate in a param must not fail the UTF-8 encoding on the way to Redis.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _ms(seconds: float) -> int:
    return max(1_000, int(seconds * 1000))


class RedisStore:
    """The approval store of ``[state] url``: every process sharing the URL shares its rows."""

    def __init__(self, state: SharedState, retention_s: float = DEFAULT_RETENTION_S) -> None:
        self.state = state
        self.retention_s = retention_s
        self._scripts: dict[str, Any] = {}

    @property
    def where(self) -> str:
        return f"the shared state at {self.state.label}"

    # -- keys and helpers -------------------------------------------------------------------

    def _key(self, *parts: str) -> str:
        return self.state.key("appr", *parts)

    def _run(self, what: str, name: str, source: str, keys: list[str], args: list[Any]) -> Any:
        def call(client: Any) -> Any:
            script = self._scripts.get(name)
            if script is None or script.registered_client is not client:
                script = self._scripts[name] = client.register_script(source)
            return script(keys=keys, args=args)

        return self.state.run(what, call)

    def _decode(self, fields: Mapping[bytes, bytes]) -> StoredApproval | None:
        raw = fields.get(b"row")
        if raw is None:
            return None
        data = json.loads(raw)
        for name in MUTABLE:
            value = fields.get(name.encode())
            if value is not None:
                data[name] = json.loads(value)
        data["allowed_decisions"] = tuple(data.get("allowed_decisions", ()))
        return StoredApproval(**data)

    def _load(self, approval_id: str) -> StoredApproval | None:
        key = self._key("row", approval_id)
        fields = self.state.run("reading an approval", lambda client: client.hgetall(key))
        return self._decode(fields) if fields else None

    def _load_many(self, ids: builtins.list[str]) -> builtins.list[StoredApproval]:
        def fetch(client: Any) -> builtins.list[Any]:
            pipe = client.pipeline(transaction=False)
            for approval_id in ids:
                pipe.hgetall(self._key("row", approval_id))
            return pipe.execute()  # type: ignore[no-any-return]

        rows = []
        for fields in self.state.run("reading approvals", fetch) if ids else []:
            row = self._decode(fields) if fields else None
            if row is not None:
                rows.append(row)
        return rows

    def _ttl_ms(self, until: float) -> int:
        """The row's Redis TTL: a backstop for purge, ``retention_s`` after ``until``."""
        return _ms(max(until - time.time(), 0.0) + self.retention_s + 60)

    # -- the ApprovalStore protocol ----------------------------------------------------------

    def add(self, approval: StoredApproval) -> None:
        """Record a pending approval; the same id again only moves a pending row's deadline."""
        data = approval.to_dict()
        mutable = [_dumps(data.pop(name)) for name in MUTABLE]
        self._run(
            "recording an approval",
            "add",
            ADD,
            [
                self._key("row", approval.id),
                self._key("ids"),
                self._key("time"),
                self._key("call", approval.call_id),
                self._key("digest", approval.digest),
            ],
            [
                _dumps(data),
                *mutable,
                f"{id_key(approval.id)}\x00{approval.id}",
                approval.created_at,
                approval.id,
                self._ttl_ms(approval.expires_at),
            ],
        )

    def get(self, key: str) -> StoredApproval | None:
        row = self._load(key)
        if row is None:
            wanted = id_key(key)
            if not wanted:
                return None
            members = self.state.run(
                "looking up an approval",
                lambda client: client.zrangebylex(
                    self._key("ids"),
                    b"[" + wanted.encode(),
                    b"[" + wanted.encode() + b"\xff",
                    start=0,
                    num=_LOOKUP_LIMIT,
                ),
            )
            ids = [member.split(b"\x00", 1)[1].decode() for member in members]
            rows = self._load_many(ids)
            if len(rows) > 1:
                raise AmbiguousId(key, (r.id for r in rows))
            row = rows[0] if rows else None
        return None if row is None else row.effective()

    def _newest(self, index: str, limit: int | None = None) -> builtins.list[str]:
        end = -1 if limit is None else limit - 1
        ids = self.state.run(
            "reading the approval index", lambda c: c.zrevrange(self._key(index), 0, end)
        )
        return [raw.decode() for raw in ids]

    def for_call(self, call_id: str) -> StoredApproval | None:
        for row in self._load_many(self._newest(f"call:{call_id}")):
            if row.consumed_at is None:
                return row.effective()
        return None

    def reusable(self, digest: str, plugin: str) -> StoredApproval | None:
        """An unexpired, unconsumed row for the same digest and plugin (a restarted agent)."""
        now = time.time()
        for row in self._load_many(self._newest(f"digest:{digest}")):
            if (
                row.plugin == plugin
                and row.state in ("pending", "decided")
                and row.expires_at > now
            ):
                return row
        return None

    def list(
        self, *, states: Iterable[str] | None = None, limit: int = 200
    ) -> builtins.list[StoredApproval]:
        wanted = None if states is None else set(states)
        now = time.time()
        rows = [row.effective(now) for row in self._load_many(self._newest("time"))]
        rows = [row for row in rows if wanted is None or row.state in wanted]
        rows.sort(key=lambda r: (r.created_at, r.id), reverse=True)
        return rows[:limit]

    def decide(
        self,
        approval_id: str,
        decision: str,
        *,
        params: Mapping[str, Any] | None = None,
        by: str | None = None,
        reason: str | None = None,
    ) -> StoredApproval | None:
        decided_params = None if params is None else thaw(freeze_params(params))
        won = self._run(
            "deciding an approval",
            "decide",
            DECIDE,
            [self._key("row", approval_id)],
            [
                repr(time.time()),
                _dumps(decision),
                _dumps(decided_params),
                _dumps(by),
                _dumps(reason),
                self._ttl_ms(time.time()),
                self._key("chan", approval_id),
            ],
        )
        return self._load(approval_id) if won == 1 else None

    def consume(self, approval_id: str) -> StoredApproval | None:
        won = self._run(
            "consuming an approval",
            "consume",
            CONSUME,
            [self._key("row", approval_id)],
            [repr(time.time()), self._ttl_ms(time.time()), self._key("chan", approval_id)],
        )
        return self._load(approval_id) if won == 1 else None

    def wait(self, approval_id: str, timeout_s: float) -> StoredApproval | None:
        """Block until the row leaves "pending" or ``timeout_s``; a decision wakes it at once."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        channel = self._key("chan", approval_id)

        def watch(client: Any) -> StoredApproval | None:
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.subscribe(channel)  # before the first read: no decision slips between
                while True:
                    fields = client.hgetall(self._key("row", approval_id))
                    row = self._decode(fields) if fields else None
                    if row is None:
                        return None
                    row = row.effective()
                    remaining = deadline - time.monotonic()
                    if row.state != "pending" or remaining <= 0:
                        return row
                    until_expiry = max(0.01, row.expires_at - time.time())
                    pubsub.get_message(timeout=min(remaining, until_expiry, 30.0))
            finally:
                pubsub.close()

        return self.state.run("waiting for an approval", watch)  # type: ignore[no-any-return]

    def vote(self, vote: Vote, *, quorum: int) -> Tally | None:
        """One Lua script: check the row is open, record the vote once, decide if it decides."""
        row = self._load(vote.approval_id)
        if row is None:
            return None
        if row.digest != vote.digest:  # the row's digest never changes: no race to lose here
            return Tally(
                row=row.effective(),
                votes=tuple(self.votes(row.id)),
                refused=closed_reason(row.effective(), vote),
            )
        params = None if vote.params is None else thaw(freeze_params(vote.params))
        code = self._run(
            "casting a vote",
            "vote",
            VOTE,
            [self._key("row", row.id), self._key("votes", row.id)],
            [
                repr(time.time()),
                vote.person,
                _dumps(vote.to_dict()),
                quorum,
                self._ttl_ms(max(row.expires_at, time.time())),
                self._key("chan", row.id),
                vote.decision,
                _dumps(vote.reason),
                _dumps(params),
            ],
        )
        after = self._load(row.id)
        if code == -1 or after is None:
            return None
        after = after.effective()
        ballots = tuple(self.votes(row.id))
        if code == 0:
            refused = closed_reason(after, vote) or f"approval {row.short_id} is closed"
            return Tally(row=after, votes=ballots, refused=refused)
        return Tally(row=after, votes=ballots, counted=code in (1, 3), decided=code == 3)

    def votes(self, approval_id: str) -> builtins.list[Vote]:
        key = self._key("votes", approval_id)
        return votes_from_json(self.state.run("reading votes", lambda c: c.hvals(key)))

    def _claim_key(self, key: str) -> str:
        return self._key("claim", hashlib.sha256(key.encode()).hexdigest()[:32])

    def claim(self, key: str, ttl_s: float, value: str = "1") -> bool:
        name = self._claim_key(key)
        return bool(
            self.state.run(
                "claiming", lambda c: c.set(name, value.encode(), nx=True, px=_ms(ttl_s))
            )
        )

    def claimed(self, key: str) -> str | None:
        name = self._claim_key(key)
        found = self.state.run("reading a claim", lambda c: c.get(name))
        return None if found is None else bytes(found).decode()

    def grant(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None, by: str | None
    ) -> None:
        grant = Grant.new(plugin=plugin, tool=tool, sender=sender, session=session, by=by)
        self._run(
            "recording a grant",
            "grant",
            GRANT,
            [self._key("grants"), self._scope_key(plugin, tool, sender, grant.session)],
            [grant.id, _dumps(grant.to_dict())],
        )

    def _scope_key(self, plugin: str, tool: str, sender: str | None, session: str | None) -> str:
        scope = _dumps([plugin, tool, sender, None if sender is not None else session])
        return self._key("grant", hashlib.sha256(scope.encode()).hexdigest()[:32])

    def is_granted(
        self, *, plugin: str, tool: str, sender: str | None, session: str | None
    ) -> bool:
        if sender is None and session is None:
            return any(grant_matches(g, plugin, tool, sender, session) for g in self.grants())
        key = self._scope_key(plugin, tool, sender, session)
        return bool(self.state.run("reading grants", lambda client: client.exists(key)))

    def grants(self) -> builtins.list[Grant]:
        raw = self.state.run("reading grants", lambda c: c.hvals(self._key("grants")))
        return grants_from_json(raw)

    def revoke(
        self,
        *,
        grant_id: str | None = None,
        plugin: str | None = None,
        tool: str | None = None,
        sender: str | None = None,
    ) -> int:
        doomed = [g for g in self.grants() if revoke_matches(g, grant_id, plugin, tool, sender)]

        def remove(client: Any) -> int:
            removed = 0
            for grant in doomed:
                removed += client.hdel(self._key("grants"), grant.id)
                scope = self._scope_key(grant.plugin, grant.tool, grant.sender, grant.session)
                # Only our own grant's scope key: a new grant for the scope may have replaced it.
                if client.get(scope) == grant.id.encode():
                    client.delete(scope)
            return removed

        return int(self.state.run("revoking grants", remove))

    def purge(self, now: float | None = None) -> int:
        moment = time.time() if now is None else now
        ids = self._newest("time")
        rows = {row.id: row for row in self._load_many(ids)}
        doomed = [r for r in rows.values() if past_retention(r, moment, self.retention_s)]
        gone = [i for i in ids if i not in rows]  # expired by their Redis TTL

        def remove(client: Any) -> None:
            pipe = client.pipeline(transaction=False)
            for row in doomed:
                pipe.delete(self._key("row", row.id))
                pipe.delete(self._key("votes", row.id))
                pipe.zrem(self._key("call", row.call_id), row.id)
                pipe.zrem(self._key("digest", row.digest), row.id)
            for approval_id in [*gone, *(r.id for r in doomed)]:
                pipe.zrem(self._key("time"), approval_id)
                pipe.zrem(self._key("ids"), f"{id_key(approval_id)}\x00{approval_id}")
            pipe.execute()

        if doomed or gone:
            self.state.run("purging approvals", remove)
        return len(doomed)

    def close(self) -> None:
        return None
