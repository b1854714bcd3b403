"""Symlinks a script makes before it uses them (``ln -s .. build/up; rm -rf build/up/src``).

The file system is read when the script is analysed, before it runs, so a link the script itself
makes is not there to resolve yet. Each ``ln -s`` is remembered, and every path word of the
script's commands that lies under a link's path gets the path through the link's target as one
more alternative (a rule then sees both). Order is ignored on purpose: a link made later in a
loop, or by a command that runs in the background, can still be in place when the word is used.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import replace

from ._records import Command, Word

MAX_LINKS = 64
"""Links followed per script; past it the script is opaque (the walker's Limit)."""


def _absolute(text: str, cwd: str, home: str) -> str:
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    path = posixpath.normpath(posixpath.join(cwd, text))
    return "/" + path.lstrip("/") if path.startswith("//") else path


def symlinks_made(
    program: str, argv: tuple[Word, ...], cwds: tuple[str, ...], home: str
) -> list[tuple[str, str]] | None:
    """The (link, target) pairs, absolute, that ``ln -s ...`` makes from any of ``cwds``; [] when
    the command makes no symlink, None when a link or target is not a plain word."""
    if program != "ln":
        return []
    symbolic, no_dir, directory, operands = _ln_words(argv)
    if not symbolic or not operands:
        return []
    if any(w.text is None for w in operands) or (directory is not None and directory.text is None):
        return None
    texts = [w.text or "" for w in operands]
    folder = None if directory is None else directory.text or ""
    pairs: list[tuple[str, str]] = []
    for cwd in cwds:
        for link, target in _made(texts, folder, no_dir, cwd, home):
            link = _absolute(link, cwd, home)
            # A relative target is read from the link's folder, not the working folder.
            pairs.append((link, _absolute(target, posixpath.dirname(link), home)))
    return pairs


_LnOption = tuple[bool, bool, Word | None, int]
"""What one ln option says: symbolic, no target directory, the target directory (None when it
names none), and the index of the last word it took."""


def _ln_words(argv: tuple[Word, ...]) -> tuple[bool, bool, Word | None, list[Word]]:
    """ln's argv read: symbolic (-s), no target directory (-T, -n), the target directory (-t),
    and the operands."""
    symbolic = no_dir = False
    directory: Word | None = None
    operands: list[Word] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        text = word.text
        if text is None:
            operands.append(word)
        elif text == "--":
            operands.extend(argv[i + 1 :])
            break
        elif text.startswith("-") and len(text) > 1:
            read = _ln_long if text.startswith("--") else _ln_short
            is_symbolic, is_no_dir, named, i = read(argv, i, text)
            symbolic = symbolic or is_symbolic
            no_dir = no_dir or is_no_dir
            if named is not None:
                directory = named
        else:
            operands.append(word)
        i += 1
    return symbolic, no_dir, directory, operands


def _ln_long(argv: tuple[Word, ...], i: int, text: str) -> _LnOption:
    symbolic = "--symbolic".startswith(text) and len(text) > 3
    no_dir = text in ("--no-target-directory", "--no-dereference")
    directory: Word | None = None
    if text.startswith("--target-directory="):
        directory = Word(text=text.split("=", 1)[1], source=argv[i].source)
    elif text == "--target-directory" and i + 1 < len(argv):
        directory = argv[i + 1]
        i += 1
    return symbolic, no_dir, directory, i


def _ln_short(argv: tuple[Word, ...], i: int, text: str) -> _LnOption:
    flags = text[1:]
    directory: Word | None = None
    if "t" in flags:
        rest = flags.split("t", 1)[1]
        if rest:
            directory = Word(text=rest, source=argv[i].source)
        elif i + 1 < len(argv):
            directory = argv[i + 1]
            i += 1
    if flags.endswith("S"):
        i += 1  # -S SUFFIX: the next word is its value
    return "s" in flags, "T" in flags or "n" in flags, directory, i


def _made(
    texts: list[str], folder: str | None, no_dir: bool, cwd: str, home: str
) -> list[tuple[str, str]]:
    """The (link, target) pairs, as written, of ``ln -s TEXTS`` run in ``cwd`` (``folder``: its
    -t target directory)."""
    if folder is not None:
        into = _absolute(folder, cwd, home)
        return [(posixpath.join(into, posixpath.basename(t.rstrip("/"))), t) for t in texts]
    if len(texts) == 1:
        return [(posixpath.join(cwd, posixpath.basename(texts[0].rstrip("/"))), texts[0])]
    last = _absolute(texts[-1], cwd, home)
    if len(texts) > 2 or (not no_dir and os.path.isdir(last)):
        return [(posixpath.join(last, posixpath.basename(t.rstrip("/"))), t) for t in texts[:-1]]
    return [(last, texts[0])]


def _through(path: str, links: list[tuple[str, str]]) -> list[str]:
    found: list[str] = []
    todo = [path]
    for _ in range(4):  # a link to a link: a few rounds, each bounded
        more: list[str] = []
        for one in todo:
            for link, target in links:
                if one == link or one.startswith(link + "/"):
                    other = posixpath.normpath(target + one[len(link) :])
                    if other not in found and other != path:
                        found.append(other)
                        more.append(other)
        if not more:
            break
        todo = more
    return found


def _word(word: Word, cwds: tuple[str, ...], home: str, links: list[tuple[str, str]]) -> Word:
    if word.text is None or "://" in word.text:
        return word
    texts = [word.text]
    if word.text.startswith("-") and "=" in word.text:
        texts.append(word.text.split("=", 1)[1])
    extra: list[str] = []
    for text in texts:
        for cwd in cwds:
            extra.extend(_through(_absolute(text, cwd, home), links))
    extra = [e for e in dict.fromkeys(extra) if e not in word.alternatives]
    return replace(word, alternatives=(*word.alternatives, *extra)) if extra else word


def through_links(
    commands: tuple[Command, ...], links: list[tuple[str, str]], home: str
) -> tuple[Command, ...]:
    """``commands`` with each path word under a link the script makes given the path through
    the link as an alternative."""
    if not links:
        return commands
    out: list[Command] = []
    for command in commands:
        cwds = command.cwds or (command.cwd,)
        argv = tuple(
            w if i == 0 else _word(w, cwds, home, links) for i, w in enumerate(command.argv)
        )
        redirects = tuple(_word(w, cwds, home, links) for w in command.redirects)
        out.append(replace(command, argv=argv, redirects=redirects))
    return tuple(out)
