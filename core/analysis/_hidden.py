"""Commands hidden in options and variables (``ssh -o ProxyCommand=...``, ``git -c
core.sshCommand=...``, ``rsync -e``, ``GIT_SSH_COMMAND=...``): each is parsed as a script."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ._git_runs import git_subcommand_scripts
from ._options import Options, read_options
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
_GIT_KEYS = re.compile(
    r"(core\.(sshcommand|pager|editor|fsmonitor|askpass)|sequence\.editor|alias\..+|"
    r"credential(\..+)?\.helper|gpg(\..+)?\.program|diff\.external|diff\..+\.(command|textconv)|"
    r"merge\..+\.driver|filter\..+\.(clean|smudge|process)|pager\..+|"
    r"uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy)|"
    r"interactive\.difffilter|sendemail\.(smtpserver|tocmd|cccmd)|ssh\.variant|web\.browser|"
    r"browser\..+\.cmd|man\..+\.cmd|gc\..*hook|core\.hookspath)\Z"
)
"""git config keys whose value is a command (``!`` before an alias or helper runs a shell)."""


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


def hidden_commands(program: str, argv: tuple[Word, ...]) -> list[tuple[str, Word]]:
    """Each (via, script) that ``argv`` hides in its options."""
    reader = _HIDDEN.get(program)
    if reader is None:
        return []
    return reader(program, argv[1:])


def _ssh_option(words: tuple[Word, ...], i: int, text: str, source: str) -> Word | None:
    """The value of ``-o VALUE`` or ``-oVALUE`` at ``words[i]``."""
    if text == "-o" and i + 1 < len(words):
        return words[i + 1]
    if text.startswith("-o") and len(text) > 2:
        return _literal(text[2:], source)
    return None


def _ssh_hidden(program: str, words: tuple[Word, ...]) -> _Found:
    """ssh -o ProxyCommand=... (and the other command keys); scp/sftp -S PROGRAM."""
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
    if program in ("scp", "sftp"):
        for i, word in enumerate(words):
            if word.text == "-S" and i + 1 < len(words):
                found.append((f"{program} -S", words[i + 1]))
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class _CommandOptions:
    """Where a program takes a command in its options, read the way getopt reads them. Every
    word is looked at, operands too: unlike ``read_options``, this reading never stops early, so
    nothing after an operand hides."""

    short: str = ""
    """Letters whose value is a command: ``-e CMD``, ``-eCMD``, and in a bundle, ``-ave CMD``."""
    short_values: str = ""
    """The program's other letters that take a value: a bundle ends at one (``-fe`` is ``-f e``)."""
    long: Mapping[str, str] = field(default_factory=dict)
    """Long options whose value is a command (``--rsh CMD``, ``--rsh=CMD``, and any prefix:
    getopt takes an unambiguous one), each with the text the command follows in its value
    (``exec=`` for tar's ``--checkpoint-action``; mostly none)."""
    words: tuple[str, ...] = ()
    """Whole words whose next word is a command (zip's ``-TT``)."""


_COMMAND_OPTIONS = {
    # rsync: the remote shell and the remote rsync
    "rsync": _CommandOptions(
        short="e", short_values="BfMT@", long={"--rsh": "", "--rsync-path": ""}
    ),
    # npx / npm exec / pnpm: a shell string it runs
    **dict.fromkeys(("npx", "npm", "pnpm"), _CommandOptions(short="c", long={"--call": ""})),
    # zip -T tests the archive with this command
    "zip": _CommandOptions(words=("-TT",), long={"--unzip-command": ""}),
    # tar's programs: compressors, the extract filter, volume scripts, checkpoint actions
    "tar": _CommandOptions(
        short="IF",
        short_values="bCfgHKLNTVX",
        long={
            "--to-command": "",
            "--use-compress-program": "",
            "--info-script": "",
            "--new-volume-script": "",
            "--rsh-command": "",
            "--checkpoint-action": "exec=",
        },
    ),
}


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
            found.extend(_valued(f"{program} {text}", "", None, after))
        elif text.startswith("--"):
            found.extend(_long_option(program, options, text, word.source, after))
        elif text.startswith("-"):
            found.extend(_short_options(program, options, text, word.source, after))
    return found


