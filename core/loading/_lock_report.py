"""How the installed plugins stand against the plugin lock: the report ``toolhooks plugins lock
--check``, ``toolhooks doctor`` and the desk show. Apart from ``_lock``, which every runtime
imports, so that a runtime that never asks for it does not make its record class at start."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..config._settings import LoadedConfig
from ..records._errors import ConfigError
from ._lock import LOCK_FILE, current_entries, differences, lock_path

State = Literal["none", "ok", "differs", "error"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LockReport:
    """How the installed plugins stand against the lock (``--check``, doctor, the desk)."""

    path: Path | None
    state: State
    locked: int = 0
    differences: tuple[str, ...] = ()
    error: str | None = None

    @property
    def summary(self) -> str:
        name = str(self.path) if self.path is not None else LOCK_FILE
        if self.state == "none":
            return "no plugin lock: every installed plugin loads"
        if self.state == "error":
            return self.error or f"{name} cannot be read"
        if self.state == "ok":
            return f"{name} matches: {self.locked} plugin{'s' if self.locked != 1 else ''} locked"
        count = len(self.differences)
        return f"{name} differs from the installed plugins ({count} difference{'s' if count != 1 else ''})"


def lock_report(config: LoadedConfig) -> LockReport:
    """Compare the lock with what ``toolhooks plugins lock`` would write now; never raises."""
    try:
        path = lock_path(config)
    except ConfigError as exc:  # pragma: no cover - lock_path itself only builds a path
        return LockReport(path=None, state="error", error=str(exc))
    if path is None:
        return LockReport(path=None, state="none")
    from ._lock_file import read_lock

    try:
        if not path.is_file():
            return LockReport(
                path=path,
                state="error",
                error=f"{path} does not exist: run `toolhooks plugins lock` to write it",
            )
        lock = read_lock(path)
        found = differences(lock.entries, current_entries(config))
    except ConfigError as exc:
        return LockReport(path=path, state="error", error=str(exc))
    state: State = "differs" if found else "ok"
    return LockReport(path=path, state=state, locked=len(lock.entries), differences=tuple(found))
