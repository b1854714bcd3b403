"""Files a program is told about in another file: a list of names (``tar -T list``, ``rsync
--files-from=list``, ``cpio -o < list``) or a patch (``git apply x.patch``, ``patch -p1 <
x.diff``). Read from the program tables (``lists``, ``stdin_list``); the walker makes a script
opaque when such a file cannot be read here (a pipe, a here-doc, a missing or large file, one an
earlier command may have written), and :func:`listed_names` gives the names it holds."""

from __future__ import annotations

import posixpath

from ._options import read_options
from ._patches import patch_files
from ._programs import GIT, NAMES, PATCH, PROGRAMS, Program, every_option, operands
from ._records import Command, Word

LISTING_PROGRAMS = frozenset(
    {"git", *(name for name, table in PROGRAMS.items() if table.lists or table.stdin_list)}
)
"""The programs :func:`list_sources` may find a list or patch for (git for ``git apply``)."""
MAX_LIST_BYTES = 65_536
"""A list or patch read here is at most this long; a longer one makes the script opaque."""
MAX_STRIP = 3
"""A patch's paths count with up to this many leading folders stripped (``-p0`` to ``-p3``)."""


def list_sources(program: str, argv: tuple[Word, ...]) -> list[tuple[str, Word | None]]:
    """Each (kind, file) the command reads names from by its table: NAMES or PATCH, the file's
    word, or None for its stdin (``-`` too)."""
    table = PROGRAMS.get(program)
    if program == "git":
        return _git_apply(argv)
    if table is None or not (table.lists or table.stdin_list):
        return []
    found: list[tuple[str, Word | None]] = []
    options = every_option(table, argv)
    for option, value in options:
        kind = table.lists.get(option)
        if kind is not None:
            found.append((kind, None if value is None or value.text == "-" else value))
    if table.stdin_list is not None and not found and _reads_stdin_list(table, argv, options):
        found.append((table.stdin_list, None))
    return found


def _reads_stdin_list(
    table: Program, argv: tuple[Word, ...], options: list[tuple[str, Word | None]]
) -> bool:
    """cpio reads names from stdin in its copy-out and pass-through modes; patch reads its patch
    from stdin unless a second operand names the patch file."""
    if table.stdin_modes:
        return any(option in table.stdin_modes for option, _ in options)
    return len(operands(table, argv)) < 2


def _git_apply(argv: tuple[Word, ...]) -> list[tuple[str, Word | None]]:
    """``git apply`` / ``git am``: its operands are patches, stdin when there is none."""
    at = read_options(argv, 1, GIT.options).index
    if at >= len(argv) or argv[at].text not in ("apply", "am"):
        return []
    rest = argv[at + 1 :]
    files = [w for w in rest if w.text is None or not w.text.startswith("-")]
    if not files:
        return [(PATCH, None)]
    return [(PATCH, None if w.text == "-" else w) for w in files]


def read_list(path: str) -> str | None:
    """The text of a list or patch file, or None when it cannot be read here (missing, not a
    regular file, longer than MAX_LIST_BYTES)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_LIST_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_LIST_BYTES:
        return None
    return data.decode("utf-8", "surrogateescape")


def names_in(kind: str, text: str) -> list[str]:
    """The file names a list (one a line) or a patch (each header's path, with up to MAX_STRIP
    leading folders stripped: ``-pN`` is not read) holds."""
    if kind == NAMES:
        return [line.strip() for line in text.splitlines() if line.strip()]
    found: list[str] = []
    for path in patch_files(text):
        parts = path.split("/")
        found.extend("/".join(parts[k:]) for k in range(min(MAX_STRIP, len(parts) - 1) + 1))
    return found


def listed_names(command: Command) -> list[str]:
    """The names the command's list and patch files hold (relative ones as written, and joined
    to each operand of a copy: rsync reads ``--files-from`` names under its source)."""
    program = command.program or ""
    sources = list_sources(program, command.argv)
    if not sources:
        return []
    stdin = stdin_file(command)
    found: list[str] = []
    for kind, word in sources:
        name = stdin if word is None else word.text
        if not name:
            continue
        text = read_list(posixpath.join(command.cwd, name))
        if text is not None:
            found.extend(names_in(kind, text))
    table = PROGRAMS.get(program)
    if table is not None and table.copies and found:
        bases = [w.text for w in operands(table, command.argv) if w.text]
        found += [posixpath.join(base, name) for base in bases for name in found]
    return found


def stdin_file(command: Command) -> str | None:
    """The file the command's stdin is redirected from (``< list``), if any."""
    for index in reversed(command.read_redirects):
        if index < len(command.redirects):
            return command.redirects[index].text
    return None
