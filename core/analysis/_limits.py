"""The bounds of one call's analysis: past any of them the script is opaque (fail closed), so a
hostile script can neither exhaust the process nor keep its hook from answering."""

from __future__ import annotations

import time

MAX_WORD = 100_000
"""An expanded word holds at most this many characters (``x=$x$x`` forty times)."""
MAX_EXPANDED = 1_000_000
"""The characters expansions add over the whole analysis (many variables made of one large
one)."""
MAX_GLOB_ENTRIES = 20_000
"""Folder entries looked at by all the globs of one analysis."""
MAX_CPU_S = 0.5
"""CPU time one analysis may take (the thread's: a loaded machine does not make a script opaque,
and every other bound keeps the work well under it)."""


class Limit(Exception):
    """A bound was passed: the script is opaque."""


class Budget:
    """What is left of one analysis' bounds, shared by every scope of its walk."""

    __slots__ = ("deadline", "entries", "expanded")

    def __init__(self) -> None:
        self.expanded = MAX_EXPANDED
        self.entries = MAX_GLOB_ENTRIES
        self.deadline = time.thread_time() + MAX_CPU_S

    def expand(self, added: int, word: int) -> None:
        """Count ``added`` characters an expansion put into a word now ``word`` long."""
        if word > MAX_WORD:
            raise Limit(f"an expanded word is longer than {MAX_WORD} characters")
        self.expanded -= added
        if self.expanded < 0:
            raise Limit(f"expansions add more than {MAX_EXPANDED} characters")

    def entry(self) -> None:
        """Count one folder entry a glob looked at."""
        self.entries -= 1
        if self.entries < 0:
            raise Limit(f"globs look at more than {MAX_GLOB_ENTRIES} folder entries")
        if not self.entries & 255:
            self.clock()

    def clock(self) -> None:
        if time.thread_time() > self.deadline:
            raise Limit(f"the analysis takes more than {MAX_CPU_S} s")
