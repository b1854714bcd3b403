"""toolhooks guards itself (``[plugins.rules] protect_own_state``, on while any rule exists).

An agent that can delete ``.toolhooks/labels.db`` forgets the labels that stop a payment to an
address an untrusted page gave; one that can edit ``toolhooks.toml`` or the hook settings that
``toolhooks hook install`` wrote switches toolhooks off. So a call that writes, moves or deletes
toolhooks' own state is denied, through any tool, and one that reads its keys too:

- its config (the file it loaded, ``toolhooks.toml`` in the project even when the config is
  elsewhere: a daemon adopts one that appears, ``$TOOLHOOKS_CONFIG``'s file), ``toolhooks.lock``;
- ``.toolhooks/`` (the daemon's socket, token and pid, the approvals, labels and hand-over
  databases, desk tokens) and the approvals database with its neighbours wherever
  ``[approvals] db`` puts it, the event log ``[plugins.event_log] path``;
- each agent's hook settings, project and user (``AgentProtocol.settings_path``, the file install
  writes and its undo record, and the settings files beside it that can switch hooks off:
  ``settings*.json``, Codex's ``config.toml``; Cline's hook folder whole);
- keys, for reading too: the daemon's token, the desk's token file, the event log's key.

A ``pyproject.toml`` that holds the config asks instead: it is the project's file too.

How a call is read: a file tool's paths (``PATH_PARAMS``, patches) and, for a command, each
simple command of the kit's analysis with the paths it names (``command_paths``). The analysis
says which paths a command names, not which of them it writes; until it does, a command that
names toolhooks' state is denied unless its program only reads (``READERS``) and every
redirection it has only reads (``< file``, ``Command.read_redirects``); one that may write makes
the command a writer. Deleting or moving a folder that holds the state (``rm -rf .``) counts for
the programs that remove whole trees (``REMOVERS``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

from toolhooks import ApprovalRequest, BeforeToolCallResult, emit
from toolhooks.analysis import (
    EXTRACTING_PROGRAMS,
    LANDING_PROGRAMS,
    LISTING_PROGRAMS,
    command_landing,
    list_sources,
    real_path,
)
from toolhooks.kit import Record

from ._calls import (
    CallMemo,
    call_cwd,
    call_subject,
    canonical_tool,
    command_of,
    names_no_path,
)

if TYPE_CHECKING:
    from toolhooks.analysis import Command

Decision = Literal["deny", "ask"]
RULE_ID: Final = "protect_own_state"
"""The name a decision of the guard is logged under (``rules.matched``)."""

READERS: Final = frozenset(
    {
        "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "wc",
        "diff", "cmp", "stat", "ls", "file", "jq", "yq", "bat", "nl", "od", "xxd", "hexdump",
        "strings", "md5sum", "sha1sum", "sha256sum", "cksum", "du", "realpath", "readlink",
        "test", "[", "cd", "pushd", "echo", "printf", "true", "tree",
    }
)  # fmt: skip
"""Programs that only read the paths they name (``echo``/``printf`` name words, not files)."""
GIT_READERS: Final = frozenset({"diff", "log", "show", "status", "blame", "ls-files", "grep"})
REMOVERS: Final = frozenset({"rm", "rmdir", "mv", "shred", "unlink", "trash", "gio"})
"""Programs that take a whole folder away: naming a folder that holds the state counts."""
FIND_ACTIONS: Final = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir"})
FIND_NAME_TESTS: Final = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename"})
READ_TOOLS: Final = ("read", "grep", "glob", "ls", "list", "search", "view", "find", "get", "stat")
"""Tools (by their name's last part) that only read the paths they are given."""
_SEPARATORS: Final = re.compile(r"[;|&\n()]")
UNDO_SUFFIX: Final = ".toolhooks-undo"
"""What ``toolhooks hook install`` keeps next to a settings file it changed."""
DB_NEIGHBOURS: Final = ("labels.db", "agent-calls.db")
"""Next to the approvals database (``toolhooks.agents``): the labels and the hand-over."""
KEY_FILES: Final = ("agentd.token", "desk-tokens.json")
"""Keys in ``.toolhooks/``: the HTTP hook's bearer token, the desk's token digests."""


class Guarded(Record):
    """One call that touches toolhooks' own state: what to do and why."""

    __slots__ = ("decision", "reason", "title")

    decision: Decision
    reason: str
    title: str
    """The approval's question, for an ask."""

    def __init__(
        self,
        *,
        decision: Decision,
        reason: str,
        title: str = "Change the file that holds toolhooks' config?",
    ) -> None:
        object.__setattr__(self, "decision", decision)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "title", title)

    def result(self) -> BeforeToolCallResult:
        """The plugin's answer, after the ``rules.matched`` event a rule's match emits."""
        emit(
            "rules.matched",
            rule=RULE_ID,
            decision=self.decision,
            kind="own_state",
            matched=self.reason,
            labels_used=[],
        )
        if self.decision == "deny":
            return BeforeToolCallResult(block=True, block_reason=self.reason)
        request = ApprovalRequest(
            title=self.title,
            description=self.reason[:512],
            allowed_decisions=("allow-once", "deny"),
        )
        return BeforeToolCallResult(require_approval=request)