def _valued(label: str, lead: str, joined: Word | None, after: Word | None) -> _Found:
    """The command an option was given: ``joined`` (in its own word) or else the next word,
    past ``lead``; nothing when the value does not start with ``lead`` (another action)."""
    value = joined if joined is not None else after
    if value is None:
        return []
    if not lead or value.text is None:
        return [(label, value)]
    if not value.text.startswith(lead):
        return []
    return [(label, _literal(value.text[len(lead) :], value.source))]


def _long_option(
    program: str, options: _CommandOptions, text: str, source: str, after: Word | None
) -> _Found:
    name, eq, value = text.partition("=")
    full = _long_name(options, name)
    if full is None:
        return []
    joined = _literal(value, source) if eq else None
    return _valued(f"{program} {full}", options.long[full], joined, after)


def _long_name(options: _CommandOptions, name: str) -> str | None:
    """The command option ``name`` names, or is a prefix of (read as it, even where another
    option shares the prefix: the program would refuse it and run nothing)."""
    if len(name) <= 2:
        return None
    return next((full for full in options.long if full.startswith(name)), None)


def _short_options(
    program: str, options: _CommandOptions, text: str, source: str, after: Word | None
) -> _Found:
    """A bundle of short options: flags up to a letter that takes a value."""
    for k, letter in enumerate(text[1:], start=1):
        if letter in options.short:
            rest = text[k + 1 :]
            joined = _literal(rest, source) if rest else None
            return _valued(f"{program} -{letter}", "", joined, after)
        if letter in options.short_values or not letter.isalnum():
            return []
    return []


def _may_give_a_command(options: _CommandOptions, source: str) -> bool:
    """Whether a word whose text cannot be known may be a command option with its value: its
    option name is seen (``--rsh="$X"``) or cannot be (``--"$X"``, ``-av"$X"``)."""
    visible = source.replace('"', "").replace("'", "").replace("\\", "")
    if visible.startswith("--"):
        name = visible.partition("=")[0]
        return "$" in name or "`" in name or _long_name(options, name) is not None
    if not visible.startswith("-"):
        return False
    for letter in visible[1:]:
        if letter in options.short or letter in "$`":
            return True
        if letter in options.short_values or not letter.isalnum():
            return False
    return False


def _git_hidden(program: str, words: tuple[Word, ...]) -> _Found:
    return _git(words)


_HIDDEN: dict[str, Callable[[str, tuple[Word, ...]], _Found]] = {
    **dict.fromkeys(("ssh", "scp", "sftp", "autossh"), _ssh_hidden),
    "git": _git_hidden,
    **dict.fromkeys(_COMMAND_OPTIONS, _options_hidden),
}
"""The programs that hide commands in their options, each with its reader."""


def _git(words: tuple[Word, ...]) -> _Found:
    found = _git_options(words)
    found.extend(git_subcommand_scripts(words))
    found.extend(_git_config_command(words))
    return found


def _git_options(words: tuple[Word, ...]) -> _Found:
    """git's global and fetch/push options that carry a command: -c KEY=VALUE, --config-env,
    clone -u, --upload-pack, --receive-pack, --exec."""
    found: _Found = []
    for i, word in enumerate(words):
        text = word.text
        if text is None:
            continue
        if text == "-c" and i + 1 < len(words):
            found.extend(_git_config_pair(words, i, words[i + 1]))
        elif text[:1] == "-":
            flag = _git_flag(words, i, text, word.source)
            if flag is not None:
                found.append(flag)
    return found


