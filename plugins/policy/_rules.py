"""Compiled entry lists and layers, and how one layer decides on one tool.

A *layer* is one set definition: ``[tools]``, a user profile, or a by_agent / by_sender table.
Within a layer, in this order: ``deny`` removes; ``also_allow`` adds to what the profile gives;
the layer's profile (``profile`` / ``extends``) must include the tool; a non-empty ``allow``
narrows the profile's set to the entries it names. An empty ``allow`` keeps the whole profile.
A wildcard entry never grants a ``side_effect`` tool (it can still deny one).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Mapping
from typing import NamedTuple

from toolhooks.kit import Record, Wildcards

from ._builtins import BUILTIN_PROFILES, FULL_PROFILE, GROUP_PREFIX, canonical_name


class LayerAnswer(NamedTuple):
    """One layer's answer for one tool: allowed or not, the config path, and why."""

    allowed: bool
    rule: str
    detail: str


class Match(Record):
    """Which config entry matched a tool; ``pattern`` is the wildcard that did, if one did."""

    __slots__ = ("entry", "pattern")

    entry: str
    pattern: str | None

    def __init__(self, *, entry: str, pattern: str | None = None) -> None:
        object.__setattr__(self, "entry", entry)
        object.__setattr__(self, "pattern", pattern)

    def describe(self) -> str:
        if self.pattern is None:
            return f"matches {self.entry!r}"
        if self.pattern == self.entry:
            return f"matches the wildcard {self.entry!r}"
        return f"matches {self.entry!r} (wildcard {self.pattern!r})"


def expand(entry: str, groups: Mapping[str, Iterable[str]]) -> Iterator[str]:
    """The tool names and patterns an entry stands for (groups expanded, recursively)."""
    if entry.startswith(GROUP_PREFIX):
        for member in groups[entry]:
            yield from expand(member, groups)
    else:
        yield entry


class EntryList:
    """A compiled allow / deny list: exact names (through groups) first, then ``*`` patterns.

    Exact names compare by their canonical name (``bash`` is ``exec``, ``apply-patch`` is
    ``apply_patch``, on both sides); a pattern matches the name as written or its canonical name.
    """

    __slots__ = ("_exact", "_patterns", "entries")

    def __init__(self, entries: Iterable[str], groups: Mapping[str, Iterable[str]]) -> None:
        self.entries: tuple[str, ...] = tuple(entries)
        exact: dict[str, str] = {}
        patterns: list[tuple[Container[str], Match]] = []
        for entry in self.entries:
            for member in expand(entry, groups):
                if "*" in member:
                    patterns.append((Wildcards([member]), Match(entry=entry, pattern=member)))
                else:
                    exact.setdefault(canonical_name(member), entry)
        self._exact = exact
        self._patterns = tuple(patterns)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def match(self, name: str) -> Match | None:
        """The entry that names ``name`` (an exact or group match wins over a wildcard)."""
        canonical = canonical_name(name)
        entry = self._exact.get(canonical)
        if entry is not None:
            return Match(entry=entry)
        for pattern, match in self._patterns:
            if name in pattern or canonical in pattern:
                return match
        return None

    def exact_names(self) -> frozenset[str]:
        return frozenset(self._exact)


class Layer(Record):
    """One compiled set definition; ``path`` is its config path (``tools.by_agent.x``)."""

    __slots__ = ("allow", "also_allow", "deny", "path", "profile", "profile_key")

    path: str
    profile: str | None
    profile_key: str  # "profile", or "extends" in a user profile
    allow: EntryList
    also_allow: EntryList
    deny: EntryList

    def __init__(
        self,
        *,
        path: str,
        profile: str | None,
        profile_key: str,
        allow: EntryList,
        also_allow: EntryList,
        deny: EntryList,
    ) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "profile_key", profile_key)
        object.__setattr__(self, "allow", allow)
        object.__setattr__(self, "also_allow", also_allow)
        object.__setattr__(self, "deny", deny)


class Profiles:
    """Decides whether a profile (built-in or user-defined) includes a tool."""

    __slots__ = ("_builtin", "_user")

    def __init__(self, user: Mapping[str, Layer], groups: Mapping[str, Iterable[str]]) -> None:
        self._builtin = {
            name: EntryList(entries, groups) for name, entries in BUILTIN_PROFILES.items()
        }
        self._user = dict(user)

    def includes(self, profile: str, ref: str, name: str, side_effect: bool) -> LayerAnswer:
        """Does ``profile`` (named at config path ``ref``) include the tool ``name``?"""
        if profile == FULL_PROFILE:
            return LayerAnswer(True, ref, "profile 'full' allows every tool")
        builtin = self._builtin.get(profile)
        if builtin is not None:
            match = builtin.match(name)
            if match is None:
                return LayerAnswer(False, ref, f"profile {profile!r} does not include '{name}'")
            return LayerAnswer(True, ref, f"profile {profile!r} includes it: {match.describe()}")
        return self.decide(self._user[profile], name, side_effect)

    def decide(self, layer: Layer, name: str, side_effect: bool) -> LayerAnswer:
        """Apply one layer to the tool ``name``."""
        path = layer.path
        match = layer.deny.match(name)
        if match is not None:
            return LayerAnswer(False, f"{path}.deny", match.describe())
        match = layer.also_allow.match(name)
        if match is not None and not (match.pattern is not None and side_effect):
            return LayerAnswer(True, f"{path}.also_allow", match.describe())
        base: LayerAnswer | None = None
        if layer.profile is not None:
            base = self.includes(layer.profile, f"{path}.{layer.profile_key}", name, side_effect)
            if not base.allowed:
                return base
        if layer.allow:
            match = layer.allow.match(name)
            if match is None:
                return LayerAnswer(False, f"{path}.allow", f"'{name}' is not in the allow list")
            if match.pattern is not None and side_effect:
                return LayerAnswer(
                    False,
                    f"{path}.allow",
                    f"{match.describe()}, but '{name}' has side effects and a wildcard never "
                    "grants a side_effect tool: name it, or a group that contains it",
                )
            return LayerAnswer(True, f"{path}.allow", match.describe())
        if base is not None:
            return base
        return LayerAnswer(True, path, "no rule here excludes it")