class OwnState(Record):
    """The paths toolhooks keeps, absolute, and how each is guarded."""

    __slots__ = (
        "asks",
        "files",
        "folded",
        "folded_prefixes",
        "folders",
        "guarded",
        "home",
        "key_names",
        "keys",
        "markers",
        "may_name_key",
        "may_name_state",
        "names",
        "project",
        "state_prefixes",
    )

    project: str
    home: str
    files: frozenset[str]
    """Written, moved or deleted: denied (with any suffix for a database's journal)."""
    folders: tuple[str, ...]
    """Everything under these is state."""
    keys: frozenset[str]
    """Read too: denied."""
    asks: frozenset[str]
    """Written: asked (a pyproject.toml holding the config)."""
    names: tuple[str, ...]
    """Text that names the state, for a script the analysis cannot see through."""
    markers: frozenset[str]
    """The last two parts of every guarded path: a word that holds none of them (and no glob)
    names no state, whatever folder or symlink it is read from."""
    key_names: frozenset[str]
    """The last part of every key."""
    state_prefixes: tuple[str, ...]
    """What a path under a guarded folder or a database's journal starts with."""
    guarded: tuple[str, ...]
    """Every guarded path (files, folders, keys, asks): what a glob is matched against."""
    may_name_state: Names
    """A glob character or one of ``markers``, searched over a command's words as one text
    (the guard runs on every exec call)."""
    may_name_key: Names
    """The same for ``key_names``."""
    folded: Mapping[str, str]
    """Every guarded file and key, case-folded, with its kind ("key", "state", "ask"): a
    case-insensitive file system (macOS, Windows) opens ``TOOLHOOKS.TOML`` for
    ``toolhooks.toml``, so a path the exact lookups miss is looked up in either case."""
    folded_prefixes: tuple[str, ...]
    """``state_prefixes``, case-folded."""

    def __init__(
        self,
        *,
        project: str,
        home: str,
        files: frozenset[str],
        folders: tuple[str, ...],
        keys: frozenset[str],
        asks: frozenset[str],
        names: tuple[str, ...],
        markers: frozenset[str],
        key_names: frozenset[str],
        state_prefixes: tuple[str, ...],
        guarded: tuple[str, ...],
        may_name_state: Names,
        may_name_key: Names,
        folded: Mapping[str, str],
        folded_prefixes: tuple[str, ...],
    ) -> None:
        object.__setattr__(self, "project", project)
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "files", files)
        object.__setattr__(self, "folders", folders)
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "asks", asks)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "markers", markers)
        object.__setattr__(self, "key_names", key_names)
        object.__setattr__(self, "state_prefixes", state_prefixes)
        object.__setattr__(self, "guarded", guarded)
        object.__setattr__(self, "may_name_state", may_name_state)
        object.__setattr__(self, "may_name_key", may_name_key)
        object.__setattr__(self, "folded", folded)
        object.__setattr__(self, "folded_prefixes", folded_prefixes)

    # -- what a path is ---------------------------------------------------------------------

    def kind(self, path: str) -> str | None:
        """ "key", "state", "ask" or None for one absolute path (a glob's text included)."""
        if path in self.keys:
            return "key"
        folded = path.casefold()
        if self.folded.get(folded) == "key":
            return "key"
        # a database's journal (labels.db-wal) or anything under a guarded folder
        if path in self.files or path in self.folders or path.startswith(self.state_prefixes):
            return "state"
        if path in self.asks:
            return "ask"
        if ("*" in path or "?" in path or "[" in path) and self._glob_reaches(path):
            return "state"
        kind = self.folded.get(folded)
        if kind is None and folded.startswith(self.folded_prefixes):
            return "state"
        return kind

    def holds_state(self, path: str) -> bool:
        """Whether ``path`` is a folder that holds some of the state that exists (removing the
        folder removes it; a project without state yet loses none)."""
        prefix = path.rstrip("/") + "/"
        every = (*self.files, *self.folders, *self.keys)
        return any(p.startswith(prefix) and os.path.lexists(p) for p in every)

    @staticmethod
    def _may_name(texts: list[str], names: Names) -> bool:
        """Whether a command's words could name a guarded path (``names``: one of its last
        parts, or a glob, whose matches are found with the paths). The words are searched as
        one text: NUL separates them, and no name holds one."""
        return names.found_in("\x00".join(texts[1:]))

    def basenames(self) -> frozenset[str]:
        """The last part of every guarded path (what a ``find -name`` test would select)."""
        every = (*self.files, *self.folders, *self.keys)
        return frozenset(os.path.basename(p) for p in every)

    def _glob_reaches(self, pattern: str) -> bool:
        match = _glob_matcher(pattern)
        return any(match(p) for p in self.guarded)

    # -- a call --------------------------------------------------------------------------------

    def check(
        self, tool: str, params: Mapping[str, Any], spec: Any, memo: CallMemo | None = None
    ) -> Guarded | None:
        """What ``protect_own_state`` says about one call (None: it touches no state);
        ``memo``: what the call's other readings share with this one (see ``CallMemo``)."""
        tool = canonical_tool(tool)
        if tool == "exec":
            command, _ = command_of(params)
            if command is None:
                return None
            return self._command(command, params, CallMemo() if memo is None else memo)
        if names_no_path(tool, params, spec):
            return None  # a search, a fetch: nothing the guard could read (the usual call)
        subject = call_subject(tool, params, spec, self.project, self.home, True, False)
        reads = tool.rsplit("__", 1)[-1].lower().startswith(READ_TOOLS)
        found = [(p, self.kind(p)) for p in subject.paths]
        return _verdict(tool, found, reads=reads)

    def _plain(self, text: str) -> bool:
        """Whether a command's text, read without the analysis, can touch no state: no
        expansion, glob or brace (``$``, backquote, ``*?[{``), no ``..``, no guarded name once
        quotes and backslashes are dropped, and no remover with a word that could be a folder
        holding the state (``.``, ``/...``, ``~``). Most commands are plain: the analysis (not
        cached for a script that looks at files) is then left to the rules."""
        if any(ch in text for ch in "$`*?[{") or ".." in text:
            return False
        bare = text.replace("'", "").replace('"', "").replace("\\", "").lower()
        if "toolhooks" in bare or any(name in bare for name in self.markers):
            return False
        return not any(_may_reach(part.split()) for part in _SEPARATORS.split(bare))

    def _command(
        self, command: str | list[str], params: Mapping[str, Any], memo: CallMemo
    ) -> Guarded | None:
        text = command if isinstance(command, str) else " ".join(command)
        if self._plain(text):
            return None
        script = memo.script(command, cwd=call_cwd(params, self.project), home=self.home)
        if script.opaque is not None and any(name in text for name in self.names):
            return Guarded(
                decision="deny",
                reason="toolhooks guards its own state: a script it cannot see through "
                "names it (protect_own_state)",
            )
        # toolhooks' CLI, its distributions and its variables all hold "toolhooks" (any case):
        # a script without it anywhere skips those checks for each of its commands
        named = "toolhooks" in "\x00".join(_words_of(script.commands)).lower()
        for one in script.commands:
            guarded = self._simple(one, memo, named)
            if guarded is not None:
                return guarded
        return None

    def _simple(self, one: Command, memo: CallMemo, named: bool) -> Guarded | None:
        """One simple command of a call's script (``named``: the script holds "toolhooks")."""
        texts = [w.text or "" for w in one.argv]
        first = self._before_paths(one, texts, memo, named)
        if first is not None:
            return first
        # `cat < toolhooks.toml` reads; a target it may write (`>`, `<>`, `> /dev/stdin`
        # after `<`, which reopens the file read for writing) makes the whole command a writer
        written = any(i not in one.read_redirects for i in range(len(one.redirects)))
        reads = _reads(one.program, texts) and not written
        # the program word stays first for _may_name: ``> file`` alone has none
        every = (texts or [""]) + [w.text or "" for w in one.redirects]
        if reads and not self._may_name(every, self.may_name_key):
            return None  # a reader of no key: the paths it names need not be found
        removes = _removes(one.program, one.argv, self)
        if not removes and not self._may_name(every, self.may_name_state):
            return None  # names nothing of the state: its paths need not be found
        paths = memo.paths(one, home=self.home)
        found = [(p, self.kind(p)) for p in paths]
        guarded = _verdict(one.text, found, reads=reads)
        if guarded is None and removes and any(self.holds_state(p) for p in paths):
            guarded = Guarded(
                decision="deny",
                reason=f"toolhooks guards its own state: `{_clip(one.text)}` removes a "
                "folder that holds it (protect_own_state)",
            )
        return guarded

    def _before_paths(
        self, one: Command, texts: list[str], memo: CallMemo, named: bool
    ) -> Guarded | None:
        """What decides before the paths a command names: toolhooks' CLI, packages and
        variables (only where the script holds "toolhooks"); where a copy or an extraction
        puts files it does not name."""
        first = _cli_guard(one, texts) if named else None
        if first is None and one.program in LANDING_PROGRAMS:
            first = self._landed(one, memo)
        if (
            first is None
            and one.program in LISTING_PROGRAMS
            and list_sources(one.program or "", one.argv)
        ):
            # the files a list or a patch names (tar -T, git apply): whatever the words say
            paths = memo.paths(one, home=self.home)
            first = _verdict(one.text, [(p, self.kind(p)) for p in paths], reads=False)
        return first

    def _landed(self, one: Command, memo: CallMemo) -> Guarded | None:
        """What a copy, an extraction or ``git clean -x`` puts where the command does not name
        it: a name landing on the state is denied (``cp -a /tmp/.toolhooks .``); a folder that
        holds the state, filled with names not shown (``tar -xf x.tar``, ``cp -r SRC/. .``),
        asks: what the archive or folder holds is not known here."""
        landing = command_landing(one, home=self.home, folders=memo.folders, seen=memo.seen)
        guarded = _verdict(one.text, [(p, self.kind(p)) for p in landing.names], reads=False)
        if guarded is not None:
            return guarded
        for folder in landing.filled:
            if self.holds_state(folder):
                return Guarded(
                    decision="ask",
                    title="Put files where toolhooks keeps its state? (protect_own_state)",
                    reason=f"`{_clip(one.text)}` may put files it does not name into {folder}, "
                    "which holds toolhooks' state: its config, hook settings or .toolhooks/ "
                    "could be replaced (protect_own_state)",
                )
        return None


