"""Commands hidden in options and variables (``ssh -o ProxyCommand=...``, ``git -c
core.sshCommand=...``, ``rsync -e``, ``GIT_SSH_COMMAND=...``): each is parsed as a script."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..records._plain import Record
from ._git_runs import git_subcommand_scripts, joined
from ._options import read_options
from ._programs import (
    DESTINATION,
    GIT_SUBCOMMAND_RUNS,
    PROGRAMS,
    SSH,
    SSH_OPTION,
    Program,
    every_option,
    git_run_key,
    git_unseen_key,
    operands,
)
from ._records import Word

COMMAND_VARIABLES = frozenset(
    {
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_PROXY_COMMAND",
        "GIT_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "SSH_ASKPASS",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "MANPAGER",
        "SYSTEMD_PAGER",
        "RSYNC_RSH",
        "PROMPT_COMMAND",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
        "SUDO_ASKPASS",
        "SUDO_EDITOR",
        "FCEDIT",
        "CVS_RSH",
        "BASH_ENV",
        "PS0",
        "PS1",
        "PS2",
        "PS4",
        "ENV",
    }
)
"""Variables whose value a program runs as a command."""

_LOADERS = frozenset({"LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES"})
_SSH_KEYS = frozenset({"proxycommand", "localcommand", "knownhostscommand", "remotecommand"})


def _literal(text: str, source: str) -> Word:
    return Word(text=text, source=source)


def _script_value(value: Word) -> Word:
    text = value.text
    if text is None:
        return value
    text = text.lstrip()
    if text.startswith("!"):
        text = text[1:]
    return _literal(text.lstrip("|"), value.source)


def hidden_in_assignment(word: Word) -> Word | None:
    """The command a ``NAME=VALUE`` word hides, when NAME is one a program runs."""
    source = word.text if word.text is not None else word.source
    name, eq, value = source.partition("=")
    if eq and name in _LOADERS:
        # A library loaded into every program it starts: what runs cannot be seen.
        return Word(text=None, source=word.source)
    if eq and name == "GIT_CONFIG_PARAMETERS":
        # git -c in the environment ('core.sshCommand'='...'): not read here, so opaque.
        return Word(text=None, source=word.source)
    if eq and name.startswith("GIT_CONFIG_VALUE_"):
        if word.text is None:
            return word
        # a command (core.pager, `!` aliases), or an alias's git arguments (alias.p=push -f)
        script = _script_value(_literal(value, word.source)).text or ""
        plain = "" if value.lstrip().startswith("!") else f"\ngit {value}"
        return _literal(script + plain, word.source)
    if not eq or name not in COMMAND_VARIABLES:
        return None
    if word.text is None:
        return Word(text=None, source=word.source)
    return _script_value(_literal(value, word.source))


_Found = list[tuple[str, Word]]


def _ssh_option(words: tuple[Word, ...], i: int, text: str, source: str) -> Word | None:
    """The value of ``-o VALUE`` or ``-oVALUE`` at ``words[i]``."""
    if text == "-o" and i + 1 < len(words):
        return words[i + 1]
    if text.startswith("-o") and len(text) > 2:
        return _literal(text[2:], source)
    return None


def _ssh_hidden(program: str, words: tuple[Word, ...]) -> _Found:
    """ssh -o ProxyCommand=... (and the other command keys)."""
    found: _Found = []
    for i, word in enumerate(words):
        text = word.text
        if text is None:
            continue
        value = _ssh_option(words, i, text, word.source)
        if value is None:
            continue
        if value.text is None:
            found.append((f"{program} -o", value))
            continue
        parts = re.split(r"\s*=\s*|\s+", value.text.strip(), maxsplit=1)
        if parts[0].lower() in _SSH_KEYS:
            rest = parts[1] if len(parts) > 1 else ""
            found.append((f"{program} -o {parts[0]}", _literal(rest, value.source)))
    return found


class _CommandOptions(Record):
    """Where a program takes a command in its options (its table's ``runs``), read the way getopt
    reads them. Every word is looked at, operands too: unlike ``read_options``, this reading
    never stops early, so nothing after an operand hides."""

    __slots__ = ("long", "short", "short_values", "words")

    short: Mapping[str, tuple[str, ...]]
    """Letters whose value is a command: ``-e CMD``, ``-eCMD``, and in a bundle, ``-ave CMD``."""
    short_values: str
    """The program's other letters that take a value: a bundle ends at one (``-fe`` is ``-f e``)."""
    long: Mapping[str, tuple[str, ...]]
    """Long options whose value is a command (``--rsh CMD``, ``--rsh=CMD``, and any prefix:
    getopt takes an unambiguous one), each with the texts the command follows in its value
    (``exec=`` for tar's ``--checkpoint-action``; mostly none)."""
    words: Mapping[str, tuple[str, ...]]
    """Whole words whose next word is a command (zip's ``-TT``)."""

    def __init__(
        self,
        *,
        short: Mapping[str, tuple[str, ...]] | None = None,
        short_values: str = "",
        long: Mapping[str, tuple[str, ...]] | None = None,
        words: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        object.__setattr__(self, "short", {} if short is None else short)
        object.__setattr__(self, "short_values", short_values)
        object.__setattr__(self, "long", {} if long is None else long)
        object.__setattr__(self, "words", {} if words is None else words)


def _command_options(table: Program) -> _CommandOptions:
    """A table's ``runs`` sorted into the forms getopt reads."""
    short = {k[1]: v for k, v in table.runs.items() if len(k) == 2 and k[0] == "-"}
    return _CommandOptions(
        short=short,
        short_values="".join(c for c in table.options.short_values if c not in short),
        long={k: v for k, v in table.runs.items() if k.startswith("--")},
        words={k: v for k, v in table.runs.items() if len(k) > 2 and not k.startswith("--")},
    )


_COMMAND_OPTIONS = {name: _command_options(table) for name, table in PROGRAMS.items() if table.runs}
"""Each program whose table has options that run a command, with those options."""


def _options_hidden(program: str, words: tuple[Word, ...]) -> _Found:
    """The commands given to ``program``'s options of ``_COMMAND_OPTIONS``; a word that cannot be
    known and may be such an option gives itself, unknown (the script is then opaque)."""
    options = _COMMAND_OPTIONS[program]
    found: _Found = []
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else None
        text = word.text
        if text is None:
            if _may_give_a_command(options, word.source):
                found.append((f"{program} {word.source}", word))
        elif text in options.words:
            found.extend(_valued(f"{program} {text}", options.words[text], None, after))
        elif text.startswith("--"):
            found.extend(_long_option(program, options, text, word.source, after))
        elif text.startswith("-"):
            found.extend(_short_options(program, options, text, word.source, after))
    return found


def _valued(label: str, leads: tuple[str, ...], joined: Word | None, after: Word | None) -> _Found:
    """The command an option was given: ``joined`` (in its own word) or else the next word,
    past one of ``leads``; nothing when the value starts with none of them (another action).
    The lead "/" keeps the value whole: a path is the program (``--smtp-server=/bin/x``)."""
    value = joined if joined is not None else after
    if value is None:
        return []
    if "" in leads or value.text is None:
        return [(label, value)]
    stripped = value.text.lstrip()
    for lead in leads:
        if lead == "/" and "/" in stripped:
            return [(label, value)]
        if lead != "/" and stripped.startswith(lead):
            return [(label, _literal(stripped[len(lead) :], value.source))]
    return []


def _long_option(
    program: str, options: _CommandOptions, text: str, source: str, after: Word | None
) -> _Found:
    name, eq, value = text.partition("=")
    full = _long_name(options.long, name)
    if full is None:
        return []
    joined = _literal(value, source) if eq else None
    return _valued(f"{program} {full}", options.long[full], joined, after)


def _long_name(long: Mapping[str, tuple[str, ...]], name: str) -> str | None:
    """The command option ``name`` names, or is a prefix of (read as it, even where another
    option shares the prefix: the program would refuse it and run nothing)."""
    if len(name) <= 2:
        return None
    return next((full for full in long if full.startswith(name)), None)


def _short_options(
    program: str, options: _CommandOptions, text: str, source: str, after: Word | None
) -> _Found:
    """A bundle of short options: flags up to a letter that takes a value."""
    for k, letter in enumerate(text[1:], start=1):
        if letter in options.short:
            rest = text[k + 1 :]
            joined = _literal(rest, source) if rest else None
            return _valued(f"{program} -{letter}", options.short[letter], joined, after)
        if letter in options.short_values or not letter.isalnum():
            return []
    return []


def _may_give_a_command(options: _CommandOptions, source: str) -> bool:
    """Whether a word whose text cannot be known may be a command option with its value: its
    option name is seen (``--rsh="$X"``) or cannot be (``--"$X"``, ``-av"$X"``)."""
    visible = source.replace('"', "").replace("'", "").replace("\\", "")
    if visible.startswith("--"):
        name = visible.partition("=")[0]
        return "$" in name or "`" in name or _long_name(options.long, name) is not None
    if not visible.startswith("-"):
        return False
    for letter in visible[1:]:
        if letter in options.short or letter in "$`":
            return True
        if letter in options.short_values or not letter.isalnum():
            return False
    return False


def hidden_commands(program: str, argv: tuple[Word, ...]) -> list[tuple[str, Word]]:
    """Each (via, script) that ``argv`` hides in its options: its table's ``runs``, ssh's ``-o``
    command keys, git's config keys and subcommand options."""
    table = PROGRAMS.get(program)
    if table is None:
        return []
    words = argv[1:]
    found: _Found = _options_hidden(program, words) if table.runs else []
    if SSH_OPTION in table.hosts.values():
        found.extend(_ssh_hidden(program, words))
    if program == "git":
        found.extend(_git(words))
    if table.deletes:
        found.extend(_deleted(program, table, argv))
    return found


def _deleted(program: str, table: Program, argv: tuple[Word, ...]) -> _Found:
    """What a program's delete options (its table's ``deletes``) take away, read as ``rm -r --
    OPERANDS`` (``rsync --delete SRC DEST`` deletes under DEST, ``--remove-source-files`` the
    sources); an operand on another host (``host:path``, ``rsync://``) is not this file
    system's."""
    used = [
        (name, how)
        for name, _ in every_option(table, argv)
        for option, how in table.deletes.items()
        if name == option or (len(name) > 4 and option.startswith(name))
    ]
    if not used:
        return []
    kinds = {how for _, how in used}
    words = operands(table, argv)
    chosen = [
        *(words[-1:] if DESTINATION in kinds else []),
        *(words[:-1] if kinds - {DESTINATION} else []),
    ]
    local = [w for w in chosen if w.text is None or not _remote(w.text)]
    if not local:
        return []
    label = f"{program} {' '.join(dict.fromkeys(name for name, _ in used))}"
    return [
        (label, joined([_literal("rm", "rm"), _literal("-r", "-r"), _literal("--", "--"), *local]))
    ]


def _remote(text: str) -> bool:
    """Whether a copy program's operand is on another host: a URL, ``[user@]host:path``,
    ``host::module``."""
    if "://" in text:
        return True
    head, colon, _ = text.partition(":")
    return bool(colon and head and "/" not in head and not text.startswith(("/", ".", "~")))


def _git(words: tuple[Word, ...]) -> _Found:
    found = _git_options(words)
    found.extend(git_subcommand_scripts(words))
    found.extend(_git_config_command(words))
    return found


_GIT_RUNS = _CommandOptions(long=GIT_SUBCOMMAND_RUNS)


def _git_options(words: tuple[Word, ...]) -> _Found:
    """git's options that carry a command, wherever they are: ``-c KEY=VALUE`` (global, and
    clone's ``-c`` / ``--config``, attached or spaced), ``--config-env``, ``--exec-path=DIR``,
    clone's ``-u``, and GIT_SUBCOMMAND_RUNS (``--upload-pack``, send-email's ``--to-cmd``...)."""
    found: _Found = []
    for i, word in enumerate(words):
        text = word.text
        after = words[i + 1] if i + 1 < len(words) else None
        if text is None:
            if _may_give_a_command(_GIT_RUNS, word.source) or _may_set_config(word.source):
                found.append((f"git {word.source}", word))
            continue
        pair = _config_pair(text, word.source, after)
        if pair is not None:
            found.extend(_git_config_pair(words, i, pair))
        elif text[:1] == "-":
            flag = _git_flag(words, i, text, word.source)
            if flag is not None:
                found.append(flag)
            found.extend(_long_option("git", _GIT_RUNS, text, word.source, after))
    return found


def _config_pair(text: str, source: str, after: Word | None) -> Word | None:
    """The ``KEY=VALUE`` of ``-c PAIR``, ``-cPAIR``, ``--config PAIR``, ``--config=PAIR`` (and an
    unambiguous prefix of ``--config``), else None."""
    if text in ("-c", "--config") or (text.startswith("--con") and "--config".startswith(text)):
        return after if after is not None else None
    if text.startswith("-c") and len(text) > 2:
        return _literal(text[2:], source)
    name, eq, value = text.partition("=")
    if eq and name.startswith("--con") and "--config".startswith(name):
        return _literal(value, source)
    return None


def _may_set_config(source: str) -> bool:
    """Whether an unknown word may be ``-c``/``--config`` with its pair (``-c"$X"``)."""
    visible = source.replace('"', "").replace("'", "").replace("\\", "")
    return visible.startswith(("-c", "--con")) or visible.startswith(("-$", "--$", "-`", "--`"))


def _git_flag(words: tuple[Word, ...], i: int, text: str, source: str) -> tuple[str, Word] | None:
    if text.startswith("--config-env="):
        key = text.split("=", 2)[1].lower() if text.count("=") >= 2 else ""
        return ("git --config-env", Word(text=None, source=text)) if git_run_key(key) else None
    if text.startswith("--exec-path="):
        # the folder git runs its subcommands from: what runs there cannot be seen
        return ("git --exec-path", Word(text=None, source=source))
    if text == "-u" and i + 1 < len(words) and "clone" in [w.text for w in words[:i]]:
        return ("git clone -u", words[i + 1])  # clone's -u is --upload-pack
    return None


def _git_config_pair(words: tuple[Word, ...], i: int, pair: Word) -> _Found:
    """``git -c KEY=VALUE`` at ``words[i]``: a command key, an alias, a forced push."""
    if pair.text is None:
        return [("git -c", pair)]
    found: _Found = []
    key, eq, value = pair.text.partition("=")
    forced = _forced_push(key, value)
    if eq and forced is not None and "push" in [w.text for w in words[i + 2 :]]:
        found.append((f"git -c {key}", Word(text=forced, source=pair.source)))
    if not eq:
        return found
    remote = _remote_url(key, value)
    if remote is not None:
        found.append((f"git -c {key}", Word(text=remote, source=pair.source)))
    if key.lower().startswith("alias.") and not value.lstrip().startswith("!"):
        found.append((f"git -c {key}", _git_alias(key[6:], value, words, pair.source)))
    elif git_unseen_key(key.lower()):
        # a folder of hook scripts git runs, a config file it includes: unseen
        found.append((f"git -c {key}", Word(text=None, source=pair.source)))
    elif git_run_key(key.lower()):
        found.append((f"git -c {key}", _script_value(_literal(value, pair.source))))
    return found


def _git_config_command(words: tuple[Word, ...]) -> _Found:
    """git config KEY VALUE: the command runs on a later git call."""
    texts = [w.text for w in words]
    if "config" not in texts:
        return []
    found: _Found = []
    at = texts.index("config")
    operands = [w for w in words[at + 1 :] if not (w.text or "").startswith("-")]
    if operands and operands[0].text in ("set", "add"):
        operands = operands[1:]  # git 2.46's `git config set KEY VALUE`
    if len(operands) < 2 or not operands[0].text:
        return found
    name = operands[0].text
    setting = operands[1]
    if setting.text is not None:
        forced = _forced_push(name, setting.text)
        if forced is not None:
            found.append((f"git config {name}", Word(text=forced, source=setting.source)))
        remote = _remote_url(name, setting.text)
        if remote is not None:
            found.append((f"git config {name}", Word(text=remote, source=setting.source)))
    if git_run_key(name.lower()):
        found.append(_git_config_setting(name, setting))
    return found


def _git_config_setting(name: str, setting: Word) -> tuple[str, Word]:
    if git_unseen_key(name.lower()):
        return (f"git config {name}", Word(text=None, source=setting.source))
    if name.lower().startswith("alias.") and not (setting.text or "!").lstrip().startswith("!"):
        return (f"git config {name}", _git_alias("", setting.text or "", (), name))
    return (f"git config {name}", _script_value(setting))


def _forced_push(key: str, value: str) -> str | None:
    """The push a git setting makes every later ``git push`` do, when it forces or deletes:
    ``remote.NAME.push=+REFSPEC`` or ``=:BRANCH`` and ``remote.NAME.mirror=true`` (read as ``git
    push +REFSPEC``, ``git push :BRANCH`` and ``git push --mirror``, so that a rule on force
    pushes or deleted branches holds on the setting)."""
    import shlex  # when used, not at every start (shlex compiles a pattern)

    key = key.lower()
    if not key.startswith("remote."):
        return None
    if key.endswith(".push") and value.lstrip().startswith(("+", ":")):
        return f"git push {shlex.quote(value.strip())}"
    if key.endswith(".mirror") and value.strip().lower() in ("true", "yes", "on", "1", ""):
        return "git push --mirror"
    return None


def _remote_url(key: str, value: str) -> str | None:
    """Where a git setting sends every later fetch and push of a remote: ``remote.NAME.url``,
    ``remote.NAME.pushurl`` and ``url.BASE.insteadOf`` (read as ``git ls-remote URL``, so that a
    rule on git's hosts holds on the setting, as it would on ``git remote set-url``)."""
    import shlex  # when used, not at every start (shlex compiles a pattern)

    lowered = key.lower()
    if lowered.startswith("remote.") and lowered.endswith((".url", ".pushurl")):
        return f"git ls-remote {shlex.quote(value.strip())}"
    if lowered.startswith("url.") and lowered.endswith((".insteadof", ".pushinsteadof")):
        base = key[4:].rsplit(".", 1)[0]
        return f"git ls-remote {shlex.quote(base)}"
    return None


def _git_alias(name: str, value: str, words: tuple[Word, ...], source: str) -> Word:
    """A git alias without ``!`` is more git arguments: ``alias.p='push -f'`` then ``git p`` runs
    ``git push -f`` and the words after ``p``; where it is used later (``git config alias.p``) the
    words after it are unknown."""
    import shlex  # when used, not at every start (shlex compiles a pattern)

    texts = [w.text for w in words]
    if name and name in texts:
        rest = words[texts.index(name) + 1 :]
        if all(w.text is not None for w in rest):
            tail = " ".join(shlex.quote(w.text or "") for w in rest)
            return Word(text=f"git {value} {tail}".rstrip(), source=source)
    return Word(text=f'git {value} "$GIT_ALIAS_ARGUMENTS"', source=source)


def ssh_remote_command(program: str, argv: tuple[Word, ...]) -> Word | None:
    """The command ``ssh HOST COMMAND...`` runs on the remote host (a shell parses it there)."""
    if program not in ("ssh", "autossh"):
        return None
    read = read_options(argv, 1, SSH.options)
    if read.problem or read.index + 1 >= len(argv):
        return None
    words = argv[read.index + 1 :]
    source = " ".join(w.source for w in words)
    if any(w.text is None for w in words):
        return Word(text=None, source=source)
    return Word(text=" ".join(w.text or "" for w in words), source=source)
