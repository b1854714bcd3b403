"""The ``toolhooks`` entry points of this environment, kept between processes.

Finding them costs every process a metadata scan: importing ``importlib.metadata`` (66 M
instructions, callgrind) and reading every installed distribution's ``entry_points.txt`` plus the
METADATA of the ones that have a plugin (60 M more with the 128 distributions of the dev venv).
A command-line hook pays that on every tool call, so the scan's result is kept in the user's cache
folder, one file per interpreter and ``sys.path``.

A kept result is used only while the environment is the same, checked on every read: the key
holds every ``sys.path`` entry's mtime and, for each ``*.dist-info`` / ``*.egg-info`` in it, that
folder's mtime and its ``entry_points.txt``'s. An install, an uninstall, an upgrade or an edit of
an entry point changes one of these, so the key misses and the scan runs again (about 5 M
instructions to build the key). Nothing is written while a folder is under 2 s old: a second
change in the same clock tick could keep its timestamp. A file that cannot be read, parsed or
written, a folder owned by another user, or an import hook besides the standard one that lists
distributions (they may not live in ``sys.path`` folders) is a miss: the cache can make a start
faster, never change what loads. With a plugin lock the runtime scans afresh
(``find_entry_points(fresh=True)``).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

FORMAT = 2
CACHE_ENV = "TOOLHOOKS_CACHE_DIR"
"""A folder for the cache instead of the platform's user cache folder; empty turns it off."""
SETTLE_NS = 2_000_000_000
_INFO_SUFFIXES = (".dist-info", ".egg-info")

Row = dict[str, Any]


def cache_dir() -> Path | None:
    """``$TOOLHOOKS_CACHE_DIR``, else the platform's user cache folder + ``toolhooks``."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return Path(chosen) if chosen.strip() else None
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        return Path(base, "toolhooks", "Cache") if base else None
    home = os.path.expanduser("~")
    if home == "~":
        return None
    if sys.platform == "darwin":
        return Path(home, "Library", "Caches", "toolhooks")
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "toolhooks")


def _other_metadata_finder() -> bool:
    """Whether a finder besides the standard one can list distributions: they may not come from
    ``sys.path`` folders, so the key could not see them change (no cache then)."""
    standard = importlib.machinery.PathFinder
    return any(
        finder is not standard and hasattr(finder, "find_distributions") for finder in sys.meta_path
    )


def environment_key() -> tuple[list[Any], int] | None:
    """What the scan depends on, and the newest mtime in it (nanoseconds); None when it cannot
    be known."""
    if _other_metadata_finder():
        return None
    finders = []
    for finder in sys.meta_path:
        kind = finder if isinstance(finder, type) else type(finder)
        finders.append(f"{kind.__module__}.{kind.__qualname__}")
    key: list[Any] = [FORMAT, sys.version, sys.executable, finders]
    newest = 0
    for entry in sys.path:
        where = entry or "."
        try:
            found = os.stat(where)
        except (OSError, ValueError):
            key.append([entry, None])
            continue
        newest = max(newest, found.st_mtime_ns)
        if not stat.S_ISDIR(found.st_mode):  # a zip file: its size and mtime
            key.append([entry, found.st_mtime_ns, found.st_size])
            continue
        infos, latest = _infos(where)
        newest = max(newest, latest)
        key.append([entry, found.st_mtime_ns, infos])
    return key, newest


def _infos(folder: str) -> tuple[list[Any], int]:
    """Each metadata folder in ``folder`` (as importlib.metadata finds them: any case) with its
    mtime and its entry_points.txt's (None when it has none)."""
    found: list[Any] = []
    newest = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.name.lower().endswith(_INFO_SUFFIXES):
                    continue
                try:
                    own = entry.stat().st_mtime_ns
                except OSError:
                    own = None
                try:
                    listed: int | None = os.stat(
                        os.path.join(entry.path, "entry_points.txt")
                    ).st_mtime_ns
                except OSError:
                    listed = None
                newest = max(newest, own or 0, listed or 0)
                found.append([entry.name, own, listed])
    except OSError:
        return [None], 0
    found.sort(key=lambda item: item[0])
    return found, newest


def _file(folder: Path) -> Path:
    where = json.dumps([sys.executable, sys.prefix, sys.path])
    digest = hashlib.sha256(where.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return folder / f"entry-points-{digest}.json"


def _own_folder(folder: Path) -> bool:
    if not hasattr(os, "getuid"):
        return True
    try:
        found = os.stat(folder)
    except OSError:
        return False
    return found.st_uid == os.getuid() and not found.st_mode & 0o022


class Lookup:
    """One read of the cache: the environment's key taken before any scan, so that rows found
    by a scan are stored under the key of the environment they were read from."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.folder = cache_dir()
        self.key: list[Any] = []
        self.newest = 0
        found = environment_key() if self.folder is not None else None
        if found is None:
            self.folder = None
        else:
            self.key, self.newest = found

    def rows(self) -> list[Row] | None:
        """The rows kept for this environment, or None (a miss: scan)."""
        if self.folder is None or not _own_folder(self.folder):
            return None
        try:
            kept = json.loads(_file(self.folder).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(kept, dict) or kept.get("group") != self.group:
            return None
        rows = kept.get("rows")
        return rows if kept.get("key") == self.key and isinstance(rows, list) else None

    def store(self, rows: list[Row]) -> None:
        """Keep ``rows`` for the next process, unless a folder is too new to be trusted."""
        if self.folder is not None and time.time_ns() - self.newest >= SETTLE_NS:
            _write(self.folder, {"group": self.group, "key": self.key, "rows": rows})


def _write(folder: Path, kept: dict[str, Any]) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _own_folder(folder):
            return
        target = _file(folder)
        writer = f"{os.getpid()}.{threading.get_ident()}"  # two runtimes may write at once
        temporary = target.with_name(f"{target.name}.{writer}.tmp")
        temporary.write_text(json.dumps(kept), "utf-8")
        os.replace(temporary, target)
    except (OSError, ValueError, TypeError):
        return
