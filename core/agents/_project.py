"""Where a coding agent's hook finds its project: the config, the folder the daemon runs in, and
``.toolhooks/`` next to the config, which holds the daemon's socket, lock, token and log.

Stdlib only and no ``pathlib``: the hook client imports this on every tool call, before any
daemon answers, and pays for each import (``pathlib`` pulls in ``re``, ``fnmatch`` and
``urllib``).

The config is the one ``discover`` finds, looked for further up:

1. ``$TOOLHOOKS_CONFIG`` (relative to the hook's cwd); it must name a file;
2. else ``toolhooks.toml``, or ``pyproject.toml`` with a ``[tool.toolhooks]`` table, in the hook's
   cwd, then in each parent folder up to the file system's root: an agent may run its hooks
   from a sub-folder of the project (PLUGINS.md, Decisions);
3. else none: the defaults apply, in the hook's cwd.

The project's root is the config's folder (the cwd without one). The daemon runs there and the
in-process fallback moves there, so relative paths in the config (``[approvals] db =
".toolhooks/approvals.db"``) mean the same files whichever of them answers.
"""

from __future__ import annotations

import os
import sys

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

    __slots__ = ("config", "root")

    def __init__(self, *, config: str | None, root: str) -> None:
        self.config = config
        self.root = root

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
        if not os.path.isfile(path):
            source = "--config" if config else f"${CONFIG_ENV}"
            raise ProjectError(f"{source} names {named}, which is not a file")
        return Project(config=path, root=os.path.dirname(path))
    here = os.path.abspath(cwd)
    while True:
        candidate = os.path.join(here, CONFIG_FILE)
        if os.path.isfile(candidate):
            return Project(config=candidate, root=here)
        pyproject = os.path.join(here, "pyproject.toml")
        if os.path.isfile(pyproject) and has_toolhooks_table(pyproject):
            return Project(config=pyproject, root=here)
        parent = os.path.dirname(here)
        if parent == here:
            return Project(config=None, root=os.path.abspath(cwd))
        here = parent


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
    if project.config is None:
        return "deny"
    try:
        with open(project.config, "rb") as handle:
            parsed = read_toml_bytes(handle.read())
    except OSError:
        return "deny"
    if parsed is None:
        return "deny"
    table: object = parsed
    if os.path.basename(project.config) == "pyproject.toml":
        tool = parsed.get("tool")
        table = tool.get("toolhooks") if isinstance(tool, dict) else None
    agents = table.get("agents") if isinstance(table, dict) else None
    value = agents.get("on_error") if isinstance(agents, dict) else None
    return "allow" if value == "allow" else "deny"


def private_dir(path: str) -> bool:
    """Whether ``path`` is a folder of this user's that nobody else can enter or write."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    mine = getuid is None or info.st_uid == getuid()
    return mine and (info.st_mode & 0o077) == 0


def make_private_dir(path: str) -> None:
    """Create ``path`` (mode 0700), or make an existing one of this user's 0700."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    if not private_dir(path):
        os.chmod(path, 0o700)
