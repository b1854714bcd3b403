"""What the analysis gives: a script's simple commands, each word as the shell would see it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Word:
    """One word of a command after quote removal.

    ``text`` is None when the word cannot be known (an expansion that could be any word); a glob
    is known: it counts as itself and as each file it matches (``alternatives``, absolute).
    """

    text: str | None
    source: str
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """One simple command; a wrapper seen through gives one more, with the wrapper in ``via``.

    ``option_values`` holds the argv indexes that are the values of the option before them (git's
    ``-C DIR``, ``-c KEY=VALUE``), so a prefix match can step over them. ``cwds`` holds every
    folder the command could run in (a ``cd`` that may fail leaves two); ``cwd`` is the likeliest.
    ``assignments`` are the ``K=V`` words in effect for this command only (``K=V cmd``, ``env
    K=V cmd``). ``program`` is "" for a command of redirections alone (``> file``).
    """

    program: str | None
    argv: tuple[Word, ...]
    redirects: tuple[Word, ...]
    cwd: str
    via: tuple[str, ...]
    text: str
    option_values: tuple[int, ...] = ()
    cwds: tuple[str, ...] = ()
    assignments: tuple[Word, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Script:
    """A script's simple commands in order; ``opaque`` says why it cannot be seen through."""

    source: str
    commands: tuple[Command, ...]
    opaque: str | None
