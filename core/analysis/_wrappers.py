"""Programs that run another command: what they run, with their own options skipped.

Over 300 lines on purpose: one table of every wrapper DESIGN.md lists, each beside its reader, so
that a wrapper's options and its way of running the command read together.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..records._plain import Record
from ._options import Options, Read, read_options
from ._records import Word

SHELLS = frozenset(
    {
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "ash",
        "fish",
        "csh",
        "tcsh",
        "yash",
        "rbash",
        "posh",
        "oksh",
        "pdksh",
        "lksh",
    }
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Seen(Record):
    """One thing a wrapper runs: a command (``argv``), a script for a shell, or neither."""

    __slots__ = ("argv", "assignments", "chdir", "opaque", "option_values", "script", "via")

    via: str
    argv: tuple[Word, ...]
    option_values: tuple[int, ...]
    script: Word | None
    chdir: Word | None
    assignments: tuple[Word, ...]
    opaque: str | None

    def __init__(
        self,
        *,
        via: str,
        argv: tuple[Word, ...] = (),
        option_values: tuple[int, ...] = (),
        script: Word | None = None,
        chdir: Word | None = None,
        assignments: tuple[Word, ...] = (),
        opaque: str | None = None,
    ) -> None:
        object.__setattr__(self, "via", via)
        object.__setattr__(self, "argv", argv)
        object.__setattr__(self, "option_values", option_values)
        object.__setattr__(self, "script", script)
        object.__setattr__(self, "chdir", chdir)
        object.__setattr__(self, "assignments", assignments)
        object.__setattr__(self, "opaque", opaque)


def _shell_on_stdin(via: str, source: str) -> Seen:
    """An interactive shell the wrapper starts (``sudo -s``, ``su``): it reads its stdin."""
    return Seen(via=via, argv=(Word(text="sh", source=source),))


def _inner(via: str, argv: tuple[Word, ...], read: Read, start: int, **extra: object) -> Seen:
    values = tuple(i - start for i in read.value_indexes if i >= start)
    return Seen(via=via, argv=argv[start:], option_values=values, **extra)  # type: ignore[arg-type]


def _simple(spec: Options, operands: int = 0) -> Callable[[str, tuple[Word, ...]], list[Seen]]:
    def see(name: str, argv: tuple[Word, ...]) -> list[Seen]:
        read = read_options(argv, 1, spec)
        if read.problem:
            return [Seen(via=name, opaque=f"{name}: {read.problem}")]
        start = read.index + operands
        if start >= len(argv):
            return []
        return [Seen(via=name, argv=argv[start:])]

    return see


def _value(read: Read, *names: str) -> Word | None:
    for option, value in read.seen:
        if option in names:
            return value or Word(text=None, source=option)
    return None


def _has(read: Read, *names: str) -> bool:
    return any(option in names for option, _ in read.seen)


_SUDO = Options(
    short_values="ugpCDrtUTRac",
    long_values=frozenset(
        {
            "user",
            "group",
            "host",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "other-user",
            "command-timeout",
            "auth-type",
            "login-class",
        }
    ),
    long_flags=frozenset(
        {
            "askpass",
            "background",
            "bell",
            "edit",
            "help",
            "login",
            "list",
            "non-interactive",
            "preserve-env",
            "preserve-groups",
            "remove-timestamp",
            "reset-timestamp",
            "set-home",
            "shell",
            "stdin",
            "version",
            "validate",
        }
    ),
)


def _sudo(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _SUDO)
    if read.problem:
        return [Seen(via=name, opaque=f"{name}: {read.problem}")]
    if _has(
        read,
        "-e",
        "--edit",
        "-l",
        "--list",
        "-v",
        "--validate",
        "-K",
        "-V",
        "-h",
        "--help",
        "--version",
        "--remove-timestamp",
    ):
        return []
    chdir = _value(read, "-D", "--chdir")
    start = read.index
    # sudo [VAR=value]... COMMAND: the variables are set for the command, not its name
    while (
        start < len(argv)
        and _NAME.match((argv[start].text or "").partition("=")[0])
        and ("=" in (argv[start].text or ""))
    ):
        start += 1
    assignments = argv[read.index : start]
    if start >= len(argv):
        if _has(read, "-s", "--shell", "-i", "--login"):
            return [_shell_on_stdin(name, f"{name} -s")]
        return [Seen(via=name, assignments=assignments)] if assignments else []
    inner = _inner(name, argv, read, start, chdir=chdir, assignments=assignments)
    if _has(read, "-s", "--shell", "-i", "--login"):
        # sudo -s CMD...: the shell runs the words as its -c script ('rm -rf x' as one word too)
        return [inner, Seen(via=f"{name} -s", script=_joined(argv[start:]), chdir=chdir)]
    return [inner]


_DOAS = Options(short_values="uC")


def _doas(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _DOAS)
    if _has(read, "-C"):
        return []
    if read.index >= len(argv):
        return [_shell_on_stdin(name, f"{name} -s")] if _has(read, "-s") else []
    return [_inner(name, argv, read, read.index)]


_ENV = Options(
    short_values="uCSP",
    long_values=frozenset({"unset", "chdir", "split-string"}),
    long_flags=frozenset(
        {
            "ignore-environment",
            "null",
            "debug",
            "help",
            "version",
            "list-signal-handling",
            "default-signal",
            "ignore-signal",
            "block-signal",
        }
    ),
)


def _env(name: str, argv: tuple[Word, ...], depth: int = 0) -> list[Seen]:
    import shlex  # when used, not at every start (shlex compiles a pattern)

    read = read_options(argv, 1, _ENV)
    if read.problem:
        return [Seen(via=name, opaque=f"env: {read.problem}")]
    split = _value(read, "-S", "--split-string")
    if split is not None:
        if split.text is None or "$" in split.text or depth > 4:
            return [
                Seen(
                    via="env -S", opaque=f"env -S with a string that is not literal: {split.source}"
                )
            ]
        try:
            words = shlex.split(split.text.replace("\\_", " "))
        except ValueError:
            return [
                Seen(via="env -S", opaque=f"env -S with a string it cannot split: {split.source}")
            ]
        rest = argv[read.index :]
        again = (argv[0], *(Word(text=w, source=split.source) for w in words), *rest)
        return [
            Seen(
                via="env -S", opaque=s.opaque, argv=s.argv, chdir=s.chdir, assignments=s.assignments
            )
            for s in _env(name, again, depth + 1)
        ]
    chdir = _value(read, "-C", "--chdir")
    i = read.index
    assignments: list[Word] = []
    while i < len(argv):
        text = argv[i].text
        if text is None:
            if "=" in argv[i].source and not argv[i].source.startswith(("$", "`", '"$')):
                assignments.append(argv[i])
                i += 1
                continue
            return [
                Seen(via=name, opaque=f"env: an unknown word before the command: {argv[i].source}")
            ]
        key, eq, _ = text.partition("=")
        if not eq or not _NAME.match(key):
            break
        assignments.append(argv[i])
        i += 1
    if i >= len(argv):
        return [Seen(via=name, assignments=tuple(assignments))] if assignments else []
    return [_inner(name, argv, read, i, chdir=chdir, assignments=tuple(assignments))]


def _command(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, Options())
    if _has(read, "-v", "-V"):
        return []  # command -v only looks the name up
    if read.index >= len(argv):
        return []
    return [Seen(via=name, argv=argv[read.index :])]


def _builtin(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    return [Seen(via=name, argv=argv[1:])] if len(argv) > 1 else []


_XARGS = Options(
    short_values="adEILnPs",
    long_values=frozenset(
        {
            "arg-file",
            "delimiter",
            "max-args",
            "max-procs",
            "max-chars",
            "max-lines",
            "replace",
            "eof",
            "process-slot-var",
        }
    ),
    long_flags=frozenset(
        {
            "null",
            "no-run-if-empty",
            "open-tty",
            "exit",
            "interactive",
            "verbose",
            "show-limits",
            "help",
            "version",
        }
    ),
)


def _xargs(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _XARGS)
    if read.problem:
        return [Seen(via=name, opaque=f"xargs: {read.problem}")]
    if _has(read, "--help", "--version", "--show-limits"):
        return []
    inner = argv[read.index :] or (Word(text="echo", source="xargs"),)
    # The words xargs reads from its input could be anything, options included.
    return [Seen(via=name, argv=(*inner, Word(text=None, source="(xargs input)")))]


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    seen: list[Seen] = []
    i = 1
    while i < len(argv):
        action = argv[i].text
        if action not in _FIND_EXEC:
            i += 1
            continue
        j = i + 1
        while j < len(argv) and argv[j].text not in (";", "+"):
            j += 1
        inner = tuple(
            Word(text=None, source=w.source) if w.text is not None and "{}" in w.text else w
            for w in argv[i + 1 : j]
        )
        if inner and argv[i + 1].text is not None and "{}" in (argv[i + 1].text or ""):
            seen.append(
                Seen(via=f"find {action}", opaque="find runs each file it finds as a program ({})")
            )
        elif inner:
            seen.append(Seen(via=f"find {action}", argv=inner))
        i = j + 1
    return seen


_SU = Options(
    short_values="cgGsw",
    long_values=frozenset(
        {"command", "session-command", "group", "supp-group", "shell", "whitelist-environment"}
    ),
    long_flags=frozenset({"login", "preserve-environment", "fast", "pty", "help", "version"}),
)
_RUNUSER = Options(
    short_values="cgGswu",
    long_values=_SU.long_values | {"user"},
    long_flags=_SU.long_flags,
)


def _su(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    spec = _RUNUSER if name == "runuser" else _SU
    words = tuple(Word(text="-l", source=w.source) if w.text == "-" else w for w in argv)
    read = read_options(words, 1, spec)
    if read.problem:
        return [Seen(via=name, opaque=f"{name}: {read.problem}")]
    if _has(read, "--help", "--version"):
        return []
    script = _value(read, "-c", "--command", "--session-command")
    if script is not None:
        return [Seen(via=f"{name} -c", script=script)]
    if name == "runuser" and _has(read, "-u", "--user"):
        return [_inner(name, words, read, read.index)] if read.index < len(words) else []
    rest = words[read.index + 1 :]  # after the user name: the shell's own arguments
    shell = Word(text="sh", source=name)
    return [Seen(via=name, argv=(shell, *rest))]


_PKEXEC = Options(
    long_values=frozenset({"user"}),
    long_flags=frozenset({"disable-internal-agent", "help", "version", "keep-cwd"}),
)


def _pkexec(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _PKEXEC)
    if read.problem:
        return [Seen(via=name, opaque=f"pkexec: {read.problem}")]
    if read.index >= len(argv):
        return [_shell_on_stdin(name, name)]
    return [_inner(name, argv, read, read.index)]


_WATCH = Options(
    short_values="nq",
    long_values=frozenset({"interval", "equexit"}),
    long_flags=frozenset(
        {
            "differences",
            "beep",
            "errexit",
            "chgexit",
            "exec",
            "color",
            "no-color",
            "no-title",
            "precise",
            "no-linewrap",
            "no-wrap",
            "help",
            "version",
        }
    ),
)


def _watch(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _WATCH)
    if read.problem:
        return [Seen(via=name, opaque=f"watch: {read.problem}")]
    rest = argv[read.index :]
    if not rest:
        return []
    if _has(read, "-x", "--exec"):
        return [Seen(via=name, argv=rest)]
    return [Seen(via=name, script=_joined(rest))]


def _joined(words: tuple[Word, ...]) -> Word:
    """Words a program joins with spaces and hands to ``sh -c`` (watch, ssh)."""
    source = " ".join(w.source for w in words)
    if any(w.text is None for w in words):
        return Word(text=None, source=source)
    return Word(text=" ".join(w.text or "" for w in words), source=source)


_FLOCK = Options(
    short_values="wEc",
    long_values=frozenset({"wait", "timeout", "conflict-exit-code", "command"}),
    long_flags=frozenset(
        {
            "shared",
            "exclusive",
            "unlock",
            "nonblock",
            "nb",
            "close",
            "no-fork",
            "verbose",
            "help",
            "version",
        }
    ),
)


def _flock(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _FLOCK)
    if read.problem:
        return [Seen(via=name, opaque=f"flock: {read.problem}")]
    script = _value(read, "-c", "--command")
    if script is not None:
        return [Seen(via=f"{name} -c", script=script)]
    i = read.index + 1  # the lock file or descriptor
    if i < len(argv) and argv[i].text in ("-c", "--command"):
        return [
            Seen(
                via=f"{name} -c",
                script=argv[i + 1] if i + 1 < len(argv) else Word(text=None, source="-c"),
            )
        ]
    return [Seen(via=name, argv=argv[i:])] if i < len(argv) else []


_CHROOT = Options(
    long_values=frozenset({"userspec", "groups"}),
    long_flags=frozenset({"skip-chdir", "help", "version"}),
)


def _chroot(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _CHROOT)
    if read.problem:
        return [Seen(via=name, opaque=f"chroot: {read.problem}")]
    if read.index >= len(argv):
        return []
    start = read.index + 1
    if start >= len(argv):
        return [_shell_on_stdin(name, name)]
    return [Seen(via=name, argv=argv[start:])]


def _coproc(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``coproc CMD``, and ``coproc NAME { CMD; }`` which tree-sitter-bash reads as one simple
    command ``coproc NAME { CMD`` (the name and the brace are not the program)."""
    rest = argv[1:]
    if len(rest) >= 2 and _NAME.match(rest[0].text or "") and rest[1].text in ("{", "("):
        rest = rest[2:]
    elif rest and rest[0].text in ("{", "("):
        rest = rest[1:]
    return [Seen(via=name, argv=rest)] if rest else []


