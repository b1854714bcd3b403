"""Shared helpers of the analysis tests: analyse a script, and spell its commands as text."""

from __future__ import annotations

from toolhooks.analysis import Script, analyse_script

CWD = "/work/project"
HOME = "/home/agent"


def analyse(text: str, *, cwd: str = CWD, home: str = HOME) -> Script:
    return analyse_script(text, cwd=cwd, home=home)


def argvs(text: str, **kwargs: str) -> list[list[str | None]]:
    """Each command's argv as texts (None for an unknown word)."""
    return [[w.text for w in c.argv] for c in analyse(text, **kwargs).commands]


def programs(text: str, **kwargs: str) -> list[str | None]:
    return [c.program for c in analyse(text, **kwargs).commands]


def seen(text: str, argv: list[str], **kwargs: str) -> bool:
    """Whether the script runs a command whose argv starts with ``argv``."""
    return any(a[: len(argv)] == argv for a in argvs(text, **kwargs))
