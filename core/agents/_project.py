"""Where a coding agent's hook finds its project: the config, the folder the daemon runs in, and
``.toolhooks/`` next to the config, which holds the daemon's socket, lock, token and log.

Stdlib only and no ``pathlib``: the hook client imports this on every tool call, before any
daemon answers, and pays for each import (``pathlib`` pulls in ``re``, ``fnmatch`` and
``urllib``).

The config is the one ``discover`` finds, looked for further up:

1. ``$TOOLHOOKS_CONFIG`` (relative to the hook's cwd); it must name a file others cannot write;
2. else ``toolhooks.toml``, or ``pyproject.toml`` with a ``[tool.toolhooks]`` table, in the hook's
   cwd, then in each parent folder up to the file system's root: an agent may run its hooks
   from a sub-folder of the project (PLUGINS.md, Decisions). A file there that belongs to another
   user (not root), or that others can write or replace, is ignored with a warning
   (``toolhooks.config._trust``): a project under ``/tmp`` must not pick up a stranger's config;
3. else none: the defaults apply, in the hook's cwd.

The project's root is the config's folder (the cwd without one). The daemon runs there and the
in-process fallback moves there, so relative paths in the config (``[approvals] db =
".toolhooks/approvals.db"``) mean the same files whichever of them answers.
"""

from __future__ import annotations

import os
import sys

from ..config._trust import untrusted_config, world_writable

TYPE_CHECKING = False  # not ``typing``'s: importing typing costs the hook client milliseconds
if TYPE_CHECKING:
    from collections.abc import Mapping

CONFIG_ENV = "TOOLHOOKS_CONFIG"
CONFIG_FILE = "toolhooks.toml"
STATE_DIR = ".toolhooks"
SOCKET = os.path.join(STATE_DIR, "agentd.sock")
"""Relative to the root: a socket's address is limited to about 100 bytes, a project's absolute
path is not, so the daemon and the client both use this name from the root."""
LOCK = os.path.join(STATE_DIR, "agentd.lock")
PIDFILE = os.path.join(STATE_DIR, "agentd.pid")
LOG = os.path.join(STATE_DIR, "agentd.log")
TOKEN = os.path.join(STATE_DIR, "agentd.token")
PORT = os.path.join(STATE_DIR, "agentd.port")


class ProjectError(Exception):
    """The hook cannot tell which config applies (``$TOOLHOOKS_CONFIG`` names no file)."""


class Project:
    """The config a hook runs under (absolute, or None: the defaults) and its root folder.

    A plain class rather than a frozen dataclass: ``dataclasses`` imports ``inspect``, which
    costs the hook client more than the rest of its imports together."""

    __slots__ = ("config", "root", "warnings")

    def __init__(self, *, config: str | None, root: str, warnings: tuple[str, ...] = ()) -> None:
        self.config = config
        self.root = root
        self.warnings = warnings
        """Config files found and ignored (another user's, or writable by others), and why."""

    def __repr__(self) -> str:
        return f"Project(config={self.config!r}, root={self.root!r})"

    def path(self, name: str) -> str:
        """``name`` (one of this module's relative names) as an absolute path."""
        return os.path.join(self.root, name)


def find_project(cwd: str, environ: Mapping[str, str], *, config: str | None = None) -> Project:
    """The project of a hook run in ``cwd`` (``config``: a ``--config`` given on the command
    line, which wins over everything); ``ProjectError`` when the named config is no file."""
    named = config or environ.get(CONFIG_ENV)
    if named:
        path = os.path.abspath(os.path.join(cwd, os.path.expanduser(named)))
        source = "--config" if config else f"${CONFIG_ENV}"
        if not os.path.isfile(path):
            raise ProjectError(f"{source} names {named}, which is not a file")
        problem = world_writable(path)
        if problem is not None:
            raise ProjectError(f"{source} names {path}, which is refused: {problem}")
        return Project(config=path, root=os.path.dirname(path))
    here = os.path.abspath(cwd)
    ignored: list[str] = []
    while True:
        candidate = os.path.join(here, CONFIG_FILE)
        if os.path.isfile(candidate) and not _ignored(candidate, ignored):
            return Project(config=candidate, root=here, warnings=tuple(ignored))
        pyproject = os.path.join(here, "pyproject.toml")
        if (
            os.path.isfile(pyproject)
            and has_toolhooks_table(pyproject)
            and not _ignored(pyproject, ignored)
        ):
            return Project(config=pyproject, root=here, warnings=tuple(ignored))
        parent = os.path.dirname(here)
        if parent == here:
            return Project(config=None, root=os.path.abspath(cwd), warnings=tuple(ignored))
        here = parent


def _ignored(path: str, ignored: list[str]) -> bool:
    """Whether the config found at ``path`` is not used (``untrusted_config``); the warning
    that says so is added to ``ignored``: a config is never skipped silently."""
    problem = untrusted_config(path)
    if problem is None:
        return False
    ignored.append(f"ignoring the config {path}: {problem}")
    return True


