"""File-level helpers for the writer: the torn-tail check, the rotation lock, moving backups."""

from __future__ import annotations

import contextlib
import errno
import os
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: rotation is not coordinated between processes
    fcntl = None  # type: ignore[assignment]

FILE_MODE = 0o600  # events carry tool parameters: readable by the owner only
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Never open a symlink planted at the log's path (or its lock): a write must not land in the
file it points at (a shell rc file, say). Opening one fails with ELOOP."""


_TAIL_SETTLE_S = 0.005
_TAIL_QUIET_CHECKS = 10
"""A tail inside a line is torn once the file has not grown for this many pauses in a row
(50 ms). Three pauses (15 ms) were too few once the writer thread also wrote early: four
processes sharing one log on a 2-core machine, a process opening it took another's append in
progress for a torn tail and put an empty line before its own (4 of 13 runs of the test
that shares a log between four processes; with 50 ms, none in 45 tries)."""
_TAIL_CHECKS = 40
"""At most this many looks in all: a file that keeps growing is busy writers, not a torn tail."""


def ends_with_newline(path: str, size: int) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | NO_FOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return True
    try:
        os.lseek(fd, size - 1, os.SEEK_SET)
        return os.read(fd, 1) in (b"\n", b"")
    except OSError:
        return True
    finally:
        os.close(fd)


def settle() -> None:
    """The pause between two looks at a tail that ends inside a line."""
    time.sleep(_TAIL_SETTLE_S)


def tail_is_torn(path: str, fd: int, size: int) -> bool:
    """True when the file (open as ``fd``, ``size`` bytes) ends inside a line nobody is finishing.

    Such a tail is what a writer that was killed mid-write leaves behind. But another process's
    append in progress can look the same for a moment: Linux grows the file page by page while it
    copies a write in, and a reader can see the first pages before the last. So a tail that is
    not a newline is looked at again after a pause, until it ends with a newline or has not
    grown for ``_TAIL_QUIET_CHECKS`` pauses in a row. If the file grew meanwhile, someone is
    writing, and their write ends with its own newline.
    """
    quiet = 0
    for _ in range(_TAIL_CHECKS):
        if size <= 0 or ends_with_newline(path, size):
            return False
        settle()
        try:
            grown = os.fstat(fd).st_size
        except OSError:
            return True
        quiet = quiet + 1 if grown == size else 0
        if quiet >= _TAIL_QUIET_CHECKS:
            return True
        size = grown
    return False  # still growing: busy writers, each finishing its own lines


def lock_file(path: str) -> int:
    """Lock ``path`` exclusively without waiting: its fd; -1 if locking is unavailable; -2 busy."""
    if fcntl is None:  # pragma: no cover
        return -1
    try:
        flags = os.O_RDWR | os.O_CREAT | NO_FOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, FILE_MODE)
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
