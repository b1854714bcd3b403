"""The memory behind ``Runtime.adjusted_params``: the final params of recent calls, bounded.

Bounded twice: by count (the last ``ADJUSTED_PARAMS_LIMIT`` calls) and by size (about
``ADJUSTED_PARAMS_BYTES`` of params in all, oldest out first). Params that no hook and no
validation changed, and that are larger than ``UNCHANGED_KEEP_BYTES``, are not kept at all: the
caller already holds them (they are what it proposed), and keeping them would pin memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from ..records._frozen import FrozenDict

ADJUSTED_PARAMS_LIMIT = 4096
"""How many calls are remembered at most."""
ADJUSTED_PARAMS_BYTES = 64 * 1024 * 1024
"""About how many bytes of params are remembered at most (64 MiB)."""
UNCHANGED_KEEP_BYTES = 64 * 1024
"""Params larger than this (64 KiB) are remembered only when something changed them."""
_SCALAR_SIZE = 8
_FLAT = frozenset({int, float, bool, type(None)})


def params_size(value: Any) -> int:
    """An estimate of the bytes a params value holds: text and bytes by length, 8 per scalar."""
    kind = type(value)
    if kind is FrozenDict:  # first: every call's params are one
        # Flat params (the usual proposal) are sized in one loop, without a call per value.
        total = _SCALAR_SIZE
        for key, item in value.items():
            item_kind = type(item)
            if item_kind is str:
                total += len(key) + len(item) + _SCALAR_SIZE
            elif item_kind in _FLAT:
                total += len(key) + _SCALAR_SIZE
            else:
                total += len(key) + params_size(item)
        return total
    if kind is str or kind is bytes:
        return len(value) + _SCALAR_SIZE
    if kind in _FLAT:
        return _SCALAR_SIZE
    if isinstance(value, Mapping):
        return _SCALAR_SIZE + sum(len(k) + params_size(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return _SCALAR_SIZE + sum(params_size(item) for item in value)
    if isinstance(value, (str, bytes)):
        return len(value) + _SCALAR_SIZE
    return _SCALAR_SIZE


class AdjustedParams:
    """Call id -> final (frozen) params, bounded by count and by bytes; safe across threads."""

    __slots__ = ("_entries", "_lock", "bytes", "limit", "max_bytes", "unchanged_keep_bytes")

    def __init__(
        self,
        limit: int = ADJUSTED_PARAMS_LIMIT,
        max_bytes: int = ADJUSTED_PARAMS_BYTES,
        unchanged_keep_bytes: int = UNCHANGED_KEEP_BYTES,
    ) -> None:
        self._entries: OrderedDict[str, tuple[Mapping[str, Any], int]] = OrderedDict()
        self._lock = threading.Lock()
        self.limit = limit
        self.max_bytes = max_bytes
        self.unchanged_keep_bytes = unchanged_keep_bytes
        self.bytes = 0

    def remember(self, call_id: str, params: Mapping[str, Any], changed: bool) -> None:
        """Keep ``params`` for ``call_id`` if the bounds allow; evict the oldest to make room."""
        size = params_size(params) if params else _SCALAR_SIZE
        keep = size <= self.max_bytes and (changed or size <= self.unchanged_keep_bytes)
        # acquire / release rather than ``with``: half the instructions, on every call
        # (BENCHMARKS.md, "Choices made for speed").
        lock = self._lock
        lock.acquire()
        try:
            entries = self._entries
            total = self.bytes
            if call_id in entries:  # the same call again (resumed, or a repeated id)
                total -= entries.pop(call_id)[1]
            if keep:
                entries[call_id] = (params, size)
                total += size
                while len(entries) > self.limit or total > self.max_bytes:
                    total -= entries.popitem(last=False)[1][1]
            self.bytes = total
        finally:
            lock.release()

    def get(self, call_id: str) -> Mapping[str, Any] | None:
        entry = self._entries.get(call_id)
        return None if entry is None else entry[0]

    def __len__(self) -> int:
        return len(self._entries)