def has_toolhooks_table(pyproject: str) -> bool:
    """Whether ``pyproject`` holds ``[tool.toolhooks]``. A file that cannot be parsed counts when
    it mentions toolhooks at all, so loading it reports the error (fail closed) instead of the
    hook quietly running without the policy it was meant to have."""
    try:
        with open(pyproject, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    if b"toolhooks" not in data:
        return False  # the common case, without importing a TOML parser
    parsed = read_toml_bytes(data)
    if parsed is None:
        return True
    tool = parsed.get("tool")
    return isinstance(tool, dict) and "toolhooks" in tool


def read_toml_bytes(data: bytes) -> dict[str, object] | None:
    """``data`` parsed as TOML, or None when it is not TOML (stdlib ``tomllib``, or ``tomli``,
    toolhooks' own dependency before Python 3.11)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        parsed: dict[str, object] = tomllib.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return parsed


def on_error(project: Project) -> str:
    """``[agents] on_error`` of the project's config, read without pydantic: "allow" only when
    the file says so plainly; anything else, an unreadable file included, is "deny"."""
    return "allow" if _agents_table(project, "on_error").get("on_error") == "allow" else "deny"


DEADLINE_S = 25.0
"""How long ``toolhooks hook`` may take, from its start to its answer: under the smallest hook
timeout an agent documents (GitHub Copilot's and Cline's 30 s; docs/decisions/hook-daemon.md),
since an agent that gives up on a hook may run the call (Claude Code, Copilot)."""
MIN_DEADLINE_S = 0.5


def deadline_s(project: Project) -> float:
    """``[agents] deadline_s`` of the project's config, read without pydantic: only ever lower
    than ``DEADLINE_S`` (a value above it, or not a number, is ``DEADLINE_S``; the config's own
    validation says so with its line)."""
    value = _agents_table(project, "deadline_s").get("deadline_s")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return DEADLINE_S
    if not MIN_DEADLINE_S <= value <= DEADLINE_S:  # NaN fails both
        return DEADLINE_S
    return float(value)


def _agents_table(project: Project, key: str) -> dict[str, object]:
    """``[agents]`` of the project's config; empty when the file does not mention ``key`` (the
    common case, read on every hook without importing a TOML parser)."""
    if project.config is None:
        return {}
    try:
        with open(project.config, "rb") as handle:
            data = handle.read()
    except OSError:
        return {}
    if key.encode() not in data:
        return {}
    parsed = read_toml_bytes(data)
    if parsed is None:
        return {}
    table: object = parsed
    if os.path.basename(project.config) == "pyproject.toml":
        tool = parsed.get("tool")
        table = tool.get("toolhooks") if isinstance(tool, dict) else None
    agents = table.get("agents") if isinstance(table, dict) else None
    return agents if isinstance(agents, dict) else {}


def private_dir(path: str) -> bool:
    """Whether ``path`` is a folder of this user's that nobody else can enter or write."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    mine = getuid is None or info.st_uid == getuid()
    return mine and (info.st_mode & 0o170000) == 0o040000 and (info.st_mode & 0o077) == 0


class StateDirError(PermissionError):
    """The state folder (``.toolhooks/``) is not this user's alone: the daemon does not use it."""


def make_private_dir(path: str) -> None:
    """Create ``path`` (mode 0700), or make an existing one of this user's 0700 when others
    can only read it; ``StateDirError`` when it must not be used (``state_dir_problem``)."""
    try:  # noqa: SIM105 - contextlib would cost the hook client an import
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    problem = state_dir_problem(path)
    if problem is not None:
        raise StateDirError(f"the state folder is refused: {problem}")
    if not private_dir(path):
        os.chmod(path, 0o700)


def open_private(path: str, flags: int, *, truncate: bool = False) -> int:
    """``os.open`` of a file in the state folder (mode 0600 when created) that never writes
    through a planted name: not through a symbolic link (``O_NOFOLLOW``), and only to a regular
    file with no other name (a hard link), truncated (``truncate``) only once that is known."""
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        info = os.fstat(fd)
        if (info.st_mode & 0o170000) != 0o100000 or info.st_nlink > 1:
            raise StateDirError(f"{os.path.abspath(path)} is not a plain file of its own")
        if truncate:
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def state_dir_problem(path: str) -> str | None:
    """Why the state folder ``path`` (``.toolhooks/``) must not be used, or None (also when it
    does not exist yet): a symbolic link, not a folder, another user's, or writable by others.
    Files planted in such a folder (a link named ``agentd.pid`` or ``agentd.log``) would have the
    daemon overwrite their target (issue #32 item 8)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"{os.path.abspath(path)} cannot be read: {error.strerror or error}"
    where = os.path.abspath(path)
    if (info.st_mode & 0o170000) == 0o120000:
        return f"{where} is a symbolic link, not a folder"
    if (info.st_mode & 0o170000) != 0o040000:
        return f"{where} is not a folder"
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid != getuid():
        return f"{where} belongs to another user (uid {info.st_uid}), not to you"
    if info.st_mode & 0o022:
        return (
            f"{where} can be written by others (mode {info.st_mode & 0o777:o}): what is in it "
            "may have been planted; remove it (toolhooks makes a new one, mode 700)"
        )
    return None
