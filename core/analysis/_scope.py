"""What the walker knows at a point of a script: variables, working folders, functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._limits import Budget

if TYPE_CHECKING:
    from tree_sitter import Node

    from ._records import Word

MAX_CWDS = 8
"""At most this many possible working folders are followed; past it the folder is unknown."""


class Scope:
    """The mutable state of a walk; ``copy`` for a subshell, ``merge`` after a branch.

    ``vars`` maps a name to its value, or to None when it could be anything (assigned from a
    command substitution, or differently in two branches). A name not in ``vars`` comes from the
    environment and is unknown too, except HOME and PWD. ``cwds`` is empty once the working folder
    is unknown (``cd $X``).
    """

    __slots__ = (
        "aliases",
        "bounds",
        "cwds",
        "dirs",
        "environment",
        "functions",
        "home",
        "ifs_changed",
        "vars",
    )

    def __init__(self, *, cwd: str, home: str, bounds: Budget | None = None) -> None:
        self.vars: dict[str, str | None] = {}
        self.cwds: tuple[str, ...] = (cwd,)
        self.dirs: tuple[tuple[str, ...], ...] | None = ()
        self.home = home
        self.functions: dict[str, Node] = {}
        self.aliases: dict[str, str] = {}
        self.ifs_changed = False
        self.bounds = Budget() if bounds is None else bounds
        """The walk's bounds, shared by every copy (see _limits.py)."""
        self.environment: dict[str, Word] = {}
        """Variables set earlier in the script that name a host the later commands talk to
        (proxies, package indexes), as ``K=V`` words: they count like a ``K=V cmd`` prefix."""

    def copy(self) -> Scope:
        other = Scope.__new__(Scope)
        other.vars = dict(self.vars)
        other.cwds = self.cwds
        other.dirs = self.dirs
        other.home = self.home
        other.functions = dict(self.functions)
        other.aliases = dict(self.aliases)
        other.ifs_changed = self.ifs_changed
        other.bounds = self.bounds
        other.environment = dict(self.environment) if self.environment else {}
        return other

    def merge(self, other: Scope) -> None:
        """Become what either ``self`` or ``other`` could be (after a branch that may not run)."""
        for name in set(self.vars) | set(other.vars):
            if self.vars.get(name, ...) != other.vars.get(name, ...):
                self.vars[name] = None
        if self.cwds and other.cwds:
            merged = tuple(dict.fromkeys(self.cwds + other.cwds))
            self.cwds = merged if len(merged) <= MAX_CWDS else ()
        else:
            self.cwds = ()
        if self.dirs != other.dirs:
            self.dirs = None
        self.functions.update(other.functions)
        self.aliases.update(other.aliases)
        self.ifs_changed = self.ifs_changed or other.ifs_changed
        for name, word in other.environment.items():
            # both values count: a branch that may not run leaves either in place
            key = name if self.environment.get(name, word) == word else f"{name} "
            self.environment[key] = word

    def lookup(self, name: str) -> str | None:
        """A variable's value, or None when it is unknown."""
        if name in self.vars:
            return self.vars[name]
        if name == "HOME":
            return self.home
        if name == "PWD" and len(self.cwds) == 1:
            return self.cwds[0]
        return None

    def home_folder(self) -> str | None:
        return self.lookup("HOME")
