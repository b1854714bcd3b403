"""Commands hidden in options and variables (``ssh -o ProxyCommand=...``, ``git -c
core.sshCommand=...``, ``rsync -e``, ``GIT_SSH_COMMAND=...``): each is parsed as a script."""

from __future__ import annotations

import re
import shlex

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


def hidden_commands(program: str, argv: tuple[Word, ...]) -> list[tuple[str, Word]]:
    """Each (via, script) that ``argv`` hides in its options."""
    found: list[tuple[str, Word]] = []
    words = argv[1:]
    if program in ("ssh", "scp", "sftp", "autossh"):
        for i, word in enumerate(words):
            text = word.text
            if text is None:
                continue
            value: Word | None = None
            if text == "-o" and i + 1 < len(words):
                value = words[i + 1]
            elif text.startswith("-o") and len(text) > 2:
                value = _literal(text[2:], word.source)
            if value is None:
                continue
            if value.text is None:
                found.append((f"{program} -o", value))
                continue
            parts = re.split(r"\s*=\s*|\s+", value.text.strip(), maxsplit=1)
            key = parts[0].lower()
            rest = parts[1] if len(parts) > 1 else ""
            if key in _SSH_KEYS:
                found.append((f"{program} -o {parts[0]}", _literal(rest, value.source)))
        for i, word in enumerate(words):
            if program in ("scp", "sftp") and word.text == "-S" and i + 1 < len(words):
                found.append((f"{program} -S", words[i + 1]))
    elif program == "rsync":
        for i, word in enumerate(words):
            text = word.text
            if text is None:
                continue
            if text in ("-e", "--rsh", "--rsync-path") and i + 1 < len(words):
                found.append((f"rsync {text}", words[i + 1]))
            elif text.startswith(("--rsh=", "--rsync-path=")):
                found.append(
                    (f"rsync {text.split('=', 1)[0]}", _literal(text.split("=", 1)[1], word.source))
                )
            elif text.startswith("-e") and len(text) > 2 and not text.startswith("--"):
                found.append(("rsync -e", _literal(text[2:], word.source)))
    elif program == "git":
        found.extend(_git(words))
    elif program in ("npx", "npm", "pnpm"):
        for i, word in enumerate(words):
            text = word.text or ""
            if text in ("-c", "--call") and i + 1 < len(words):
                found.append((f"{program} {text}", words[i + 1]))  # a shell string it runs
            elif text.startswith("--call="):
                found.append((f"{program} --call", _literal(text[7:], word.source)))
    elif program == "zip":
        for i, word in enumerate(words):
            text = word.text or ""
            if text in ("-TT", "--unzip-command") and i + 1 < len(words):
                found.append((f"zip {text}", words[i + 1]))  # zip -T tests with this command
            elif text.startswith("--unzip-command="):
                found.append(("zip --unzip-command", _literal(text.split("=", 1)[1], word.source)))
    elif program == "tar":
        for i, word in enumerate(words):
            text = word.text or ""
            for prefix in (
                "--to-command=",
                "--use-compress-program=",
                "--info-script=",
                "--new-volume-script=",
                "--rsh-command=",
            ):
                if text.startswith(prefix):
                    found.append((f"tar {prefix[:-1]}", _literal(text[len(prefix) :], word.source)))
            if text.startswith("--checkpoint-action=exec="):
                found.append(
                    (
                        "tar --checkpoint-action",
                        _literal(text[len("--checkpoint-action=exec=") :], word.source),
                    )
                )
            if text in ("-I", "--to-command", "--use-compress-program", "-F") and i + 1 < len(
                words
            ):
                found.append((f"tar {text}", words[i + 1]))
    return found


def _git(words: tuple[Word, ...]) -> list[tuple[str, Word]]:
    found: list[tuple[str, Word]] = []
    for i, word in enumerate(words):
        text = word.text
        if text is None:
            continue
        pair: Word | None = None
        if text == "-c" and i + 1 < len(words):
            pair = words[i + 1]
        elif text.startswith("--config-env="):
            key = text.split("=", 2)[1].lower() if text.count("=") >= 2 else ""
            if _GIT_KEYS.match(key):
                found.append(("git --config-env", Word(text=None, source=text)))
            continue
        elif text == "-u" and i + 1 < len(words) and "clone" in [w.text for w in words[:i]]:
            found.append(("git clone -u", words[i + 1]))  # clone's -u is --upload-pack
            continue
        elif text in ("--upload-pack", "--receive-pack", "--exec") and i + 1 < len(words):
            found.append((f"git {text}", words[i + 1]))
            continue
        elif text.startswith(("--upload-pack=", "--receive-pack=", "--exec=")):
            found.append(
                (f"git {text.split('=', 1)[0]}", _literal(text.split("=", 1)[1], word.source))
            )
            continue
        if pair is None:
            continue
        if pair.text is None:
            found.append(("git -c", pair))
            continue
        key, eq, value = pair.text.partition("=")
        forced = _forced_push(key, value)
        if eq and forced is not None and "push" in [w.text for w in words[i + 2 :]]:
            found.append((f"git -c {key}", Word(text=forced, source=pair.source)))
        if eq and key.lower().startswith("alias.") and not value.lstrip().startswith("!"):
            found.append((f"git -c {key}", _git_alias(key[6:], value, words, pair.source)))
        elif eq and key.lower() == "core.hookspath":
            # a folder of hook scripts git runs: their content cannot be seen
            found.append((f"git -c {key}", Word(text=None, source=pair.source)))
        elif eq and _GIT_KEYS.match(key.lower()):
            found.append((f"git -c {key}", _script_value(_literal(value, pair.source))))
    found.extend(git_subcommand_scripts(words))
    # git config KEY VALUE: the command runs on a later git call.
    texts = [w.text for w in words]
    if "config" in texts:
        at = texts.index("config")
        operands = [w for w in words[at + 1 :] if not (w.text or "").startswith("-")]
        if operands and operands[0].text in ("set", "add"):
            operands = operands[1:]  # git 2.46's `git config set KEY VALUE`
        if len(operands) >= 2 and operands[0].text and operands[1].text is not None:
            forced = _forced_push(operands[0].text, operands[1].text)
            if forced is not None:
                source = operands[1].source
                found.append((f"git config {operands[0].text}", Word(text=forced, source=source)))
        if len(operands) >= 2 and operands[0].text and _GIT_KEYS.match(operands[0].text.lower()):
            name = operands[0].text
            setting = operands[1]
            if name.lower() == "core.hookspath":
                found.append((f"git config {name}", Word(text=None, source=setting.source)))
            elif name.lower().startswith("alias.") and not (
                setting.text or "!"
            ).lstrip().startswith("!"):
                found.append((f"git config {name}", _git_alias("", setting.text or "", (), name)))
            else:
                found.append((f"git config {name}", _script_value(setting)))
    return found


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
