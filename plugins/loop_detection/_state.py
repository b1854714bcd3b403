"""One session's recent calls: its window of signatures and outcomes, and what it warned about.

Memory per session is kept small on purpose (the benchmark budget is 8 KB at the default
window): the window is two ``bytearray`` rings of 8-byte records, signatures and outcomes,
which also keeps a session's window in a few contiguous cache lines (with 100_000 live sessions
a list of int objects scattered over the heap costs a cache miss per entry) and lets C code
(``count``, ``rfind``, ``startswith``) do the scanning. The dicts for warning buckets and
unknown-tool runs exist only once needed. Where the states live: _sessions.py (this process)
and _shared.py (Redis).
"""

from __future__ import annotations

import hashlib
import struct
import threading
from collections.abc import Iterator
from typing import Any

SessionKey = Any  # the call's session_id: a str, or None for the shared "no session" bucket
WarnKey = tuple[int, bytes]
RECORD = 8
"""Bytes per window entry in each ring: a 64-bit signature, a 64-bit outcome."""
NO_OUTCOME = bytes(RECORD)
"""The outcome of a call that has not finished (or never ran); real outcomes are never zero."""
_put = struct.Struct(f"{RECORD}s").pack_into
"""Writes one record in place: ``_put(ring, offset, value)``. Not ``ring[a:b] = value``: a
bytearray copies a bytes value into a new bytearray before assigning it, three times a call
(BENCHMARKS.md, choices made for speed)."""
_WARNED_LIMIT = 32
_UNKNOWN_LIMIT = 16


def tool_key(name: str) -> int:
    """A tool name's key in the unknown-tool counts: the same in every process (unlike hash())."""
    digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1  # fits a signed 64-bit int, as JSON numbers do


def _rfind_aligned(buf: bytearray, needle: bytes, lo: int, hi: int) -> Iterator[int]:
    """Entry positions of ``needle`` in ``buf[lo:hi]`` (record-aligned), highest first."""
    while True:
        at = buf.rfind(needle, lo, hi)
        if at < 0:
            return
        if at % RECORD == 0:  # else it straddles two records: not a match
            yield at // RECORD
        hi = at + RECORD - 1  # next: matches that start below ``at``