def _parallel(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """GNU parallel: the words before ``:::`` are a command line its shell runs with each input
    (``{}`` and the input are any words); with no command it runs each input line itself."""
    cut = len(argv)
    for i, word in enumerate(argv):
        if word.text in (":::", "::::", ":::+", "::::+"):
            cut = i
            break
    if any(w.text in ("--version", "--help", "--citation", "--number-of-cpus") for w in argv):
        return []
    seen = _loose()(name, argv[:cut])
    if not seen:
        return [_shell_on_stdin(name, name)]
    out: list[Seen] = []
    for one in seen:
        if one.opaque or any(w.text is None for w in one.argv):
            out.append(Seen(via=name, opaque=f"{name}: a command that is not literal"))
            continue
        text = " ".join(w.text or "" for w in one.argv) + ' "$PARALLEL_INPUT"'
        out.append(Seen(via=name, script=Word(text=text, source=_joined(one.argv).source)))
    return out


def _queued(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``at`` / ``batch``: the job is a script read from stdin (or from ``-f FILE``)."""
    texts = [w.text for w in argv]
    if "-f" in texts[:-1]:
        return [Seen(via=name, argv=(Word(text="sh", source=name), argv[texts.index("-f") + 1]))]
    if any(t in ("-l", "-r", "-d", "-c", "-V") for t in texts[1:]):
        return []  # lists, removes or prints jobs
    return [_shell_on_stdin(name, name)]


def _crontab(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``crontab [-u USER] [FILE|-]``: without a file the table (commands run later) is read
    from stdin, like a shell reading its program."""
    read = read_options(argv, 1, Options(short_values="u"))
    if _has(read, "-l", "-r", "-e", "-V", "-T"):
        return []
    operand = argv[read.index] if read.index < len(argv) else None
    if operand is None or operand.text == "-":
        return [_shell_on_stdin(name, name)]
    return []


def _nix_shell(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``nix-shell --run|--command SCRIPT``."""
    for i, word in enumerate(argv[:-1]):
        if word.text in ("--run", "--command"):
            return [Seen(via=f"{name} {word.text}", script=argv[i + 1])]
    return []


def _session(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``tmux new-session|new-window|split-window|respawn-pane|run-shell CMD`` and
    ``screen [-dmS NAME] CMD``: the command (a shell command line for tmux) runs detached."""
    if name == "screen":
        return _loose()(name, argv)
    texts = [w.text for w in argv]
    verbs = (
        "new-session",
        "new",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
        "run-shell",
        "run",
        "send-keys",
        "send",
        "display-popup",
        "popup",
        "pipe-pane",
        "pipep",
        "if-shell",
        "if",
    )
    for at, text in enumerate(texts):
        if text in verbs:
            rest = argv[at + 1 :]
            operands = [w for w in rest if not (w.text or "-").startswith("-")]
            if any(w.text is None for w in rest):
                return [Seen(via=f"{name} {text}", opaque=f"{name} {text}: an unknown word")]
            if operands:
                return [Seen(via=f"{name} {text}", script=w) for w in operands]
            return []
    return []


def _sg(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``sg GROUP [-c] COMMAND``: the command is a string sg's shell runs."""
    rest = [w for w in argv[2:] if w.text != "-c"]
    return [Seen(via=name, script=_joined(tuple(rest)))] if rest else [_shell_on_stdin(name, name)]


def _dashed(
    name: str, argv: tuple[Word, ...], otherwise: Callable[[str, tuple[Word, ...]], list[Seen]]
) -> list[Seen]:
    """The command after ``--`` when there is one (``aws-vault exec PROFILE -- CMD``, dotenv-cli's
    ``dotenv -e FILE -- CMD``), else what ``otherwise`` reads."""
    texts = [w.text for w in argv]
    if "--" in texts:
        rest = argv[texts.index("--") + 1 :]
        return [Seen(via=name, argv=rest)] if rest else []
    return otherwise(name, argv)


def _dotenv(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``dotenv run CMD`` (python-dotenv) and ``dotenv [-e FILE] -- CMD`` (dotenv-cli)."""
    return _dashed(name, argv, _loose(subcommand="run"))


_NSENTER = Options(
    short_values="tSGw",
    long_values=frozenset({"target", "setuid", "setgid", "wd", "wdns", "env"}),
    long_flags=frozenset(
        {
            "all",
            "mount",
            "uts",
            "ipc",
            "net",
            "pid",
            "cgroup",
            "user",
            "time",
            "user-parent",
            "root",
            "preserve-credentials",
            "no-fork",
            "follow-context",
            "keep-caps",
            "join-cgroup",
            "help",
            "version",
        }
    ),
)


def _busybox(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    if len(argv) < 2 or (argv[1].text or "").startswith("-"):
        return []
    return [Seen(via=name, argv=argv[1:])]


_SCRIPT = Options(
    short_values="cEIOBTm",
    long_values=frozenset(
        {
            "command",
            "log-in",
            "log-out",
            "log-io",
            "log-timing",
            "logging-format",
            "echo",
            "output-limit",
        }
    ),
    long_flags=frozenset(
        {"append", "flush", "force", "quiet", "return", "timing", "help", "version"}
    ),
)


def _script(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    read = read_options(argv, 1, _SCRIPT)
    if read.problem:
        return [Seen(via=name, opaque=f"script: {read.problem}")]
    command = _value(read, "-c", "--command")
    if command is not None:
        return [Seen(via=f"{name} -c", script=command)]
    if _has(read, "--help", "--version"):
        return []
    return [_shell_on_stdin(name, name)]


_SHELL = Options(
    short_values="oO",
    long_values=frozenset({"rcfile", "init-file", "command", "init-command"}),
    long_flags=frozenset(
        {
            "login",
            "norc",
            "noprofile",
            "posix",
            "restricted",
            "verbose",
            "version",
            "help",
            "debugger",
            "dump-strings",
            "dump-po-strings",
            "pretty-print",
            "noediting",
            "interactive",
            "no-execute",
            "private",
            "no-config",
            "print-rusage-self",
            "profile",
            "features",
        }
    ),
    plus=True,
)


def _shell(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``sh -c SCRIPT``: the script is parsed again. Without -c a shell runs a file, or reads
    its stdin (the caller decides whether that stdin can be seen)."""
    read = read_options(argv, 1, _SHELL)
    if read.problem:
        return [Seen(via=name, opaque=f"{name}: {read.problem}")]
    long_command = _value(read, "--command")
    if long_command is not None:
        return [Seen(via=f"{name} -c", script=long_command)]
    if any(o.startswith("-") and o[1:] == "c" for o, _ in read.seen):
        if read.index >= len(argv):
            return [Seen(via=f"{name} -c", opaque=f"{name} -c without a script")]
        return [Seen(via=f"{name} -c", script=argv[read.index])]
    return []


def _loose(
    operands: int = 0, subcommand: str = ""
) -> Callable[[str, tuple[Word, ...]], list[Seen]]:
    """A wrapper whose options we do not list (strace, firejail, uv run, ...).

    The command starts at the first word that is no option (after ``operands`` fixed ones, and
    after ``subcommand``); when an option just before it might have taken it as its value, the
    next word is a candidate too, so both are seen (a rule matches either)."""

    def see(name: str, argv: tuple[Word, ...]) -> list[Seen]:
        start = 1
        if subcommand:
            texts = [w.text for w in argv]
            if subcommand not in texts:
                return []
            start = texts.index(subcommand) + 1
        candidates: list[int] = []
        i = start
        while i < len(argv):
            text = argv[i].text
            if text is None:
                return [Seen(via=name, opaque=f"{name}: an unknown word among its options")]
            if text == "--":
                candidates = [i + 1 + operands]
                break
            if text.startswith("-") and len(text) > 1:
                i += 1
                continue
            first = i + operands
            candidates = [first]
            before = argv[i - 1].text or "" if i > start else ""
            if before.startswith("-") and "=" not in before and operands == 0:
                candidates.append(_after_options(argv, first + 1))
            break
        return [
            Seen(via=f"{name} {subcommand}".strip(), argv=argv[c:])
            for c in candidates
            if c < len(argv) and not (c > candidates[0] and (argv[c].text or "-").startswith("-"))
        ]

    return see


def _setarch(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``setarch ARCH [options] [PROGRAM ...]`` (``linux64 [options] PROGRAM``): the architecture
    first, then options; with no program it starts a shell reading stdin."""
    rest = argv[2:] if name == "setarch" else argv[1:]
    seen = _loose()(name, (argv[0], *rest))
    return seen or [_shell_on_stdin(name, name)]


def _capsh(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``capsh [options] -- ARGS``: ARGS go to a shell (``--shell=PATH``, else bash), so
    ``capsh -- -c CMD`` runs CMD; ``==`` runs capsh itself again."""
    texts = [w.text for w in argv]
    shell = Word(text="bash", source=name)
    for word in argv[1:]:
        if word.text is None:
            return [Seen(via=name, opaque=f"{name}: an unknown word among its options")]
        if word.text.startswith("--shell="):
            shell = Word(text=word.text.split("=", 1)[1], source=word.source)
    for mark in ("--", "=="):
        if mark in texts:
            rest = argv[texts.index(mark) + 1 :]
            program = shell if mark == "--" else Word(text="capsh", source=name)
            return [Seen(via=f"{name} {mark}", argv=(program, *rest))]
    return []


def _ip(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``ip [options] netns exec NAME CMD`` and ``ip vrf exec NAME CMD``; with ``-all`` netns
    exec takes no NAME, so both readings are kept."""
    texts = [w.text for w in argv]
    for at in range(1, len(texts) - 1):
        if texts[at] not in ("netns", "vrf") or texts[at + 1] != "exec":
            continue
        rest = argv[at + 2 :]
        every = any(t in ("-a", "-all", "--all") for t in texts[1:at])
        candidates = [rest[1:], rest] if every else [rest[1:]]
        return [
            Seen(via=f"{name} {texts[at]} exec", argv=one)
            for one in candidates
            if one and not (one[0].text or "").startswith("-")
        ]
    return []


def _perf(name: str, argv: tuple[Word, ...]) -> list[Seen]:
    """``perf stat|record|trace|... [options] CMD``: the verbs that run a command."""
    texts = [w.text for w in argv]
    for verb in ("stat", "record", "trace", "ftrace", "mem", "c2c", "kmem", "lock", "sched"):
        if verb in texts[1:3]:
            return _loose(subcommand=verb)(name, argv)
    return []


def _after_options(argv: tuple[Word, ...], i: int) -> int:
    """The first word from ``argv[i]`` on that is no option (past a ``--``)."""
    while i < len(argv):
        text = argv[i].text or ""
        if text == "--":
            return i + 1
        if not text.startswith("-") or len(text) < 2:
            return i
        i += 1
    return i


_LOOSE = {
    **dict.fromkeys(
        (
            "strace",
            "ltrace",
            "valgrind",
            "fakeroot",
            "torsocks",
            "proxychains",
            "proxychains4",
            "unshare",
            "systemd-run",
            "firejail",
            "cgexec",
            "catchsegv",
            "dbus-run-session",
            "dbus-launch",
            "xvfb-run",
            "ssh-agent",
            "eatmydata",
            "nocache",
            "rlwrap",
            "caffeinate",
            "prlimit",
            "numactl",
            "tsp",
            "ts",
            "unbuffer",
            "sandbox-exec",
            "bwrap",
            "proot",
            "schroot",
            "chpst",
            "setpriv",
            "softlimit",
            "envdir",
            "entr",
            "flatpak-spawn",
            "run0",
            "dumb-init",
            "tini",
            "catatonit",
            "uid_wrapper",
        ),
        _loose(),
    ),
    **dict.fromkeys(
        ("su-exec", "gosu", "s6-setuidgid", "setuidgid", "logsave"), _loose(operands=1)
    ),
    **dict.fromkeys(("setarch", "linux32", "linux64", "i386", "x86_64", "uname26"), _setarch),
    "capsh": _capsh,
    "ip": _ip,
    "perf": _perf,
    "faketime": _loose(operands=1),
    "chrt": _loose(operands=1),
    "sg": lambda name, argv: _sg(name, argv),
    "gdb": _loose(subcommand="--args"),
    "direnv": _loose(operands=1, subcommand="exec"),
    "aws-vault": lambda name, argv: _dashed(name, argv, _loose(operands=1, subcommand="exec")),
    **{
        name: _loose(subcommand=verb)
        for name, verb in (
            ("uv", "run"),
            ("poetry", "run"),
            ("pipenv", "run"),
            ("conda", "run"),
            ("pdm", "run"),
            ("hatch", "run"),
            ("rye", "run"),
            ("bundle", "exec"),
            ("mise", "exec"),
            ("asdf", "exec"),
            ("doppler", "run"),
            ("op", "run"),
            ("dotenv", "run"),
            ("yarn", "exec"),
            ("npm", "exec"),
            ("pnpm", "exec"),
            ("devbox", "run"),
            ("pixi", "run"),
        )
    },
}
"""More wrappers (the DESIGN list is a minimum), read loosely."""


WRAPPERS: dict[str, Callable[[str, tuple[Word, ...]], list[Seen]]] = {
    **_LOOSE,
    "sudo": _sudo,
    "doas": _doas,
    "env": _env,
    "command": _command,
    "builtin": _builtin,
    "exec": _simple(Options(short_values="a")),
    "nice": _simple(
        Options(
            short_values="n",
            long_values=frozenset({"adjustment"}),
            long_flags=frozenset({"help", "version"}),
            numeric=True,
        )
    ),
    "nohup": _simple(Options(long_flags=frozenset({"help", "version"}))),
    "time": _simple(
        Options(
            short_values="fo",
            long_values=frozenset({"format", "output"}),
            long_flags=frozenset({"append", "verbose", "portability", "quiet", "help", "version"}),
        )
    ),
    "timeout": _simple(
        Options(
            short_values="sk",
            long_values=frozenset({"signal", "kill-after"}),
            long_flags=frozenset({"preserve-status", "foreground", "verbose", "help", "version"}),
        ),
        operands=1,
    ),
    "stdbuf": _simple(
        Options(
            short_values="ioe",
            long_values=frozenset({"input", "output", "error"}),
            long_flags=frozenset({"help", "version"}),
        )
    ),
    "ionice": _simple(
        Options(
            short_values="cnpPu",
            long_values=frozenset({"class", "classdata", "pid", "pgid", "uid"}),
            long_flags=frozenset({"ignore", "help", "version"}),
        )
    ),
    "taskset": _simple(
        Options(long_flags=frozenset({"all-tasks", "cpu-list", "help", "version"})), operands=1
    ),
    "xargs": _xargs,
    "find": _find,
    "su": _su,
    "runuser": _su,
    "pkexec": _pkexec,
    "setsid": _simple(Options(long_flags=frozenset({"ctty", "fork", "wait", "help", "version"}))),
    "watch": _watch,
    "flock": _flock,
    "chroot": _chroot,
    "busybox": _busybox,
    "script": _script,
    "coproc": _coproc,
    "toybox": _busybox,
    "parallel": _parallel,
    "nix-shell": _nix_shell,
    "newgrp": lambda name, argv: [_shell_on_stdin(name, name)],
    "dotenv": _dotenv,
    "nsenter": _simple(_NSENTER),
    "at": _queued,
    "crontab": _crontab,
    "batch": _queued,
    "tmux": _session,
    "screen": _session,
    **dict.fromkeys(SHELLS, _shell),
}
"""Each wrapper's reader: given its name and argv, what it runs."""


def see_through(name: str, argv: tuple[Word, ...]) -> list[Seen] | None:
    """What ``argv`` (a command whose program is ``name``) runs; None when it is no wrapper."""
    reader = WRAPPERS.get(name)
    if reader is None and name.rstrip("0123456789.-") in SHELLS:
        reader = _shell  # ksh93, bash5.2
    return None if reader is None else reader(name, argv)
