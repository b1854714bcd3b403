"""An entry point that names a plugin, as discovery found it: nothing imported yet. Its row is
what the entry-point cache keeps (``_scan_cache``), and ``load_target`` imports its object."""

from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..records._plain import Record
from . import _scan_cache

if TYPE_CHECKING:
    from importlib import metadata

_REFERENCE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
"""``importlib.metadata.EntryPoint.pattern``: what an entry point's value may be."""


class Candidate(Record):
    """An entry point that names a plugin, before anything is imported.

    A plain record, not a dataclass (its generated methods would be compiled at every start:
    docs/decisions/plain-records.md). Equal and hashed by what the entry point says, without
    ``found`` and ``folder``; shown without ``found``, as the dataclass it was."""

    __slots__ = (
        "builtin",
        "distribution",
        "folder",
        "found",
        "name",
        "requires",
        "value",
        "version",
    )
    name: str
    value: str
    distribution: str | None
    version: str | None
    builtin: bool
    requires: tuple[str, ...]
    """A third party's Requires-Dist (its range on toolhooks is checked before it is imported)."""
    found: metadata.Distribution | None
    """The distribution when this process scanned; None when the candidate came from the cache."""
    folder: str | None
    """The distribution's metadata folder (``*.dist-info``), when it has one."""

    def __init__(
        self,
        *,
        name: str,
        value: str,
        distribution: str | None,
        version: str | None,
        builtin: bool,
        requires: tuple[str, ...] = (),
        found: metadata.Distribution | None = None,
        folder: str | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "distribution", distribution)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "builtin", builtin)
        object.__setattr__(self, "requires", requires)
        object.__setattr__(self, "found", found)
        object.__setattr__(self, "folder", folder)

    def _compared(self) -> tuple[Any, ...]:
        return (self.name, self.value, self.distribution, self.version, self.builtin, self.requires)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, Candidate):
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self._fields if name != "found"
        )
        return f"Candidate({shown})"

    @property
    def label(self) -> str:
        return f"{self.name} = {self.value}"

    @property
    def from_dist(self) -> str:
        if self.distribution is None:
            return "an unknown distribution"
        return f"distribution {self.distribution} {self.version or ''}".rstrip()

    @property
    def dist(self) -> metadata.Distribution | None:
        """The installed distribution (looked up by name for a candidate from the cache)."""
        if self.found is not None or (self.distribution is None and self.folder is None):
            return self.found
        from importlib import metadata

        if self.folder is not None:  # this one, not the first of its name on sys.path
            return metadata.PathDistribution(Path(self.folder))
        assert self.distribution is not None
        try:
            return metadata.distribution(self.distribution)
        except metadata.PackageNotFoundError:
            return None

    def load_target(self) -> Any:
        """Import the entry point's object as ``EntryPoint.load`` does (``module:attr.attr``),
        without importing importlib.metadata for it."""
        matched = _REFERENCE.match(self.value)
        if matched is None:
            raise ValueError(f"{self.value!r} is not a 'module:object' reference")
        target: Any = import_module(matched["module"])
        for attr in filter(None, (matched["attr"] or "").split(".")):
            target = getattr(target, attr)
        return target

    def row(self) -> _scan_cache.Row:
        return {
            "name": self.name,
            "value": self.value,
            "distribution": self.distribution,
            "version": self.version,
            "builtin": self.builtin,
            "requires": list(self.requires),
            "folder": self.folder,
        }

    @classmethod
    def from_row(cls, row: _scan_cache.Row) -> Candidate:
        return cls(
            name=row["name"],
            value=row["value"],
            distribution=row["distribution"],
            version=row["version"],
            builtin=row["builtin"],
            requires=tuple(row["requires"]),
            folder=row.get("folder"),
        )
