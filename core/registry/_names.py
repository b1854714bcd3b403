"""Name patterns for tools and events: ``*`` matches any run of characters, nothing else is special.

The one matcher behind every list of names: ``hookimpl(tools=)``, the policy's allow / deny lists,
call limits, loop detection's poll tools, the event log's ``events`` and ``flush_on``, and
``toolhooks logs --event``.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable

from .._public import public


def glob_regex(patterns: Iterable[str]) -> re.Pattern[str]:
    """One compiled regex that matches a whole name against any of ``patterns``."""
    bodies = [".*".join(re.escape(part) for part in pattern.split("*")) for pattern in patterns]
    if not bodies:
        return re.compile(r"(?!)")  # no pattern: matches nothing
    return re.compile(f"(?:{'|'.join(bodies)})\\Z", re.DOTALL)


class Wildcards:
    """Exact names and ``*`` patterns; ``name in wildcards`` says whether any of them matches."""

    __slots__ = ("_exact", "_regex", "patterns")

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        self._exact = frozenset(p for p in self.patterns if "*" not in p)
        # A lone "*" matches every name: no regex to compile (0.4 M instructions at a start
        # whose config says events = ["*"]).
        self._regex = (
            None if "*" in self.patterns else glob_regex(p for p in self.patterns if "*" in p)
        )

    def __contains__(self, name: object) -> bool:
        if name in self._exact:
            return True
        if not isinstance(name, str):
            return False
        return self._regex is None or self._regex.match(name) is not None

    def __repr__(self) -> str:
        return f"Wildcards({list(self.patterns)!r})"


def name_patterns(patterns: Iterable[str]) -> Container[str]:
    """``patterns`` as a container to test names with ``in``: a frozenset when none has a ``*``
    (the cheapest ``in``), else :class:`Wildcards`."""
    names = tuple(patterns)
    if any("*" in name for name in names):
        return Wildcards(names)
    return frozenset(names)


public("toolhooks.kit", Wildcards, name_patterns)
