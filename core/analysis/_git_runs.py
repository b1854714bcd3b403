"""Commands git subcommands run from their arguments: ``rebase --exec``, ``difftool
--extcmd``, ``submodule foreach``, ``bisect run``, ``filter-branch --*-filter``."""

from __future__ import annotations

from collections.abc import Sequence

from ._records import Word

_GIT_EXEC_OPTIONS = {
    "rebase": ("-x", "--exec"),
    "difftool": ("-x", "--extcmd"),
    "filter-branch": (
        "--env-filter",
        "--tree-filter",
        "--index-filter",
        "--parent-filter",
        "--msg-filter",
        "--commit-filter",
        "--tag-name-filter",
    ),
}
_SHORT_VALUES = frozenset("sXCt")
"""Short options of ``rebase`` (strategy, strategy option, context) and ``difftool`` (tool)
that take a value: a letter after one in a bundle is part of that value."""


def git_subcommand_scripts(words: tuple[Word, ...]) -> list[tuple[str, Word]]:
    """Commands git subcommands run: ``rebase --exec``, ``difftool --extcmd``, ``submodule
    foreach``, ``bisect run``, ``filter-branch --*-filter``."""
    texts = [w.text for w in words]
    found: list[tuple[str, Word]] = []
    for verb, options in _GIT_EXEC_OPTIONS.items():
        if verb in texts:
            found.extend(_option_scripts(verb, options, words, texts.index(verb) + 1))
    if "submodule" in texts:
        found.extend(_foreach_script(words[texts.index("submodule") + 1 :]))
    if "bisect" in texts:
        rest = words[texts.index("bisect") + 1 :]
        if rest and rest[0].text == "run" and len(rest) > 1:
            found.append(("git bisect run", joined(rest[1:])))
    return found


def _option_scripts(
    verb: str, options: tuple[str, ...], words: tuple[Word, ...], start: int
) -> list[tuple[str, Word]]:
    """``git VERB OPTION SCRIPT`` or ``OPTION=SCRIPT`` from ``words[start]`` on."""
    found: list[tuple[str, Word]] = []
    for i in range(start, len(words)):
        text = words[i].text or ""
        name, equals, value = text.partition("=")
        option = _long_option(name, options) if text.startswith("--") else None
        if option and equals:
            found.append((f"git {verb} {option}", Word(text=value, source=words[i].source)))
        elif option and i + 1 < len(words):
            found.append((f"git {verb} {option}", words[i + 1]))
        elif text.startswith("-") and not text.startswith("--"):
            found.extend(_short_script(verb, options, words, i))
    return found


def _long_option(name: str, options: tuple[str, ...]) -> str | None:
    """The long option ``name`` is, or abbreviates (git's parser takes any unique prefix:
    ``--exe``, ``--extc``); two letters at least, and an ambiguous prefix names the first."""
    for option in options:
        if option.startswith("--") and len(name) >= 4 and option.startswith(name):
            return option
    return None


def _short_script(
    verb: str, options: tuple[str, ...], words: tuple[Word, ...], i: int
) -> list[tuple[str, Word]]:
    """A short option in a bundle (``-ix SCRIPT``, ``-x'SCRIPT'``, ``-ixSCRIPT``): git reads the
    rest of the word, or the next word, as the option's value; a letter that takes a value
    itself (``-s``, ``-X``, ``-C``, ``-t``) ends the bundle."""
    text, source = words[i].text or "", words[i].source
    bundle = text[1:]
    for at, letter in enumerate(bundle):
        if letter in _SHORT_VALUES:
            bundle = bundle[: at + 1]
            break
    for option in options:
        if option.startswith("--") or option[1] not in bundle:
            continue
        rest = text[text.index(option[1], 1) + 1 :]
        if rest:
            return [(f"git {verb} {option}", Word(text=rest, source=source))]
        if i + 1 < len(words):
            return [(f"git {verb} {option}", words[i + 1])]
    return []


def _foreach_script(rest: tuple[Word, ...]) -> list[tuple[str, Word]]:
    """``git submodule foreach SCRIPT...`` (``rest``: the words after ``submodule``)."""
    rest_texts = [w.text for w in rest]
    if "foreach" not in rest_texts:
        return []
    after = rest[rest_texts.index("foreach") + 1 :]
    operands = [w for w in after if not (w.text or "").startswith("--")]
    if not operands:
        return []
    script = " ".join(w.text or "" for w in operands)
    unknown = any(w.text is None for w in operands)
    source = " ".join(w.source for w in operands)
    return [("git submodule foreach", Word(text=None if unknown else script, source=source))]


def joined(words: Sequence[Word]) -> Word:
    """Words a program hands on as one command line: a script of the words, quoted."""
    import shlex  # when used, not at every start (shlex compiles a pattern)

    source = " ".join(w.source for w in words)
    if any(w.text is None for w in words):
        return Word(text=None, source=source)
    return Word(text=" ".join(shlex.quote(w.text or "") for w in words), source=source)