def _git_flag(words: tuple[Word, ...], i: int, text: str, source: str) -> tuple[str, Word] | None:
    if text.startswith("--config-env="):
        key = text.split("=", 2)[1].lower() if text.count("=") >= 2 else ""
        return ("git --config-env", Word(text=None, source=text)) if _GIT_KEYS.match(key) else None
    if text == "-u" and i + 1 < len(words) and "clone" in [w.text for w in words[:i]]:
        return ("git clone -u", words[i + 1])  # clone's -u is --upload-pack
    if text in ("--upload-pack", "--receive-pack", "--exec") and i + 1 < len(words):
        return (f"git {text}", words[i + 1])
    if text.startswith(("--upload-pack=", "--receive-pack=", "--exec=")):
        return (f"git {text.split('=', 1)[0]}", _literal(text.split("=", 1)[1], source))
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
    if key.lower().startswith("alias.") and not value.lstrip().startswith("!"):
        found.append((f"git -c {key}", _git_alias(key[6:], value, words, pair.source)))
    elif key.lower() == "core.hookspath":
        # a folder of hook scripts git runs: their content cannot be seen
        found.append((f"git -c {key}", Word(text=None, source=pair.source)))
    elif _GIT_KEYS.match(key.lower()):
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
    if _GIT_KEYS.match(name.lower()):
        found.append(_git_config_setting(name, setting))
    return found


def _git_config_setting(name: str, setting: Word) -> tuple[str, Word]:
    if name.lower() == "core.hookspath":
        return (f"git config {name}", Word(text=None, source=setting.source))
    if name.lower().startswith("alias.") and not (setting.text or "!").lstrip().startswith("!"):
        return (f"git config {name}", _git_alias("", setting.text or "", (), name))
    return (f"git config {name}", _script_value(setting))


def _forced_push(key: str, value: str) -> str | None:
    """The push a git setting makes every later ``git push`` do, when it forces:
    ``remote.NAME.push=+REFSPEC`` and ``remote.NAME.mirror=true`` (read as ``git push +REFSPEC``
    and ``git push --mirror``, so that a rule on force pushes holds on the setting)."""
    key = key.lower()
    if not key.startswith("remote."):
        return None
    if key.endswith(".push") and value.lstrip().startswith("+"):
        return f"git push {shlex.quote(value.strip())}"
    if key.endswith(".mirror") and value.strip().lower() in ("true", "yes", "on", "1", ""):
        return "git push --mirror"
    return None


def _git_alias(name: str, value: str, words: tuple[Word, ...], source: str) -> Word:
    """A git alias without ``!`` is more git arguments: ``alias.p='push -f'`` then ``git p`` runs
    ``git push -f`` and the words after ``p``; where it is used later (``git config alias.p``) the
    words after it are unknown."""
    texts = [w.text for w in words]
    if name and name in texts:
        rest = words[texts.index(name) + 1 :]
        if all(w.text is not None for w in rest):
            tail = " ".join(shlex.quote(w.text or "") for w in rest)
            return Word(text=f"git {value} {tail}".rstrip(), source=source)
    return Word(text=f'git {value} "$GIT_ALIAS_ARGUMENTS"', source=source)


SSH_OPTIONS = Options(short_values="BbcDEeFIiJLlmOoPpQRSWw")
"""ssh's options that take a value (``-p 22``, ``-J jump``)."""


def ssh_remote_command(program: str, argv: tuple[Word, ...]) -> Word | None:
    """The command ``ssh HOST COMMAND...`` runs on the remote host (a shell parses it there)."""
    if program not in ("ssh", "autossh"):
        return None
    read = read_options(argv, 1, SSH_OPTIONS)
    if read.problem or read.index + 1 >= len(argv):
        return None
    words = argv[read.index + 1 :]
    source = " ".join(w.source for w in words)
    if any(w.text is None for w in words):
        return Word(text=None, source=source)
    return Word(text=" ".join(w.text or "" for w in words), source=source)
