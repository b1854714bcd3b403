"""Limits compiled for the per-call path: which limits a tool name falls under, and their keys."""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from toolhooks import ConfigError, ToolCall
from toolhooks.kit import Record, Wildcards

from ._rate import parse_rate

if TYPE_CHECKING:
    from ._config import LimitConfig

GROUP_PREFIX = "group:"
NO_SCOPE = "(none)"
"""The bucket shared by calls that lack the scope's id (no run_id, no session_id, no sender)."""
_SCOPE_WORDS = {"run": "run", "session": "session", "sender": "sender", "global": "everyone"}


class Limit(Record):
    """One compiled limit. ``window_ms``: the rate's window, or a count's idle expiry."""

    __slots__ = ("calls", "digest", "index", "label", "rate", "scope", "window_ms")

    index: int
    label: str
    scope: str
    rate: bool
    calls: int
    window_ms: int
    digest: str
    """A short hash of the label: the limit's part of a counter key."""

    def __init__(
        self,
        *,
        index: int,
        label: str,
        scope: str,
        rate: bool,
        calls: int,
        window_ms: int,
        digest: str,
    ) -> None:
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "scope", scope)
        object.__setattr__(self, "rate", rate)
        object.__setattr__(self, "calls", calls)
        object.__setattr__(self, "window_ms", window_ms)
        object.__setattr__(self, "digest", digest)

    def scope_value(self, call: ToolCall) -> str:
        """The id that selects this limit's counter for ``call`` (hashed: ids are caller text)."""
        scope = self.scope
        if scope == "global":
            return "all"
        if scope == "session":
            value = call.session_id
        elif scope == "run":
            value = call.run_id
        else:
            value = None if call.sender is None else call.sender.id
        if value is None:
            return NO_SCOPE
        return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def reason(self, retry_after_s: float | None) -> str:
        """The blocked reason: which limit, and when a call will be admitted again."""
        per = _SCOPE_WORDS[self.scope]
        if self.rate:
            assert retry_after_s is not None
            wait = max(retry_after_s, 0.001)
            at = time.strftime("%H:%M:%S UTC", time.gmtime(time.time() + wait))
            return (
                f"Call limit {self.label!r} reached ({self.calls} calls per "
                f"{_window_words(self.window_ms)} per {per}); it resets in {wait:.1f} s "
                f"(at {at})"
            )
        days = self.window_ms / 86_400_000
        idle = f"{days:g} days" if days >= 1 else f"{self.window_ms / 1000:g} s"
        when = (
            f"when a new {self.scope} starts"
            if self.scope in ("run", "session")
            else "only when the counter is reset"
        )
        return (
            f"Call limit {self.label!r} reached ({self.calls} calls per {per}); it resets {when} "
            f"or after {idle} without calls"
        )


def _window_words(window_ms: int) -> str:
    seconds = window_ms // 1000
    for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60)):
        if seconds % size == 0:
            count = seconds // size
            return unit if count == 1 else f"{count} {unit}s"
    return "second" if seconds == 1 else f"{seconds} seconds"


def compile_limits(configs: Iterable[LimitConfig], count_ttl_s: int) -> tuple[Limit, ...]:
    limits: list[Limit] = []
    for index, config in enumerate(configs):
        if config.rate is not None:
            calls, window_s = parse_rate(config.rate)
            window_ms, rate = window_s * 1000, True
        else:
            assert config.max_calls is not None
            calls, window_ms, rate = config.max_calls, count_ttl_s * 1000, False
        digest = hashlib.sha256(config.label.encode()).hexdigest()[:16]
        limits.append(
            Limit(
                index=index,
                label=config.label,
                scope=config.scope,
                rate=rate,
                calls=calls,
                window_ms=window_ms,
                digest=digest,
            )
        )
    return tuple(limits)


def _expand(
    entry: str, groups: Mapping[str, Iterable[str]], path: tuple[str, ...]
) -> Iterator[str]:
    if not entry.startswith(GROUP_PREFIX):
        yield entry
        return
    if entry not in groups:
        known = ", ".join(sorted(groups))
        raise ConfigError(
            f"[plugins.call_limits] limits: unknown group {entry!r} (known groups: {known})"
        )
    if entry in path:
        raise ConfigError(f"[plugins.call_limits] limits: group {entry!r} includes itself")
    for member in groups[entry]:
        yield from _expand(member, groups, (*path, entry))


class ToolMatcher:
    """For each tool name, the limits whose ``tools`` cover it (cached per name)."""

    __slots__ = ("_exact", "_patterns", "indices")

    def __init__(self, configs: Iterable[LimitConfig], groups: Mapping[str, Iterable[str]]) -> None:
        exact: dict[str, set[int]] = {}
        patterns: list[tuple[Container[str], int]] = []
        for index, config in enumerate(configs):
            for entry in config.tools:
                for member in _expand(entry, groups, ()):
                    if "*" in member:
                        patterns.append((Wildcards([member]), index))
                    else:
                        exact.setdefault(member, set()).add(index)
        self._exact = exact
        self._patterns = tuple(patterns)
        self.indices: Callable[[str], tuple[int, ...]] = functools.lru_cache(maxsize=4096)(
            self._indices
        )
        """The indices of the limits that cover a tool name, cached per name."""

    def _indices(self, name: str) -> tuple[int, ...]:
        hits = set(self._exact.get(name, ()))
        hits.update(index for pattern, index in self._patterns if name in pattern)
        return tuple(sorted(hits))
