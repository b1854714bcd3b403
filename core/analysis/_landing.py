"""Where a command puts files its command line does not name: a copy's names land in its
destination folder (``cp -a /tmp/.toolhooks .`` writes ``./.toolhooks``), an archive or a
folder's contents fill one (``tar -xf x.tar``, ``cp -r /tmp/x/. .``), ``git clean -x`` empties
one of what git ignores. Read from the program tables (``copies``, ``target``,
``slash_contents``, ``extracts``, ``into``)."""

from __future__ import annotations

import os
import posixpath

from ..records._plain import Record
from ._paths import Seen, normalise_path
from ._programs import PROGRAMS, Program, every_option, operands
from ._records import Command, Word


class Landing(Record):
    """What a command writes beyond the paths it names: ``names`` land (a copy's source at
    ``DEST/NAME``), ``filled`` folders get names it does not show. Absolute, normalised as
    :func:`~toolhooks.analysis.command_paths` normalises (``..`` collapsed, symlinks)."""

    __slots__ = ("filled", "names")

    names: tuple[str, ...]
    filled: tuple[str, ...]

    def __init__(self, *, names: tuple[str, ...] = (), filled: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "filled", filled)


NOTHING = Landing()
LANDING_PROGRAMS = frozenset(
    {"git", *(name for name, table in PROGRAMS.items() if table.copies or table.extracts)}
)
"""The programs :func:`command_landing` may find something for (git for ``git clean -x``)."""
EXTRACTING_PROGRAMS = frozenset(name for name, table in PROGRAMS.items() if table.extracts)


def command_landing(
    command: Command,
    *,
    home: str | None = None,
    folders: dict[str, str] | None = None,
    seen: Seen | None = None,
) -> Landing:
    """Where ``command`` puts files it does not name (see :class:`Landing`); ``folders`` and
    ``seen`` as for ``command_paths``. A word that cannot be known as the destination fills
    the working folder (it could be any folder)."""
    program = command.program or ""
    table = PROGRAMS.get(program)
    names: list[str]
    filled: list[str]
    if program == "git":
        names, filled = [], _git_clean(command.argv)
    elif table is not None and table.copies:
        names, filled = _copied(table, command.argv, command.cwd, home or "")
    elif table is not None and table.extracts:
        names, filled = _extracted(table, command.argv)
    else:
        return NOTHING
    if not names and not filled:
        return NOTHING
    home = home or os.path.expanduser("~")
    folders = {} if folders is None else folders
    seen = {} if seen is None else seen

    def forms(texts: list[str]) -> tuple[str, ...]:
        out: list[str] = []
        for text in texts:
            for cwd in command.cwds or (command.cwd,):
                out.extend(normalise_path(text, cwd=cwd, home=home, folders=folders, seen=seen))
        return tuple(dict.fromkeys(out))

    return Landing(names=forms(names), filled=forms(filled))


def _copied(
    table: Program, argv: tuple[Word, ...], cwd: str, home: str
) -> tuple[list[str], list[str]]:
    """``SOURCE... DEST`` (or ``-t DIR SOURCE...``): each source's name under DEST when DEST is
    a folder, DEST itself otherwise; a source naming a folder's contents fills DEST."""
    target = next((v for o, v in every_option(table, argv) if o in table.target), None)
    words = operands(table, argv)
    if target is not None:
        destination, sources = target, words
    elif len(words) >= 2:
        destination, sources = words[-1], words[:-1]
    else:
        return [], []
    if destination.text is None:
        return [], ["."]  # any folder: the working folder at least
    dest = destination.text
    if ":" in dest.split("/", 1)[0] or "://" in dest:
        return [], []  # another host's folder (scp, rsync)
    folder = target is not None or len(sources) > 1 or _is_folder(dest, cwd, home)
    names: list[str] = []
    filled: list[str] = []
    for source in sources:
        if source.text is None or _contents(table, source.text):
            filled.append(dest)  # names not shown: a folder's contents, or any name
        elif folder:
            trimmed = source.text.rstrip("/") or source.text
            names.append(posixpath.join(dest, posixpath.basename(trimmed) or trimmed))
        else:
            names.append(dest)
    return names, filled


def _is_folder(dest: str, cwd: str, home: str) -> bool:
    """Whether a copy's destination is a folder its sources land in (``.``, ``DIR/``, one that
    exists)."""
    if dest.endswith("/") or posixpath.basename(dest) in (".", "..", "~"):
        return True
    return os.path.isdir(posixpath.join(cwd, home + dest[1:] if dest[:1] == "~" else dest))


def _contents(table: Program, source: str) -> bool:
    """Whether a copy's source names a folder's contents (``SRC/.``; rsync's ``SRC/``)."""
    trimmed = source.rstrip("/")
    return (
        trimmed.endswith("/.") or trimmed == "." or (table.slash_contents and source.endswith("/"))
    )


def _extracted(table: Program, argv: tuple[Word, ...]) -> tuple[list[str], list[str]]:
    """An archive's names written into its folder (``-C``/``--directory``, ``-d``, else the
    working folder): the members named, or, with none, names not shown."""
    seen = every_option(table, argv)
    options = {o for o, _ in seen}
    words = operands(table, argv)
    first = argv[1].text if len(argv) > 1 else None
    if first and not first.startswith("-") and table.folders and words:
        words = _old_form(table, first, words[1:], seen)
        options |= {f"-{letter}" for letter in first}
    if "" not in table.extracts and not options & table.extracts:
        return [], []
    folder = next(
        (v.text or "." for o, v in seen if v is not None and o in table.folders | table.into),
        ".",
    )
    members = words[1:] if "" in table.extracts else words
    if members and all(w.text is not None for w in members):
        return [posixpath.join(folder, w.text or "") for w in members], []
    return [], [folder]


def _old_form(
    table: Program, bundle: str, words: list[Word], seen: list[tuple[str, Word | None]]
) -> list[Word]:
    """tar's old form, a first word of letters without a dash (``tar xCf DIR x.tar``): each
    letter that takes a value takes the next operand (added to ``seen``); the operands left."""
    for letter in bundle:
        if letter in table.options.short_values and words:
            seen.append((f"-{letter}", words[0]))
            words = words[1:]
    return words


def _git_clean(argv: tuple[Word, ...]) -> list[str]:
    """``git clean -x`` / ``-X``: what git ignores (``.toolhooks/`` is, mostly) is removed from
    the pathspecs, or the working folder; a dry run (``-n``) removes nothing."""
    texts = [w.text or "" for w in argv]
    if "clean" not in texts:
        return []
    rest = argv[texts.index("clean") + 1 :]
    letters = "".join(
        w.text[1:] for w in rest if w.text and w.text.startswith("-") and w.text[1:2] != "-"
    )
    longs = {w.text for w in rest if w.text and w.text.startswith("--")}
    if "n" in letters or "--dry-run" in longs or not ({"x", "X"} & set(letters)):
        return []
    return _pathspecs(rest) or ["."]


def _pathspecs(rest: tuple[Word, ...]) -> list[str]:
    """git clean's pathspecs (an unknown word: any folder, the working one at least)."""
    paths: list[str] = []
    skip = ended = False
    for word in rest:
        text = word.text
        if skip:
            skip = False
        elif text is None:
            paths.append(".")
        elif not ended and text == "--":
            ended = True
        elif not ended and text.startswith("-"):
            skip = text in ("-e", "--exclude")
        else:
            paths.append(text)
    return paths
