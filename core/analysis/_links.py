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
        elif text.startswith("--"):
            symbolic = symbolic or ("--symbolic".startswith(text) and len(text) > 3)
            no_dir = no_dir or text in ("--no-target-directory", "--no-dereference")
            if text.startswith("--target-directory="):
                directory = Word(text=text.split("=", 1)[1], source=word.source)
            elif text == "--target-directory" and i + 1 < len(argv):
                directory = argv[i + 1]
                i += 1
        elif text.startswith("-") and len(text) > 1:
            flags = text[1:]
            symbolic = symbolic or "s" in flags
            no_dir = no_dir or "T" in flags or "n" in flags
            if "t" in flags:
                rest = flags.split("t", 1)[1]
                if rest:
                    directory = Word(text=rest, source=word.source)
                elif i + 1 < len(argv):
                    directory = argv[i + 1]
                    i += 1
            if flags.endswith("S"):
                i += 1  # -S SUFFIX: the next word is its value
        else:
            operands.append(word)
        i += 1
    if not symbolic or not operands:
        return []
    if any(w.text is None for w in operands) or (directory is not None and directory.text is None):
        return None
    texts = [w.text or "" for w in operands]
    pairs: list[tuple[str, str]] = []
    for cwd in cwds:
        if directory is not None:
            folder = _absolute(directory.text or "", cwd, home)
            made = [(posixpath.join(folder, posixpath.basename(t.rstrip("/"))), t) for t in texts]
        elif len(texts) == 1:
            made = [(posixpath.join(cwd, posixpath.basename(texts[0].rstrip("/"))), texts[0])]
        else:
            last = _absolute(texts[-1], cwd, home)
            into = len(texts) > 2 or (not no_dir and os.path.isdir(last))
            made = (
                [(posixpath.join(last, posixpath.basename(t.rstrip("/"))), t) for t in texts[:-1]]
                if into
                else [(last, texts[0])]
            )
        for link, target in made:
            link = _absolute(link, cwd, home)
            # A relative target is read from the link's folder, not the working folder.
            pairs.append((link, _absolute(target, posixpath.dirname(link), home)))
    return pairs


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
