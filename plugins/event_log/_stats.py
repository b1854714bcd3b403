"""``EventLogStats``: the writer's counters, a public record made by the first ``stats()`` (its
class is not made at a start that never asks: ``@dataclass(frozen=True)`` compiles its
``__setattr__`` and ``__delattr__``, about 1.7 M instructions)."""

from __future__ import annotations

from dataclasses import dataclass

from toolhooks.kit import dataclass_methods


@dataclass_methods(frozen=True)
@dataclass(frozen=True, init=False, repr=False, eq=False)
class EventLogStats:
    """Counters since the writer was created."""

    written: int
    dropped: int
    bytes_written: int
    rotations: int
    buffered: int
    last_error: str | None

    def __init__(
        self,
        written: int,
        dropped: int,
        bytes_written: int,
        rotations: int,
        buffered: int,
        last_error: str | None,
    ) -> None:
        object.__setattr__(self, "written", written)
        object.__setattr__(self, "dropped", dropped)
        object.__setattr__(self, "bytes_written", bytes_written)
        object.__setattr__(self, "rotations", rotations)
        object.__setattr__(self, "buffered", buffered)
        object.__setattr__(self, "last_error", last_error)
