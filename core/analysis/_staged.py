"""A script that writes a file and runs it (``curl -o i.sh URL && sh i.sh``, ``echo 'rm -rf /' >
x.sh; bash x.sh``): what runs is the file's content, which the analysis never sees, so the script
is opaque. Order is ignored (a loop can run a file a later line writes)."""

from __future__ import annotations

import posixpath

from ._interpreters import interpreter, program_source
from ._records import Command, Word

_OUTPUT_OPTIONS = frozenset({"-o", "-O", "--output", "--output-document", "--out-file"})
_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp", "dd", "tee", "sponge"})


def _absolute(text: str, cwd: str, home: str) -> str:
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    return posixpath.normpath(posixpath.join(cwd, text))


def _written(command: Command) -> list[str]:
    """Files ``command`` may write: redirection targets, ``-o FILE`` / ``--output=FILE``, tee's
    and sponge's operands, a copy's destination, dd's ``of=``."""
    texts = [w.text for w in command.redirects if w.text]
    argv = command.argv
    for i, word in enumerate(argv[1:], start=1):
        text = word.text or ""
        if text in _OUTPUT_OPTIONS and i + 1 < len(argv) and argv[i + 1].text:
            texts.append(argv[i + 1].text or "")
        elif text.split("=", 1)[0] in _OUTPUT_OPTIONS and "=" in text:
            texts.append(text.split("=", 1)[1])
        elif text.startswith("-o") and len(text) > 2 and not text.startswith("--"):
            texts.append(text[2:])
        elif text.startswith("of="):
            texts.append(text[3:])
    if command.program in _COPIERS:
        operands = [w.text for w in argv[1:] if w.text and not w.text.startswith("-")]
        texts.extend(operands if command.program in ("tee", "sponge") else operands[-1:])
    return texts


def _ran(command: Command) -> Word | None:
    """The file ``command`` runs as a program: ``./x.sh``, ``bash x.sh``, ``python3 x.py``."""
    first = command.argv[0] if command.argv else None
    if first is not None and first.text and "/" in first.text:
        return first
    kind = interpreter(command.program or "")
    if kind is None:
        return None
    source = program_source(kind, command.argv)
    return source if isinstance(source, Word) and source.text else None


def runs_a_written_file(commands: tuple[Command, ...], home: str) -> str | None:
    """Why the script is opaque because it runs a file it writes itself, or None."""
    runs = [(command, ran) for command in commands if (ran := _ran(command)) is not None]
    if not runs:
        return None  # the common case: nothing runs a file, nothing to resolve
    written: dict[str, Command] = {}
    for command in commands:
        for cwd in command.cwds or (command.cwd,):
            for text in _written(command):
                written.setdefault(_absolute(text, cwd, home), command)
    if not written:
        return None
    for command, ran in runs:
        if ran.text is None:
            continue
        for cwd in command.cwds or (command.cwd,):
            writer = written.get(_absolute(ran.text, cwd, home))
            if writer is not None and writer is not command:
                return f"it runs {ran.source}, a file the script itself writes"
    return None
