"""File-level helpers for the writer: the torn-tail check, the rotation lock, moving backups."""

from __future__ import annotations

import contextlib
import errno
import os

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: rotation is not coordinated between processes
    fcntl = None  # type: ignore[assignment]

FILE_MODE = 0o600  # events carry tool parameters: readable by the owner only


def ends_with_newline(path: str, size: int) -> bool:
    try:
        with open(path, "rb") as handle:
            handle.seek(size - 1)
            return handle.read(1) in (b"\n", b"")
    except OSError:
        return True


def lock_file(path: str) -> int:
    """Lock ``path`` exclusively without waiting: its fd; -1 if locking is unavailable; -2 busy."""
    if fcntl is None:  # pragma: no cover
        return -1
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    except OSError:
        return -1
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(fd)
        return -2 if error.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK) else -1
    return fd


def unlock_file(fd: int) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing releases the flock


def shift_backups(path: str, backup_count: int) -> None:
    """``path`` -> ``path.1`` -> ... -> ``path.{backup_count}`` (the oldest is overwritten);
    with no backups the file is simply removed."""
    if backup_count == 0:
        os.unlink(path)
        return
    for index in range(backup_count - 1, 0, -1):
        source = f"{path}.{index}"
        if os.path.exists(source):
            os.replace(source, f"{path}.{index + 1}")
    os.replace(path, f"{path}.1")
