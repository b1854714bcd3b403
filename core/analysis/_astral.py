"""Characters beyond the Basic Multilingual Plane, kept away from tree-sitter-bash.

tree-sitter-bash 0.25 can crash the process (SIGSEGV) on a ``{`` followed by a 4-byte UTF-8
character (tree-sitter/tree-sitter-bash#337): a crafted command would take the hook daemon down.
Each such character is replaced by a private-use character of the BMP before parsing, and
restored in everything the analysis returns.
"""

from __future__ import annotations

from dataclasses import replace

from ._records import Command, Word

_PRIVATE = range(0xE000, 0xF900)


class TooManyCharacters(Exception):
    """More distinct astral characters than free private-use ones."""


def shield(text: str, table: dict[int, str]) -> str:
    """``text`` with each astral character replaced; ``table`` maps each stand-in back."""
    if text.isascii() or all(ord(c) <= 0xFFFF for c in text):
        return text
    used = {ord(c) for c in text} | set(table)
    forward = {ord(v): chr(k) for k, v in table.items()}
    free = (p for p in _PRIVATE if p not in used)
    for char in dict.fromkeys(c for c in text if ord(c) > 0xFFFF):
        if ord(char) in forward:
            continue
        stand_in = next(free, None)
        if stand_in is None:
            raise TooManyCharacters
        forward[ord(char)] = chr(stand_in)
        table[stand_in] = char
    return text.translate(forward)


def _word(word: Word, table: dict[int, str]) -> Word:
    return Word(
        text=None if word.text is None else word.text.translate(table),
        source=word.source.translate(table),
        alternatives=tuple(a.translate(table) for a in word.alternatives),
    )


def restore(command: Command, table: dict[int, str]) -> Command:
    """``command`` with every stand-in turned back into its character."""
    if not table:
        return command
    return replace(
        command,
        program=None if command.program is None else command.program.translate(table),
        argv=tuple(_word(w, table) for w in command.argv),
        redirects=tuple(_word(w, table) for w in command.redirects),
        assignments=tuple(_word(w, table) for w in command.assignments),
        via=tuple(v.translate(table) for v in command.via),
        text=command.text.translate(table),
        cwd=command.cwd.translate(table),
        cwds=tuple(c.translate(table) for c in command.cwds),
    )
