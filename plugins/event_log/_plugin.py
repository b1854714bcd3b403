"""The ``event_log`` plugin: every pipeline event as one line of an append-only JSONL file."""

from __future__ import annotations

import os
import weakref
from collections.abc import Container, Iterable

from toolhooks import Event, hookimpl
from toolhooks._names import name_patterns

from ._config import EventLogConfig
from ._encode import LineEncoder
from ._writer import EventLogStats, JsonlWriter


def _name_set(patterns: Iterable[str]) -> Container[str]:
    return name_patterns(p.strip() for p in patterns)


class EventLogPlugin:
    """Appends every event to a JSONL file (``.toolhooks/events.jsonl`` by default).

    Lines are buffered and written with one ``os.write`` when a call ends (``tool.injected``),
    when an approval is requested, when the buffer is full, by a background flush every
    ``flush_interval_s``, at :meth:`close` and at interpreter exit. Writing never raises into the
    call: failures are counted (:meth:`stats`) and warned about once on the ``toolhooks`` logger.
    ``flush_on = []`` leaves writing to ``buffer_bytes`` and the background flush: fewer writes
    (higher throughput), but a finished call's events reach the file up to ``flush_interval_s``
    later, and a SIGKILL can lose them.
    """

    name = "event_log"
    priority = 0
    Config = EventLogConfig

    def __init__(self, config: EventLogConfig | None = None) -> None:
        self.config = config = config or self.Config()
        self.path = os.path.abspath(os.path.expanduser(config.path))
        self._encoder = LineEncoder(config.max_line_bytes)
        self._writer = JsonlWriter(
            self.path,
            max_bytes=config.max_bytes,
            backup_count=config.backup_count,
            fsync=config.fsync,
            buffer_bytes=config.buffer_bytes,
            flush_interval_s=config.flush_interval_s,
        )
        self._keep = None if config.events is None else _name_set(config.events)
        self._flush_on = _name_set(config.flush_on)
        self._encode = self._encoder.encode  # bound once: on_event runs for every event
        self._append = self._writer.append
        # Flushes what is buffered when the plugin is garbage-collected or the interpreter exits.
        self._finalizer = weakref.finalize(self, self._writer.close)

    @hookimpl
    def on_event(self, event: Event) -> None:
        """Buffer the event's line; write the buffer when the event ends a call."""
        try:
            name = event.event
            keep = self._keep
            if keep is not None and name not in keep:
                if name in self._flush_on:
                    self._writer.flush()
                return
            self._append(self._encode(event), name in self._flush_on)
        except Exception as error:  # never into the call
            self._writer.note_dropped(1, error)

    def flush(self) -> None:
        """Write everything buffered now."""
        self._writer.flush()

    def close(self) -> None:
        """Flush and close the file. Events that arrive later reopen it."""
        self._writer.close()

    def stats(self) -> EventLogStats:
        """Events written and dropped, bytes written, rotations, events buffered, last error."""
        return self._writer.stats()

    def __enter__(self) -> EventLogPlugin:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
