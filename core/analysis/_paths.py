"""Paths as a rule sees them: absolute, ``~`` expanded, ``..`` collapsed as text and after
symlinks (both forms when they differ)."""

from __future__ import annotations

import functools
import os
import posixpath
import stat
from urllib.parse import unquote

from .._public import public
from ._programs import AT, FILE, FORM, PROGRAMS, Program, every_option
from ._records import Command, Word


def _home(path: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        return home + path[1:]
    return path


def _collapse(path: str) -> str:
    collapsed = posixpath.normpath(path)
    return "/" + collapsed.lstrip("/") if collapsed.startswith("//") else collapsed


Seen = dict[tuple[str, str, str], tuple[str, ...]]
"""One decision's normalised words: (path, cwd, home) -> forms."""


def normalise_path(
    path: str,
    *,
    cwd: str,
    home: str,
    folders: dict[str, str] | None = None,
    seen: Seen | None = None,
) -> tuple[str, ...]:
    """``path`` made absolute against ``cwd``: ``..`` collapsed as text, and the same path with
    symlinks resolved (``..`` after a symlink climbs from its target), each once.

    ``folders`` remembers resolved folders for the paths of one command: every argument in the
    working folder then costs one ``lstat`` instead of one for each folder above it. Never keep
    it longer than one decision: a symlink may change between two calls. ``seen`` remembers
    each word's forms for the same decision (a script names the same word in many commands:
    a wrapper's words are its inner command's too), under the same rule."""
    if not path:
        return ()
    if seen is not None:
        key = (path, cwd, home)
        known = seen.get(key)
        if known is None:
            known = seen[key] = normalise_path(path, cwd=cwd, home=home, folders=folders)
        return known
    if "\x00" in path or path != path.strip():
        # a C library stops at NUL, and a tool may trim blanks: those forms count too
        whole = path.replace("\x00", "")
        cut = path.split("\x00", 1)[0]
        found: list[str] = []
        for one in dict.fromkeys((whole, whole.strip(), cut, cut.strip())):
            if one and one == one.strip():
                found.extend(normalise_path(one, cwd=cwd, home=home, folders=folders))
            elif one:
                found.extend(_forms(one, cwd, home, folders))
        return tuple(dict.fromkeys(found))
    return _forms(path, cwd, home, folders)


@functools.lru_cache(maxsize=256)
def _collapsed(folder: str) -> bool:
    """Whether ``folder`` has no ``.``, ``..`` or ``//`` to collapse (text only: cached)."""
    return _collapse(folder) == folder


def _forms(path: str, cwd: str, home: str, folders: dict[str, str] | None) -> tuple[str, ...]:
    memo: dict[str, str] = {} if folders is None else folders
    if "/" not in path and path not in _NOT_NAMES and _collapsed(cwd):
        return _name_forms(path, cwd, memo)
    name = path[2:]
    if path[:2] == "./" and name and "/" not in name and name not in _NOT_NAMES and _collapsed(cwd):
        # ./NAME is NAME (`rm -rf ./dist`, `./run.sh`): "." names the folder itself, whether
        # or not it is reached through a symlink, so both forms are the bare name's
        return _name_forms(name, cwd, memo)
    absolute = posixpath.join(cwd, _home(path, home))
    forms = [_collapse(absolute)]
    try:
        forms.append(real_path(absolute, memo))
        forms.append(real_path(forms[0], memo))
    except (OSError, ValueError, RuntimeError):
        pass
    return tuple(dict.fromkeys(f for f in forms if f))


_NOT_NAMES = frozenset({".", "..", "~"})


def _name_forms(name: str, cwd: str, folders: dict[str, str]) -> tuple[str, ...]:
    """:func:`_forms` of a bare name in a folder written without ``.``, ``..`` or ``//`` (most
    words of a command): the text form is the folder plus the name; the resolved one is the
    resolved folder plus the name, unless the name is a link (one ``lstat``)."""
    text = cwd + "/" + name if cwd != "/" else "/" + name
    try:
        real = folders.get(text)
        if real is None:
            # real_path(text) without its split and joins: the folder is cwd itself
            real_folder = folders.get(cwd)
            if real_folder is None:
                real_folder = folders[cwd] = os.path.realpath(cwd)
            joined = real_folder + "/" + name if real_folder != "/" else "/" + name
            real = folders[text] = os.path.realpath(joined) if _is_link(joined) else joined
    except (OSError, ValueError, RuntimeError):
        return (text,)
    return (text,) if real == text or not real else (text, real)


def _is_link(path: str) -> bool:
    """``os.path.islink`` (one ``lstat``; a path that cannot be read is no link)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def real_path(path: str, folders: dict[str, str]) -> str:
    """``os.path.realpath(path)``, remembered in ``folders`` with the folder part looked up
    there too: realpath(folder/name) is realpath(realpath(folder)/name), and only a link needs
    more than one ``lstat``."""
    found = folders.get(path)
    if found is not None:
        return found
    folder, name = posixpath.split(path)
    if name in ("", ".", ".."):
        real = os.path.realpath(path)
    else:
        if "/." in folder and ".." not in folder.split("/"):
            # `cwd/./x`'s folder is cwd's: "." and "//" change nothing after a symlink either
            # (only ".." does), so cwd's resolution, often found already, is used again
            folder = posixpath.normpath(folder)
        real_folder = folders.get(folder)
        if real_folder is None:
            real_folder = folders[folder] = os.path.realpath(folder)
        joined = posixpath.join(real_folder, name)
        known = folders.get(joined) if joined != path else None
        if known is None:
            known = folders[joined] = os.path.realpath(joined) if _is_link(joined) else joined
        real = known
    folders[path] = real
    return real


_NOT_PATHS = frozenset({"", "-", "--"})


def _candidates(command: Command) -> list[str]:
    found: list[str] = []
    argv = command.argv
    if argv and argv[0].text and "/" in argv[0].text:
        found.append(argv[0].text)
    _argument_candidates(argv, command.option_values, found)
    table = PROGRAMS.get(command.program or "")
    if table is not None and table.reads:
        found.extend(files_read(table, argv))
    if (table is not None and (table.lists or table.stdin_list)) or command.program == "git":
        from ._listed import listed_names  # imported late: _listed reads _paths' neighbours

        found.extend(listed_names(command))
    for word in command.redirects:
        found.extend(word.alternatives)
        if word.text:
            found.append(word.text)
    for word in command.assignments:
        if word.text and "=" in word.text:
            found.append(word.text.split("=", 1)[1])
    return found


def _argument_candidates(
    argv: tuple[Word, ...], option_values: tuple[int, ...], found: list[str]
) -> None:
    """Adds to ``found`` what ``argv[1:]`` may name as a path: operands, option values
    (``--out=X``, ``-o X`` when the analysis knows ``-o`` takes one, ``-o/tmp/x``), ``K=V``'s
    value, every glob match."""
    after_dashes = False
    for index, word in enumerate(argv[1:], start=1):
        found.extend(word.alternatives)
        text = word.text
        if text is None or text in _NOT_PATHS:
            if text == "--":
                after_dashes = True
            continue
        if after_dashes or not text.startswith("-") or index in option_values:
            found.append(text)
            if "=" in text and not after_dashes:
                found.append(text.split("=", 1)[1])
            continue
        if "=" in text:
            found.append(text.split("=", 1)[1])
        elif not text.startswith("--") and len(text) > 2 and "/" in text[2:]:
            found.append(text[2:])  # -o/tmp/x: a short option's attached value


def files_read(table: Program, argv: tuple[Word, ...]) -> list[str]:
    """The files a program's options name that it reads or sends, by its table: ``-T F``,
    ``-d@F``, ``--data-urlencode k@F``, ``-F 'k=<F;type=x'``, attached or spaced."""
    found: list[str] = []
    for option, value in every_option(table, argv):
        how = table.reads.get(option)
        if how is None or value is None or not value.text:
            continue
        text = value.text
        if how == FILE:
            found.append(text)
        elif how == AT and "@" in text:
            found.append(text.split("@", 1)[1])
        elif how == FORM:
            _, eq, rest = text.partition("=")
            if eq and rest[:1] in ("@", "<"):
                found.append(rest[1:].split(";", 1)[0])
    return found


def command_paths(
    command: Command,
    *,
    home: str | None = None,
    folders: dict[str, str] | None = None,
    seen: Seen | None = None,
) -> tuple[str, ...]:
    """Every path the command names: non-option arguments, ``--opt=VALUE`` and ``key=VALUE``
    values, redirection targets, a glob's matches, each normalised from each folder it could
    run in. ``folders``: resolved paths to share between the commands of one decision (see
    :func:`normalise_path`), never kept longer; ``seen`` likewise for whole words."""
    home = home or os.path.expanduser("~")
    cwds = command.cwds or (command.cwd,)
    folders = {} if folders is None else folders
    seen = {} if seen is None else seen
    out: list[str] = []
    texts = _candidates(command)
    # curl -d @FILE, -F name=@FILE, -T: the file after the @ is read and sent
    texts.extend([t[1:] for t in texts if t.startswith("@") and len(t) > 1])
    if command.program == "git":
        # git show REV:PATH reads PATH as of REV
        texts.extend(
            [t.split(":", 1)[1] for t in texts if ":" in t and "://" not in t and t[0] != ":"]
        )
    for text in dict.fromkeys(texts):  # a word named twice is read once
        if ":" in text:
            text = _file_url(text)
        if not text:
            continue
        for cwd in cwds:
            key = (text, cwd, home)
            forms = seen.get(key)  # normalise_path's own memo, without a call per word
            if forms is None:
                forms = seen[key] = normalise_path(text, cwd=cwd, home=home, folders=folders)
            out.extend(forms)
    return tuple(dict.fromkeys(out))


def _file_url(text: str) -> str:
    """The path a ``file://`` URL names (``file:///p``, ``file://localhost/p``); "" for any
    other URL (it names a host, not a file); other text as it is."""
    if text[:7].lower() == "file://":
        rest = unquote(text[7:])
        return rest[rest.find("/") :] if "/" in rest else ""
    return "" if "://" in text else text


def word_texts(words: tuple[Word, ...]) -> tuple[str, ...]:
    return tuple(w.text for w in words if w.text is not None)


public("toolhooks.kit", command_paths, normalise_path)
