"""The append-only JSONL file: a queue of events, whole-batch writes, size rotation, error counting.

Events are appended to one shared list as they are (``list.append`` is atomic, so threads and
tasks need no lock to queue, and the list's order is the order of the calls to ``append``). A
flush - by the writer thread every ``interval_s``, by the caller when a call ends (durability
``"call"``) or when about ``queue_bytes`` are queued - takes the I/O lock, removes the events it
found from the front of the list, encodes them to lines (and links them into the hash chain)
and writes them with a single ``os.write`` on an ``O_APPEND`` descriptor, so the file keeps the
queue's order and appends from several threads or processes land as whole lines. With the
default durability the caller only queues: encoding, hashing and writing are the writer
thread's. If a write is cut short (a full disk, a kill), the next write starts with a newline,
so a torn line never glues itself to the next one; readers skip the fragment. Write errors are
counted, warned about once on the ``toolhooks`` logger, and never raised.

Over 300 lines on purpose: one object's state (the queue, the descriptor, the I/O lock, the
rotation and the counters) is what every method reads and changes under the same lock, and the
order of those steps is the log's guarantee; split apart, that order would be spread over two
modules.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolhooks.kit import LazyLogger

from ._chain import Chain
from ._files import FILE_MODE, NO_FOLLOW, lock_file, shift_backups, tail_is_torn, unlock_file

if TYPE_CHECKING:
    from ._stats import EventLogStats

logger = LazyLogger("toolhooks")

_OPEN_FLAGS = (
    os.O_WRONLY
    | os.O_APPEND
    | os.O_CREAT
    | NO_FOLLOW  # a symlink at the path is refused (ELOOP), never written through
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)  # Windows: no newline translation
)
_RECHECK_S = 1.0  # how often the path is re-stat'ed (rotated or removed by someone else?)
_RETRY_OPEN_S = 1.0  # how long to wait before retrying a failed open
_RETRY_ROTATE_S = 60.0  # how long to append past max_bytes after a failed rotation
_CHAIN_BYTES = 200  # what linking adds to a line, at most (seqs up to 16 digits)
_CHECKPOINT_BYTES = 400  # a checkpoint's whole line, at most
_FIRST_GUESS = (
    256  # bytes an event is taken for before a line was encoded (a default call: 230-480)
)

_writers: weakref.WeakSet[JsonlWriter] = weakref.WeakSet()


WAKE_FRACTION = 4
"""The writer thread is woken early once ``queue_bytes / WAKE_FRACTION`` are queued."""


class JsonlWriter:
    """Queues events, encodes them with ``encode`` when it writes, and appends the lines to
    ``path``; safe to share between threads."""

    def __init__(
        self,
        path: str,
        encode: Callable[[Any], bytes],
        *,
        max_bytes: int,
        backup_count: int,
        fsync: bool,
        queue_bytes: int,
        interval_s: float,
        chain: Chain | None = None,
    ) -> None:
        self.path = path
        self.encode = encode
        """One queued item to one line ending in a newline; should not raise (what it raises
        is counted as a dropped event)."""
        self._chain = chain
        self._max_bytes = max_bytes
        self._backup_count = backup_count
        self._fsync = fsync
        self._queue_bytes = queue_bytes
        self._interval = interval_s
        self._queue: list[Any] = []
        # Approximate queued bytes (only decides when the caller writes): events are sized by
        # the average line of the last write, since the caller no longer encodes them.
        self._pending = 0
        self._line_bytes = _FIRST_GUESS
        self._io_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._timer: threading.Thread | None = None
        self._stop = threading.Event()
        # A quarter of the queue bound wakes the writer thread before its interval is up, so
        # that a caller calling back to back does not fill the queue and write it itself
        # (without it the caller wrote half the batches: BENCHMARKS.md, choices made for speed).
        self._wake = threading.Event()
        self._wake_at = queue_bytes // WAKE_FRACTION
        self._woken = False
        self._fd = -1
        self._ident: tuple[int, int] | None = None
        self._chain_ident: tuple[int, int] | None = None  # the file the chain last wrote to
        self._size = 0
        self._torn = False  # the file may end inside a line: start the next write with "\n"
        self._check_at = 0.0
        self._retry_at = 0.0
        self._rotate_after = 0.0
        self._open_error: BaseException = OSError(errno.EBADF, "log file not open")
        self._warned = False
        self._rotate_warned = False
        self.written = 0
        self.dropped = 0
        self.bytes_written = 0
        self.rotations = 0
        self.last_error: str | None = None
        _writers.add(self)

    # -- buffering ---------------------------------------------------------------------------

    def append(self, item: Any, flush: bool = False) -> None:
        """Queue one event; write the queue if ``flush`` or full. The event is encoded when it
        is written, so nothing it holds may change after it is queued."""
        self._queue.append(item)
        pending = self._pending = self._pending + self._line_bytes
        if flush or pending >= self._queue_bytes:
            self.flush()
        elif self._timer is None and self._interval:
            self._start_timer()
        elif pending >= self._wake_at and not self._woken:
            self._woken = True
            self._wake.set()

    def stats(self) -> EventLogStats:
        from ._stats import EventLogStats  # made by the first stats(), not at every start

        return EventLogStats(
            self.written,
            self.dropped,
            self.bytes_written,
            self.rotations,
            len(self._queue),
            self.last_error,
        )

    def flush(self) -> None:
        """Encode every queued event and write the lines with one ``os.write``. Never raises."""
        with self._io_lock:
            queue = self._queue
            count = len(queue)
            if not count:
                return
            items = queue[:count]
            del queue[:count]  # concurrent appends only add at the end: nothing else is removed
            self._pending = 0
            self._woken = False
            try:
                chunk = self._encoded(items)
                count = len(chunk)
                if not count:
                    return
                self._line_bytes = sum(map(len, chunk)) // count + 1
                chain = self._chain
                if chain is None:
                    self._write(b"".join(chunk), count)
                elif chain.key is None:  # here, not in append: the caller's thread never hashes
                    self._write(chain.linked(chunk), count)  # linked and joined in one pass
                else:
                    self._write_keyed(chain, chunk)
            except Exception as error:  # pragma: no cover - _write handles OSError itself
                self._drop(count, error)

    def _encoded(self, items: list[Any]) -> list[bytes]:
        """The lines of ``items``, in order. An item the encoder fails on (it describes what
        it cannot encode, so only a bug or MemoryError gets here) is counted as dropped; the
        others are written."""
        encode = self.encode
        try:
            return [encode(item) for item in items]  # the usual case, in one step
        except Exception:
            pass
        lines = []
        for item in items:
            try:
                lines.append(encode(item))
            except Exception as error:
                self._drop(1, error)
        return lines

    def note_dropped(self, count: int, error: BaseException) -> None:
        with self._io_lock:
            self._drop(count, error)

    def close(self) -> None:
        """Flush, stop the background flusher and close the file (reopened if events follow)."""
        with self._state_lock:
            thread, self._timer = self._timer, None
            self._stop.set()
            self._wake.set()
            self._stop = threading.Event()
        self.flush()
        with self._io_lock:
            chain = self._chain
            if chain is not None and chain.since and chain.key is not None:  # a keyed close
                self._write_keyed(chain, [], closing=True)
            self._close_fd()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)

    # -- the writer thread -------------------------------------------------------------------

    def _start_timer(self) -> None:
        with self._state_lock:
            if self._timer is not None:
                return
            thread = threading.Thread(
                target=self._run, args=(self._stop,), name="toolhooks-event-log", daemon=True
            )
            self._timer = thread
        # RuntimeError: the interpreter is shutting down; events are flushed at close instead.
        with contextlib.suppress(RuntimeError):
            thread.start()

    def _run(self, stop: threading.Event) -> None:
        wake = self._wake
        while True:
            wake.wait(self._interval)  # the interval, or a queue past a quarter of its bound
            wake.clear()
            if stop.is_set():
                return
            if self._queue:
                self.flush()

    def _after_fork_in_child(self) -> None:
        # The parent writes what it had buffered; the child starts empty, with fresh locks.
        self._io_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._queue.clear()
        self._pending = 0
        self._timer = None
        self._wake = threading.Event()
        self._woken = False
        if self._chain is not None:  # a chain of its own: the parent's goes on in the parent
            self._chain = Chain(self._chain.key, self._chain.every)
            self._chain_ident = None
        self._stop = threading.Event()

    # -- the file -----------------------------------------------------------------------------

    def _write_keyed(self, chain: Chain, lines: list[bytes], closing: bool = False) -> None:
        """A keyed chain's lines, with its checkpoints: the file is settled (opened, rotated)
        before they are linked, since the first line of a chain in each file is a checkpoint."""
        count = len(lines)
        # The chain field and the checkpoints are at most this much: rotation may go a little
        # early, never after the lines are linked.
        checkpoints = count // chain.every + 3
        room = sum(map(len, lines)) + _CHAIN_BYTES * count + _CHECKPOINT_BYTES * checkpoints
        if not self._ready(room, time.monotonic()):
            self._drop(count, self._open_error)
            return
        new_file = self._ident != self._chain_ident
        data = chain.keyed(lines, new_file, closing)
        self._chain_ident = self._ident
        self._put(data, data.count(b"\n"))

    def _write(self, data: bytes, count: int) -> None:
        if not self._ready(len(data), time.monotonic()):
            self._drop(count, self._open_error)
            return
        self._put(data, count)

    def _ready(self, size: int, now: float) -> bool:
        """Open the file, or move on to a new one (rotated here or elsewhere), for ``size``
        more bytes; False when there is no file to write to."""
        if self._fd < 0 or now >= self._check_at:
            self._check_file(now)
            if self._fd < 0:
                return False
        if (
            self._max_bytes
            and self._size
            and self._size + size > self._max_bytes
            and now >= self._rotate_after
        ):
            self._rotate(size, now)
            if self._fd < 0:
                return False
        return True

    def _put(self, data: bytes, count: int) -> None:
        prefix = 1 if self._torn else 0
        if prefix:
            data = b"\n" + data
        written = 0
        try:
            while written < len(data):
                done = os.write(self._fd, data[written:] if written else data)
                if done <= 0:
                    raise OSError(errno.EIO, "write made no progress")
                written += done
        except OSError as error:
            self._size += written
            if written:
                self._torn = data[written - 1] != 0x0A
            lost = data.count(b"\n", max(written, prefix))  # lines whose newline is not on disk
            self.written += count - lost
            self.bytes_written += written
            if error.errno in (errno.EBADF, errno.EIO, errno.ESTALE):
                self._close_fd()
            self._drop(lost, error)
            return
        self._torn = False
        self._size += written
        self.written += count
        self.bytes_written += written
        if self._fsync:
            try:
                os.fsync(self._fd)
            except OSError as error:
                self._warn(error, "fsync failed")

    def _check_file(self, now: float) -> None:
        """Open the file, or reopen it when it was rotated or removed behind our back."""
        self._check_at = now + _RECHECK_S
        if self._fd >= 0:
            try:
                st = os.stat(self.path)
            except OSError:
                st = None
            if st is not None and (st.st_dev, st.st_ino) == self._ident:
                self._size = st.st_size
                return
            self._close_fd()
        if now < self._retry_at:
            return
        try:
            self._open()
        except OSError as error:
            self._open_error = error
            self._retry_at = now + _RETRY_OPEN_S

    def _open(self) -> None:
        try:
            fd = os.open(self.path, _OPEN_FLAGS, FILE_MODE)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            fd = os.open(self.path, _OPEN_FLAGS, FILE_MODE)
        st = os.fstat(fd)
        self._fd = fd
        self._ident = (st.st_dev, st.st_ino)
        self._size = st.st_size
        self._torn = tail_is_torn(self.path, fd, st.st_size)

    def _close_fd(self) -> None:
        fd, self._fd = self._fd, -1
        self._ident = None
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _rotate(self, incoming: int, now: float) -> None:
        """Move the file aside (``.1`` ... ``.backup_count``) if it is still ours and still full."""
        lock = lock_file(self.path + ".lock")
        if lock == -2:  # another process is rotating right now: append where we are, recheck soon
            self._check_at = 0.0
            return
        try:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                st = None
            if st is None or (st.st_dev, st.st_ino) != self._ident:
                self._close_fd()  # rotated (or removed) by someone else: continue in the new file
            else:
                self._size = st.st_size
                if not st.st_size or st.st_size + incoming <= self._max_bytes:
                    return
                shift_backups(self.path, self._backup_count)
                self._close_fd()
                self.rotations += 1
            self._open()
        except OSError as error:
            self._open_error = error
            self._rotate_after = now + _RETRY_ROTATE_S
            self._warn(error, "rotation failed", rotation=True)
            if self._fd < 0:
                self._retry_at = now + _RETRY_OPEN_S
        finally:
            unlock_file(lock)

    # -- errors -------------------------------------------------------------------------------

    def _drop(self, count: int, error: BaseException) -> None:
        self.dropped += count
        self.last_error = f"{type(error).__name__}: {error}"
        self._warn(error, "cannot write, events are dropped (see stats().dropped)")

    def _warn(self, error: BaseException, what: str, rotation: bool = False) -> None:
        if rotation:
            if self._rotate_warned:
                return
            self._rotate_warned = True
        else:
            if self._warned:
                return
            self._warned = True
        with contextlib.suppress(Exception):
            logger.warning("toolhooks: event_log %s: %s: %s", self.path, what, error)


def _reset_all_after_fork() -> None:
    for writer in list(_writers):
        writer._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_all_after_fork)