def _words_of(commands: Iterable[Command]) -> list[str]:
    """Every word of ``commands`` as the guard reads them: argv, redirections, assignments
    (a list made in one comprehension: a generator resumed per word costs twice as much)."""
    return [
        word.text or word.source
        for one in commands
        for words in (one.argv, one.redirects, one.assignments)
        for word in words
    ]


def _may_reach(words: list[str]) -> bool:
    """Whether one command's words (lower case, quotes dropped) may reach the state without
    naming it: a remover or a copy with a word that could be a folder holding it (``.``,
    ``/...``, ``~``, ``DIR/``), an extraction or ``git clean`` (names not shown), a program
    reading its files from a list or a patch (``tar -T``, ``git apply``)."""
    names = {w.rpartition("/")[2] for w in words}  # /bin/rm is rm
    git = "git" in names
    if EXTRACTING_PROGRAMS.intersection(names) or (git and "clean" in names):
        return True
    if (LISTING_PROGRAMS - {"git"}).intersection(names) or (
        git and ("apply" in names or "am" in names)
    ):
        return True
    fills = LANDING_PROGRAMS.intersection(names) - {"git"}
    removes = REMOVERS.intersection(names) or "find" in names
    return bool(removes or fills) and any(
        w in (".", "./", "~", "/") or w[:1] in "/~" or (fills and w[-1:] == "/") for w in words
    )