class SessionState:
    """One session's recent calls. Guard every read and write with ``lock``.

    Entry ``seq`` (the n-th call recorded, from 0) lives at position ``seq % size`` of both
    rings, where ``size`` is the number of entries held (it grows to ``window``, then stays).
    """

    __slots__ = ("last_name", "lock", "outs", "sigs", "streak", "total", "unknown", "warned")

    def __init__(self, lock: threading.Lock) -> None:
        self.sigs = bytearray()
        """Call signatures, 8 bytes each."""
        self.outs = bytearray()
        """Outcome hashes, 8 bytes each; NO_OUTCOME while the call has not finished."""
        self.total = 0
        """Calls ever recorded; the next call gets this sequence number."""
        self.streak = 0
        """Consecutive finished calls (any tool) that made no progress."""
        self.last_name = ""
        """The tool name of the most recent recorded call (for messages)."""
        self.lock = lock
        """Shared with other sessions (a stripe of the store's lock pool): no object per session."""
        self.warned: dict[WarnKey, int] | None = None
        """Warning key -> highest bucket already delivered."""
        self.unknown: dict[int, int] | None = None
        """tool_key(tool name) -> unknown-tool failures in a row."""

    @property
    def size(self) -> int:
        return len(self.sigs) // RECORD

    def count(self, sig: bytes) -> int:
        """How many entries in the window have signature ``sig``."""
        # bytearray.count can, in theory, also match 8 bytes straddling two records; with
        # 64-bit hash digests that is as likely as a hash collision, and far cheaper to ignore.
        return self.sigs.count(sig)

    def sig_is(self, position: int, sig: bytes) -> bool:
        return self.sigs.startswith(sig, position * RECORD)

    def out_at(self, position: int) -> bytes:
        start = position * RECORD
        return bytes(self.outs[start : start + RECORD])

    def newest_first(self, sig: bytes, newest: int | None = None) -> Iterator[int]:
        """Positions of the entries with ``sig``, newest first, from entry ``newest`` back.

        ``newest`` is a sequence number (default: the most recent entry); entries older than
        the window are gone.
        """
        size = self.size
        if not size:
            return
        total = self.total
        top = total - 1 if newest is None else newest
        oldest = total - size
        if top < oldest:
            return
        high = top % size  # position of entry ``top``
        entries = top - oldest + 1
        sigs = self.sigs
        if entries <= high + 1:
            yield from _rfind_aligned(sigs, sig, (high + 1 - entries) * RECORD, (high + 1) * RECORD)
        else:
            yield from _rfind_aligned(sigs, sig, 0, (high + 1) * RECORD)
            wrapped = entries - high - 1
            yield from _rfind_aligned(sigs, sig, (size - wrapped) * RECORD, size * RECORD)

    def position_of(self, back: int) -> int:
        """The position of the entry ``back`` calls before the most recent one (0: itself)."""
        return (self.total - 1 - back) % self.size

    def append(self, sig: bytes, name: str, window: int) -> int:
        """Record a call that is about to run; return its sequence number."""
        seq = self.total
        sigs = self.sigs
        if len(sigs) < window * RECORD:
            sigs += sig
            self.outs += NO_OUTCOME
        else:
            start = (seq % window) * RECORD
            _put(sigs, start, sig)
            _put(self.outs, start, NO_OUTCOME)
        self.total = seq + 1
        self.last_name = name
        return seq

    def record(self, seq: int, out: bytes, new: bool = False) -> bool:
        """Store the outcome of call ``seq``; return True when it made no progress.

        No progress: the previous finished call with the same signature (still in the window)
        ended with the same outcome. The session's no-progress streak follows. ``new``: no 8
        bytes of the window equalled the call's signature when ``seq`` was appended, so no call
        before it can have that signature now (entries before ``seq`` are only ever dropped):
        nothing to scan.
        """
        sigs = self.sigs
        size = len(sigs) // RECORD
        total = self.total
        if seq >= total or total - seq > size:  # not in this window (any more)
            return False
        start = (seq % size) * RECORD
        _put(self.outs, start, out)
        stalled = False
        if not new and sigs.count(sig := bytes(sigs[start : start + RECORD])) > 1:
            for other in self.newest_first(sig, seq - 1):
                previous = self.out_at(other)
                if previous != NO_OUTCOME:
                    stalled = previous == out
                    break
        self.streak = self.streak + 1 if stalled else 0
        return stalled

    def note_unknown(self, tool: int, unknown: bool) -> None:
        """Count unknown-tool failures in a row for one tool name; any other ending resets."""
        runs = self.unknown
        if unknown:
            if runs is None:
                runs = self.unknown = {}
            runs[tool] = runs.pop(tool, 0) + 1
            if len(runs) > _UNKNOWN_LIMIT:
                del runs[next(iter(runs))]
        elif runs:
            runs.pop(tool, None)

    def first_warning(self, key: WarnKey, bucket: int) -> bool:
        """True (and remember it) when ``bucket`` of ``key`` was not delivered yet."""
        warned = self.warned
        if warned is None:
            warned = self.warned = {}
        if warned.get(key, 0) >= bucket:
            return False
        warned.pop(key, None)
        warned[key] = bucket
        if len(warned) > _WARNED_LIMIT:
            del warned[next(iter(warned))]
        return True

    def forget_warning(self, key: WarnKey) -> None:
        if self.warned:
            self.warned.pop(key, None)

    def forget_kind(self, kind: int) -> None:
        warned = self.warned
        if warned:
            for key in [k for k in warned if k[0] == kind]:
                del warned[key]
