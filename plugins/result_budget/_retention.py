"""Retention for the artifact store: a size and an age limit, the oldest artifacts out first.

The store calls :meth:`Retention.stored` after every write. That is a counter update; the
directory is scanned (one ``os.scandir``, no file is opened) only when the running total passes
``max_bytes`` or ``PRUNE_INTERVAL_S`` has passed since the last scan, and the first time. Other
processes writing to the same directory are seen at the next scan. "Oldest" is the file's
modification time, which a store refreshes when the same content is stored again.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from pathlib import Path

DEFAULT_MAX_BYTES = 1_000_000_000
"""Total size of the artifacts a store keeps (1 GB); 0 means no size limit."""
DEFAULT_MAX_AGE_S = 7 * 86_400
"""Age in seconds after which an artifact is removed (7 days); 0 means no age limit."""
PRUNE_INTERVAL_S = 60.0
"""Longest time between two scans while artifacts are being written."""
STALE_TEMP_S = 3_600.0
"""A temporary file this old was left by a writer that died; it is removed."""

_ARTIFACT_NAME = r"[0-9a-f]{64}\.txt"
_TEMP_NAME = r"\.tmp-.*\.part"
"""Compiled at the first scan (re's cache keeps them), not at every start."""


class Retention:
    """Keeps one store directory within ``max_bytes`` and ``max_age_s``."""

    __slots__ = ("_lock", "_next_scan", "_total", "max_age_s", "max_bytes", "root")

    def __init__(self, root: Path, max_bytes: int, max_age_s: float) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self._lock = threading.Lock()
        self._total = 0
        self._next_scan = 0.0  # monotonic; 0: scan at the first write

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0 or self.max_age_s > 0

    def stored(self, name: str, size: int) -> int:
        """Account for ``size`` bytes just stored as ``name``; prune when due. Removed count."""
        if not self.enabled:
            return 0
        with self._lock:
            self._total += size
            over = self.max_bytes > 0 and self._total > self.max_bytes
            if not over and time.monotonic() < self._next_scan:
                return 0
            return self._prune(keep=name)

    def prune(self, now: float | None = None) -> int:
        """Scan the directory and remove what is over the limits now. Removed count."""
        with self._lock:
            return self._prune(keep=None, now=now)

    def _prune(self, keep: str | None, now: float | None = None) -> int:
        now = time.time() if now is None else now
        self._next_scan = time.monotonic() + PRUNE_INTERVAL_S
        files: list[tuple[float, int, str]] = []
        removed = 0
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return 0
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            if re.fullmatch(_ARTIFACT_NAME, entry.name):
                files.append((info.st_mtime, info.st_size, entry.name))
            elif re.fullmatch(_TEMP_NAME, entry.name) and now - info.st_mtime > STALE_TEMP_S:
                removed += self._remove(entry.name)  # a True counts as 1
        files.sort()  # oldest first
        total = sum(size for _, size, _ in files)
        for mtime, size, name in files:
            too_old = self.max_age_s > 0 and now - mtime > self.max_age_s
            too_big = self.max_bytes > 0 and total > self.max_bytes
            if name != keep and (too_old or too_big) and self._remove(name):
                removed += 1
                total -= size
        self._total = total
        return removed

    def _remove(self, name: str) -> bool:
        """Remove ``name``; True when it is gone (another process may have removed it first)."""
        try:
            os.unlink(self.root / name)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return True