@functools.lru_cache(maxsize=256)
def _glob_matcher(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """``fnmatchcase``'s test of ``pattern``, translated once (a pure function of the text)."""
    from fnmatch import translate

    return re.compile(translate(pattern), re.IGNORECASE).match  # a case-insensitive disk


def _verdict(
    shown: str,
    found: list[tuple[str, str | None]],
    *,
    reads: bool,
) -> Guarded | None:
    asked: str | None = None
    for path, kind in found:
        if kind is None:
            continue
        if kind == "key":
            return Guarded(
                decision="deny",
                reason=f"toolhooks guards its own state: `{_clip(shown)}` touches its key "
                f"{path} (protect_own_state)",
            )
        if reads:
            continue
        if kind == "state":
            return Guarded(
                decision="deny",
                reason=f"toolhooks guards its own state: `{_clip(shown)}` may write, move or "
                f"delete {path} (protect_own_state)",
            )
        asked = asked or path
    if asked is not None:
        return Guarded(
            decision="ask",
            reason=f"`{_clip(shown)}` may write {asked}, which holds toolhooks' config "
            "(protect_own_state)",
        )
    return None


def _reads(program: str | None, argv: list[str]) -> bool:
    if program in READERS:
        return True
    if program == "git":
        sub = next((w for w in argv[1:] if not w.startswith("-")), "")
        return sub in GIT_READERS and "-C" not in argv and "--output" not in argv
    return False


def _removes(program: str | None, argv: Iterable[Any], state: OwnState) -> bool:
    """Whether the command takes whole folders away: a remover, or a ``find`` with an action
    whose name tests could select the state (none: every file it finds)."""
    if program in REMOVERS:
        return True
    if program != "find":
        return False
    words = [w.text or "" for w in argv]
    if not FIND_ACTIONS.intersection(words):
        return False
    tests = [words[i + 1] for i, w in enumerate(words[:-1]) if w in FIND_NAME_TESTS]
    if not tests:
        return True
    from fnmatch import fnmatchcase

    names = state.basenames()
    return any(fnmatchcase(name, test) or name in test for test in tests for name in names)


CLI_RUNNERS: Final = frozenset({"uvx", "pipx", "uv", "poetry", "hatch", "pdm", "pipenv"})
"""Programs that run another's command line (``uvx toolhooks``, ``pipx run toolhooks``)."""
SELF_WRITES: Final = (("init",), ("approvals", "approve"), ("approvals", "deny"),
                      ("approvals", "vote"), ("approvals", "revoke"))  # fmt: skip
"""toolhooks' own commands that write its config or decide its approvals: an agent that runs
one approves the call toolhooks asked its person about."""


def _own_cli(program: str | None, texts: list[str]) -> list[str] | None:
    """The words after ``toolhooks`` when the command runs toolhooks' CLI (directly, as
    ``python -m toolhooks``, or through a runner), else None."""
    if program == "toolhooks":
        return texts[1:]
    if "toolhooks" not in "\x00".join(texts):
        return None  # the usual command: no word to take apart
    for i, text in enumerate(texts[1:], 1):
        if os.path.basename(text) == "toolhooks" and (
            texts[i - 1] in ("-m", "run", "exec", "--") or program in CLI_RUNNERS
        ):
            return texts[i + 1 :]
    return None


PACKAGE_MANAGERS: Final = frozenset(
    {"pip", "pip3", "pipx", "uv", "poetry", "pdm", "pipenv", "rye", "hatch", "conda", "mamba",
     "micromamba", "easy_install"}
)  # fmt: skip
"""Programs that install, replace or remove Python distributions (run directly, as ``python -m
pip``, or through a wrapper the analysis sees through)."""
PACKAGE_VERBS: Final = frozenset(
    {"install", "uninstall", "remove", "rm", "add", "upgrade", "reinstall", "inject", "uninject"}
)
_OWN_DISTRIBUTION: Final = (
    r"(?:.*[/=])?toolhooks(?:[-_.][\w.-]*)?(?:\[[^\]]*\])?(?:\s*[<>=!~;@].*)?\Z"
)
"""A requirement, path or URL naming one of toolhooks' distributions (``toolhooks==0.0.1``,
``ToolHooks[web]``, ``toolhooks_mcp``, ``./toolhooks-fork``, ``git+https://host/x/toolhooks.git``)."""
OWN_VARIABLE_PREFIX: Final = "TOOLHOOKS_"
"""toolhooks' environment (``TOOLHOOKS_CONFIG``, ``TOOLHOOKS_STATE_URL``, ...): set for a program
the agent starts (a nested agent, a hook), it points toolhooks at another config or state."""
EXPORTERS: Final = frozenset({"export", "declare", "typeset", "local", "readonly", "env"})


def _package_guard(one: Command, texts: list[str]) -> Guarded | None:
    """A package manager installing, replacing or removing toolhooks itself: its hook would run
    another toolhooks, or none."""
    names = [os.path.basename(t) for t in texts]
    at = next((i for i, n in enumerate(names) if n in PACKAGE_MANAGERS), None)
    if at is None:
        return None
    verb = next((i for i in range(at + 1, len(texts)) if texts[i] in PACKAGE_VERBS), None)
    if verb is None or not any(re.match(_OWN_DISTRIBUTION, t, re.I) for t in texts[verb + 1 :]):
        return None
    return Guarded(
        decision="deny",
        reason=f"toolhooks guards its own state: `{_clip(one.text)}` would install, replace or "
        "remove toolhooks itself (protect_own_state)",
    )


def _environment_guard(one: Command, texts: list[str]) -> Guarded | None:
    """A ``TOOLHOOKS_*`` variable set for what the command starts (``K=V cmd``, ``env K=V``,
    ``export K=V``, ``declare -x K``): a nested agent's hook would read another config."""
    named = [(w.text or w.source) for w in one.assignments]
    if one.program in EXPORTERS:
        named.extend(t for t in texts[1:] if not t.startswith("-"))
    found = next((n for n in named if n.upper().startswith(OWN_VARIABLE_PREFIX)), None)
    if found is None:
        return None
    return Guarded(
        decision="deny",
        reason=f"toolhooks guards its own state: `{_clip(one.text)}` runs with "
        f"{found.split('=', 1)[0]} set, which points toolhooks at another config or state "
        "(protect_own_state)",
    )


def _cli_guard(one: Command, texts: list[str]) -> Guarded | None:
    """toolhooks' own CLI, run by the agent, rewriting its hook settings or config or deciding
    its approvals; toolhooks itself installed or removed; its environment set."""
    # Both toolhooks' CLI and its distributions are named "toolhooks" (any case): a command
    # without it is left to the environment check alone, word by word checks skipped.
    named = "toolhooks" in "\x00".join(texts).lower()
    guarded = (_package_guard(one, texts) if named else None) or _environment_guard(one, texts)
    if guarded is not None or not named:
        return guarded
    own = _own_cli(one.program, texts)
    if own is not None and _installs(one.argv):
        return Guarded(
            decision="deny",
            reason="toolhooks guards its own state: `toolhooks hook install` rewrites "
            "the agent's hook settings (protect_own_state)",
        )
    if own is not None and _self_writes(own):
        return Guarded(
            decision="deny",
            reason=f"toolhooks guards its own state: `{_clip(one.text)}` would decide its "
            "approvals or rewrite its config (protect_own_state)",
        )
    return None


def _self_writes(words: list[str]) -> bool:
    return any(all(w in words for w in form) for form in SELF_WRITES)


def _installs(argv: Iterable[Any]) -> bool:
    words = [w.text or "" for w in argv]
    return "hook" in words and "install" in words


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def guard_for(
    enabled: bool, raw: Any, source: Any, data: Mapping[str, Any], project: str, home: str
) -> OwnState | None:
    """The guard of a rules plugin whose ``[[rules]]`` are ``raw`` (None when switched off or
    there is no rule: ``protect_own_state`` holds while any rule exists)."""
    if not enabled or not raw:
        return None
    from pathlib import Path

    from toolhooks.agents import hook_settings_places

    places = hook_settings_places(Path(project), Path(home))
    settings = [(str(path), folder) for path, folder in places]
    return own_state(
        project=project,
        home=home,
        source=None if source is None else str(source),
        data=data,
        environ=os.environ,
        settings_paths=settings,
    )


MAX_LINKS = 40
"""Links followed when looking for those a guarded path passes through (Linux gives up at 40)."""


def links_on_the_way(
    path: str, walked: dict[str, frozenset[str]], resolved: dict[str, str]
) -> frozenset[str]:
    """Every symbolic link that resolving ``path`` passes through, in a folder or as the path
    itself, each named by its folder's real path and its own name: moving, deleting or
    replacing any of them moves the state away from where toolhooks looks (a config reached
    through such a link would read as no config). ``walked`` keeps each path's links, folders
    included, ``resolved`` a folder's real path (the memo of the analysis' ``real_path``)."""
    found = walked.get(path)
    if found is not None:
        return found
    folder, name = os.path.split(path)
    if not name or name in (".", "..") or folder == path:
        found = _links(path)
    else:
        # A path's links are its folder's and those of its name in the folder's real path.
        found = links_on_the_way(folder, walked, resolved)
        joined = os.path.join(real_path(folder, resolved), name)
        if os.path.islink(joined):
            found = found | _links(joined)
    walked[path] = found
    return found


def _links(path: str) -> frozenset[str]:
    """The links of ``path``'s resolution, component by component as the kernel follows them."""
    found: set[str] = set()
    pending = [part for part in path.split(os.sep) if part]
    done = os.sep
    followed = 0
    while pending and followed <= MAX_LINKS:
        part = pending.pop(0)
        if part == ".":
            continue
        if part == "..":
            done = os.path.dirname(done)
            continue
        candidate = os.path.join(done, part)
        try:  # islink first: a readlink of a plain name raises, and an OSError costs more
            target = os.readlink(candidate) if os.path.islink(candidate) else None
        except OSError:  # gone between the two
            target = None
        if target is None:
            done = candidate
            continue
        followed += 1
        found.add(candidate)
        if os.path.isabs(target):
            done = os.sep
        pending[:0] = [part for part in target.split(os.sep) if part]
    return frozenset(found)


def own_state(
    *,
    project: str,
    home: str,
    source: str | None,
    data: Mapping[str, Any],
    environ: Mapping[str, str],
    settings_paths: Iterable[tuple[str, bool]],
) -> OwnState:
    """The state of the toolhooks that loaded the config ``source`` (None: none) with ``data``.
    ``settings_paths``: each agent's hook settings path, and whether it is a folder."""

    def absolute(path: str, base: str = project) -> str:
        return os.path.normpath(os.path.join(base, os.path.expanduser(path)))

    resolved: dict[str, str] = {}
    walked: dict[str, frozenset[str]] = {}
    links: set[str] = set()

    def forms(path: str) -> set[str]:
        """The path as written and after symlinks (both are what a call may name); the links on
        the way are kept apart, guarded as files."""
        links.update(links_on_the_way(path, walked, resolved))
        return {path, real_path(path, resolved)}

    files: set[str] = set()
    folders: set[str] = set()
    keys: set[str] = set()
    asks: set[str] = set()
    state = absolute(".toolhooks")
    folders |= forms(state)
    for name in KEY_FILES:
        keys |= forms(os.path.join(state, name))
    for name in ("toolhooks.toml", "toolhooks.lock"):
        files |= forms(absolute(name))
    if source is not None:
        config = absolute(source)
        if os.path.basename(config) == "pyproject.toml":
            asks |= forms(config)
        else:
            files |= forms(config)
        files |= forms(os.path.join(os.path.dirname(config), "toolhooks.lock"))
    named = environ.get("TOOLHOOKS_CONFIG")
    if named:
        files |= forms(absolute(named, os.getcwd()))
    approvals = _table(data, "approvals").get("db")
    db = absolute(approvals if isinstance(approvals, str) else ".toolhooks/approvals.db")
    files |= forms(db)
    for name in DB_NEIGHBOURS:
        files |= forms(os.path.join(os.path.dirname(db), name))
    log = _table(_table(data, "plugins"), "event_log")
    if isinstance(log.get("path"), str):
        files |= forms(absolute(log["path"]))
    key = log.get("key_file") if isinstance(log.get("key_file"), str) else None
    key = key or environ.get("TOOLHOOKS_LOG_KEY_FILE")
    if key:
        keys |= forms(absolute(key))
    settings_files, settings_folders = _settings(settings_paths, forms)
    files |= settings_files
    folders |= settings_folders
    files |= links
    files -= asks
    return _guard(project=project, home=home, files=files, folders=folders, keys=keys, asks=asks)


def _guard(
    *, project: str, home: str, files: set[str], folders: set[str], keys: set[str], asks: set[str]
) -> OwnState:
    """The guard of these paths, with what it derives from them once (the names a command's
    words are searched for, the prefixes of what lies under a guarded path)."""
    names = (".toolhooks", "toolhooks.toml", "toolhooks.lock", "labels.db", "approvals.db")
    markers = frozenset(
        part.lower()
        for path in (*files, *folders, *keys, *asks)
        for part in (os.path.basename(path), os.path.basename(os.path.dirname(path)))
        if part
    )
    key_names = frozenset(os.path.basename(k) for k in keys)
    databases = sorted(f + "-" for f in files if f.endswith(".db"))
    return OwnState(
        project=project,
        home=home,
        files=frozenset(files),
        folders=tuple(sorted(folders)),
        keys=frozenset(keys),
        asks=frozenset(asks),
        names=names + tuple(sorted({os.path.basename(p) for p in files if "hooks" in p})),
        markers=markers,
        key_names=key_names,
        state_prefixes=(*databases, *(f + "/" for f in sorted(folders))),
        guarded=(*sorted(files), *sorted(folders), *sorted(keys), *sorted(asks)),
        may_name_state=_any_of(markers),
        may_name_key=_any_of(key_names),
        folded={
            **{p.casefold(): "ask" for p in asks},
            **{p.casefold(): "state" for p in (*files, *folders)},
            **{p.casefold(): "key" for p in keys},
        },
        folded_prefixes=tuple(
            p.casefold() for p in (*databases, *(f + "/" for f in sorted(folders)))
        ),
    )


class Names(Record):
    """A search for a glob character or any of some names as a substring, in either case
    (``TOOLHOOKS.TOML`` on a case-insensitive disk)."""

    __slots__ = ("pattern", "plain", "source")

    source: str
    """The names as one pattern's text, searched ignoring case."""
    pattern: re.Pattern[str] | None
    """``source`` compiled: at once when every text is searched with it (a name that is not
    ASCII), else at the first text that is not ASCII, and kept (most processes never see one,
    and compiling it cost every start about 3 M instructions)."""
    plain: tuple[str, ...] | None
    """The same names in lower case when all are ASCII (else None): an ASCII text is then
    lowered and searched with ``in``, one per name, about ten times faster than the pattern
    (whose ignored case costs most of its time) and the same answer: for ASCII text and ASCII
    names, ignoring case is comparing lower case (the Unicode folds that the pattern also
    matches, the Kelvin sign for ``k``, the long s for ``s``, are never ASCII)."""

    def __init__(
        self, *, source: str, pattern: re.Pattern[str] | None, plain: tuple[str, ...] | None
    ) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "plain", plain)

    def found_in(self, text: str) -> bool:
        plain = self.plain
        if plain is None or not text.isascii():
            pattern = self.pattern
            if pattern is None:  # the same pattern whichever thread compiles it first
                pattern = re.compile(self.source, re.IGNORECASE)
                object.__setattr__(self, "pattern", pattern)
            return pattern.search(text) is not None
        text = text.lower()
        if "*" in text or "?" in text or "[" in text:
            return True
        for name in plain:  # noqa: SIM110 (a loop: any(genexpr) costs more than the searches)
            if name in text:
                return True
        return False


