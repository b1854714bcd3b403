"""What the analysis gives: a script's simple commands, each word as the shell would see it."""

from dataclasses import dataclass

from .._public import public
from ..records._methods import dataclass_methods


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Word:
    """One word of a command after quote removal.

    ``text`` is None when the word cannot be known (an expansion that could be any word); a glob
    is known: it counts as itself and as each file it matches (``alternatives``, absolute).
    """

    text: str | None
    source: str
    alternatives: tuple[str, ...] = ()

    def __init__(
        self,
        *,
        text: str | None,
        source: str,
        alternatives: tuple[str, ...] = (),
    ) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "alternatives", alternatives)


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Command:
    """One simple command; a wrapper seen through gives one more, with the wrapper in ``via``.

    ``option_values`` holds the argv indexes that are the values of the option before them (git's
    ``-C DIR``, ``-c KEY=VALUE``), so a prefix match can step over them. ``cwds`` holds every
    folder the command could run in (a ``cd`` that may fail leaves two); ``cwd`` is the likeliest.
    ``assignments`` are the ``K=V`` words in effect for this command only (``K=V cmd``, ``env
    K=V cmd``). ``program`` is "" for a command of redirections alone (``> file``).
    ``read_redirects`` holds the indexes of ``redirects`` opened for reading only (``< file``);
    every other target may be written (``>``, ``>>``, ``<>``, ``&>``, a here-doc's nested one).
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
    read_redirects: tuple[int, ...] = ()

    def __init__(
        self,
        *,
        program: str | None,
        argv: tuple[Word, ...],
        redirects: tuple[Word, ...],
        cwd: str,
        via: tuple[str, ...],
        text: str,
        option_values: tuple[int, ...] = (),
        cwds: tuple[str, ...] = (),
        assignments: tuple[Word, ...] = (),
        read_redirects: tuple[int, ...] = (),
    ) -> None:
        object.__setattr__(self, "program", program)
        object.__setattr__(self, "argv", argv)
        object.__setattr__(self, "redirects", redirects)
        object.__setattr__(self, "cwd", cwd)
        object.__setattr__(self, "via", via)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "option_values", option_values)
        object.__setattr__(self, "cwds", cwds)
        object.__setattr__(self, "assignments", assignments)
        object.__setattr__(self, "read_redirects", read_redirects)


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Script:
    """A script's simple commands in order; ``opaque`` says why it cannot be seen through."""

    source: str
    commands: tuple[Command, ...]
    opaque: str | None

    def __init__(
        self,
        *,
        source: str,
        commands: tuple[Command, ...],
        opaque: str | None,
    ) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "commands", commands)
        object.__setattr__(self, "opaque", opaque)


_new = object.__new__
_word_fields = tuple(Word.__dict__[name].__set__ for name in ("text", "source", "alternatives"))
_command_fields = tuple(
    Command.__dict__[name].__set__
    for name in (
        "program",
        "argv",
        "redirects",
        "cwd",
        "via",
        "text",
        "option_values",
        "cwds",
        "assignments",
        "read_redirects",
    )
)


def new_word(text: str | None, source: str, alternatives: tuple[str, ...] = ()) -> Word:
    """``Word(text=..., source=..., alternatives=...)`` at half the cost.

    The analysis makes dozens of words per script on the hot path of every exec call; a frozen
    dataclass's ``__init__`` sets each slot through ``object.__setattr__``, the slot descriptors
    set them directly. The result is the same record (equal, hashable, frozen)."""
    word = _new(Word)
    set_text, set_source, set_alternatives = _word_fields
    set_text(word, text)
    set_source(word, source)
    set_alternatives(word, alternatives)
    return word


def new_command(
    program: str | None,
    argv: tuple[Word, ...],
    redirects: tuple[Word, ...],
    cwd: str,
    via: tuple[str, ...],
    text: str,
    option_values: tuple[int, ...],
    cwds: tuple[str, ...],
    assignments: tuple[Word, ...],
    read_redirects: tuple[int, ...] = (),
) -> Command:
    """``Command(...)`` through the slot descriptors (see ``new_word``)."""
    command = _new(Command)
    s_program, s_argv, s_redirects, s_cwd, s_via, s_text, s_values, s_cwds, s_assigned, s_reads = (
        _command_fields
    )
    s_program(command, program)
    s_argv(command, argv)
    s_redirects(command, redirects)
    s_cwd(command, cwd)
    s_via(command, via)
    s_text(command, text)
    s_values(command, option_values)
    s_cwds(command, cwds)
    s_assigned(command, assignments)
    s_reads(command, read_redirects)
    return command


public("toolhooks.kit", Command, Script, Word)
