"""The ``event_log`` plugin: every pipeline event as one line of an append-only JSONL file."""

from __future__ import annotations

import os
import weakref
from collections.abc import Container, Iterable
from typing import TYPE_CHECKING

from toolhooks import Event, hookimpl
from toolhooks.kit import ConfigOnRead, LazyConfig, name_patterns

from ._chain import KEY_ENV, Chain, read_key
from ._defaults import CALL_END_EVENTS, DEFAULTS, EventLogDefaults
from ._encode import LineEncoder
from ._writer import JsonlWriter

if TYPE_CHECKING:
    from ._config import EventLogConfig
    from ._stats import EventLogStats


def _name_set(patterns: Iterable[str]) -> Container[str]:
    return name_patterns(p.strip() for p in patterns)


class EventLogPlugin:
    """Appends every event to a JSONL file (``.toolhooks/events.jsonl`` by default).

    Each event is queued as it is (an Event is read-only, and nothing the runtime puts in its
    data changes after it is emitted). A writer thread encodes the queue to lines and writes them
    with one ``os.write`` every ``flush_interval_ms``: the caller's thread does not encode. With
    ``durability = "call"`` (or ``"fsync"``) the event that ends a call encodes and writes the
    queue before it returns. A queue of about ``max_queue_bytes`` is written by the caller that
    fills it: a caller may wait, nothing is dropped. :meth:`close`, garbage
    collection and interpreter exit write what is queued. Writing never raises into the call:
    failures are counted (:meth:`stats`) and warned about once on the ``toolhooks`` logger.
    """

    name = "event_log"
    priority = 0
    # Built only for a [plugins.event_log] table or when read: with no table the plugin runs on
    # DEFAULTS, a plain record (toolhooks.kit.LazyConfig).
    Config = LazyConfig["EventLogConfig"](f"{__package__}._config", "EventLogConfig")
    if TYPE_CHECKING:
        config: EventLogConfig
    else:
        config = ConfigOnRead()

    def __init__(self, config: EventLogConfig | None = None) -> None:
        if config is not None:
            self.config = config
        self._setup(DEFAULTS if config is None else config)

    def _setup(self, config: EventLogConfig | EventLogDefaults) -> None:
        self.path = os.path.abspath(os.path.expanduser(config.path))
        encoder = LineEncoder(config.max_line_bytes)
        chain = None
        if config.chain:
            key_file = config.key_file or os.environ.get(KEY_ENV)
            chain = Chain(read_key(key_file) if key_file else None, config.checkpoint_every)
        self._writer = JsonlWriter(
            self.path,
            encoder.encode,
            max_bytes=config.max_bytes,
            backup_count=config.backup_count,
            fsync=config.durability == "fsync",
            queue_bytes=config.max_queue_bytes,
            interval_s=config.flush_interval_ms / 1000,
            chain=chain,
        )
        self._keep = None if config.events is None else _name_set(config.events)
        self._ends_call = frozenset(CALL_END_EVENTS if config.durability != "interval" else ())
        # The default (every event, "interval"): queued with no name to look at.
        self._queue_all = self._keep is None and not self._ends_call
        # Writes what is queued when the plugin is garbage-collected or the interpreter exits.
        self._finalizer = weakref.finalize(self, self._writer.close)

    @hookimpl
    def on_event(self, event: Event) -> None:
        """Queue the event; write the queue now if the event ends a call (``"call"``)."""
        try:
            if self._queue_all:
                self._writer.append(event)
                return
            name = event.event
            keep = self._keep
            if keep is not None and name not in keep:
                if name in self._ends_call:
                    self._writer.flush()
                return
            self._writer.append(event, name in self._ends_call)
        except Exception as error:  # never into the call
            self._writer.note_dropped(1, error)

    def flush(self) -> None:
        """Write everything queued now."""
        self._writer.flush()

    def close(self) -> None:
        """Write what is queued and close the file. Events that arrive later reopen it."""
        self._writer.close()

    def stats(self) -> EventLogStats:
        """Events written and dropped, bytes written, rotations, events queued, last error."""
        return self._writer.stats()

    def __enter__(self) -> EventLogPlugin:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