def _any_of(names: frozenset[str]) -> Names:
    """A search for a glob character or any of ``names`` as a substring. A name that holds
    another is left out (the shorter one finds it): fewer branches to try at each character."""
    kept = sorted(n for n in names if not any(o != n and o in n for o in names))
    source = "|".join(["[*?[]", *(re.escape(n) for n in kept)])
    if all(n.isascii() for n in kept):
        return Names(source=source, pattern=None, plain=tuple(n.lower() for n in kept))
    return Names(source=source, pattern=re.compile(source, re.IGNORECASE), plain=None)


def _settings(
    settings_paths: Iterable[tuple[str, bool]], forms: Callable[[str], set[str]]
) -> tuple[set[str], set[str]]:
    """The agents' hook settings install writes, their undo records and the files beside them
    that can switch hooks off; a folder of hook scripts whole."""
    files: set[str] = set()
    folders: set[str] = set()
    for path, folder in settings_paths:
        if folder:
            folders |= forms(path)
            continue
        files |= forms(path) | forms(path + UNDO_SUFFIX)
        parent = os.path.dirname(path)
        if os.path.basename(path).startswith("settings"):
            for sibling in ("settings.json", "settings.local.json"):
                files |= forms(os.path.join(parent, sibling))
        if os.path.basename(parent) == ".codex":
            files |= forms(os.path.join(parent, "config.toml"))
    return files, folders


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}
