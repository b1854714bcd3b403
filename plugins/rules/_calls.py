"""What a call does, in the terms rules match: the commands of an exec call, the paths and hosts
any call touches, with each coding agent's own parameter names.

The bridges map an agent's tool to toolhooks' name (Claude Code's ``Bash`` is ``exec``, Gemini
CLI's ``read_file`` is ``read``) but keep its params, so the names below are the union of what
the agents send: Claude Code (``command``, ``file_path``, ``notebook_path``, ``path``, ``url``),
Codex (``command`` as a string or an argv list, ``workdir``, a patch in ``input`` / ``patch`` /
``command``), Gemini CLI (``command``, ``directory``/``dir_path``, ``absolute_path``,
``file_path``, ``paths``), Cursor (``command``, ``cwd``, ``working_directory``, ``file_path``,
``target_file``), Cline (``command``, ``path``, ``paths``), Copilot (``command``, ``path``),
Windsurf (``command``, ``cwd``, ``file_path``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote

from toolhooks.analysis import (
    analyse_argv,
    analyse_script,
    command_hosts,
    command_paths,
    hosts_in_text,
    normalise_host,
    normalise_path,
    patch_files,
    readings,
)
from toolhooks.kit import Record

if TYPE_CHECKING:
    from toolhooks.analysis import Command, Script

TOOL_ALIASES: Final = {"bash": "exec", "apply-patch": "apply_patch"}
"""OpenClaw's aliases, as the policy reads them."""
EXEC_TOOLS: Final = frozenset({"exec"})
"""toolhooks' exec tool (every bridge maps its agent's shell tool to it; ``bash`` is an alias)."""
PATCH_TOOLS: Final = frozenset({"apply_patch"})
FILE_TOOLS: Final = frozenset({"read", "write", "edit", "apply_patch"})
"""toolhooks' file tools (``group:fs``): a ``file://`` URL in any of their params is a path."""
PATCH_PROGRAMS: Final = frozenset({"apply_patch", "applypatch"})
"""Codex's patch tool as a program its shell runs (``apply_patch "*** Begin Patch ..."``)."""
COMMAND_PARAMS: Final = ("command", "cmd", "commands", "argv", "script")
"""Where an exec call's command is: a string (a script) or a list of strings (an argv)."""
CWD_PARAMS: Final = ("cwd", "workdir", "working_directory", "directory", "dir_path")
"""An exec call's working folder, when the agent gives one."""
PATH_PARAMS: Final = frozenset(
    {
        "path",
        "paths",
        "file_path",
        "filePath",
        "file_paths",
        "absolute_path",
        "notebook_path",
        "target_file",
        "dir_path",
        "directory",
        "filename",
        "file",
        "files",
        "source",
        "destination",
        "old_path",
        "new_path",
    }
)
"""Params that hold a path (or a list of paths) in any tool's call."""
HOST_PARAMS: Final = frozenset({"url", "urls", "host", "hostname", "domain", "uri", "endpoint"})
"""Params whose bare value (no scheme) is a host."""
MAX_STRINGS: Final = 10_000
"""Strings looked at in one call's params (a bound on the work a hostile call can ask for)."""


_SCALARS: Final = (str, int, float, type(None))
"""Param values that hold no nested param (a bool is an int)."""
_LOOKED_AT: Final = PATH_PARAMS.union(COMMAND_PARAMS)


def canonical_tool(name: str) -> str:
    return TOOL_ALIASES.get(name, name)


Items = tuple[str, ...]


class Reach:
    """A subject's paths and hosts, each found on first use: a command that no rule with a
    ``paths`` (or ``hosts``) condition gets to (its program rules the others out) costs no
    path (host) work. Kept with the subject, so never past the call's decision."""

    __slots__ = ("_find_hosts", "_find_paths", "_hosts", "_paths")

    def __init__(
        self, *, paths: Items | Callable[[], Items], hosts: Items | Callable[[], Items]
    ) -> None:
        self._paths: Items | None = paths if isinstance(paths, tuple) else None
        self._find_paths: Callable[[], Items] | None = None if isinstance(paths, tuple) else paths
        self._hosts: Items | None = hosts if isinstance(hosts, tuple) else None
        self._find_hosts: Callable[[], Items] | None = None if isinstance(hosts, tuple) else hosts

    def paths(self) -> Items:
        found = self._paths
        if found is None:
            assert self._find_paths is not None
            found = self._paths = self._find_paths()
        return found

    def hosts(self) -> Items:
        found = self._hosts
        if found is None:
            assert self._find_hosts is not None
            found = self._hosts = self._find_hosts()
        return found


class Subject(Record):
    """One thing rules are matched against: a simple command of an exec call, or a whole call."""

    __slots__ = ("command", "reach", "shown", "unknown")

    command: Command | None
    """The simple command (exec), else None (a rule with command / flags / args never holds)."""
    shown: str
    """What a reason names (the command as written, or the tool's name)."""
    reach: Reach
    """Its paths and hosts (see ``paths`` and ``hosts``), found when first asked for."""
    unknown: bool
    """A word of the command is unknown (``$X``): it could be any path, host, flag or arg."""

    def __init__(
        self, *, command: Command | None, shown: str, reach: Reach, unknown: bool = False
    ) -> None:
        object.__setattr__(self, "command", command)
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "reach", reach)
        object.__setattr__(self, "unknown", unknown)

    @property
    def paths(self) -> Items:
        """Every path touched, absolute, in every form (as text and after symlinks)."""
        return self.reach.paths()

    @property
    def hosts(self) -> Items:
        """Every host reached, normalised (every candidate where parsers could disagree)."""
        return self.reach.hosts()


class CallFacts(Record):
    """What one call does: its subjects, and why its script is opaque (None: it is not)."""

    __slots__ = ("cwd", "exec_call", "opaque", "script", "subjects")

    exec_call: bool
    subjects: tuple[Subject, ...]
    opaque: str | None
    script: Script | None
    cwd: str | None

    def __init__(
        self,
        *,
        exec_call: bool,
        subjects: tuple[Subject, ...],
        opaque: str | None = None,
        script: Script | None = None,
        cwd: str | None = None,
    ) -> None:
        object.__setattr__(self, "exec_call", exec_call)
        object.__setattr__(self, "subjects", subjects)
        object.__setattr__(self, "opaque", opaque)
        object.__setattr__(self, "script", script)
        object.__setattr__(self, "cwd", cwd)


class CallMemo(Record):
    """What the readings of one call share (the own-state guard's and the rules'): its script's
    analysis, resolved folders, each word's path forms. Made for one call and dropped with it,
    never kept longer: a file or a symlink may change between two calls."""

    __slots__ = ("folders", "found", "scripts", "seen")

    scripts: dict[tuple[str | tuple[str, ...], str, str], Script]
    folders: dict[str, str]
    seen: dict[tuple[str, str, str], tuple[str, ...]]
    found: dict[tuple[int, str], tuple[str, ...]]
    """Each command's paths, by the command's identity: its script is kept in ``scripts``
    for as long as the memo lives, so an id names one command."""

    def __init__(
        self,
        *,
        scripts: dict[tuple[str | tuple[str, ...], str, str], Script] | None = None,
        folders: dict[str, str] | None = None,
        seen: dict[tuple[str, str, str], tuple[str, ...]] | None = None,
        found: dict[tuple[int, str], tuple[str, ...]] | None = None,
    ) -> None:
        object.__setattr__(self, "scripts", {} if scripts is None else scripts)
        object.__setattr__(self, "folders", {} if folders is None else folders)
        object.__setattr__(self, "seen", {} if seen is None else seen)
        object.__setattr__(self, "found", {} if found is None else found)

    def script(self, command: str | list[str], *, cwd: str, home: str) -> Script:
        """The analysis of ``command`` (a script or an argv), once per call: a script whose
        analysis looked at files (a glob, a ``cd``) is not in the kit's cache."""
        key = (command if isinstance(command, str) else tuple(command), cwd, home)
        found = self.scripts.get(key)
        if found is None:
            if isinstance(command, str):
                found = analyse_script(command, cwd=cwd, home=home)
            else:
                found = analyse_argv(command, cwd=cwd, home=home)
            self.scripts[key] = found
        return found

    def paths(self, command: Command, *, home: str) -> tuple[str, ...]:
        """``command_paths`` of a command of this call, once (the guard's and the rules')."""
        key = (id(command), home)
        found = self.found.get(key)
        if found is None:
            found = command_paths(command, home=home, folders=self.folders, seen=self.seen)
            self.found[key] = found
        return found


def call_cwd(params: Mapping[str, Any], project: str) -> str:
    """The call's working folder: a ``cwd``-like param (relative ones against the project), else
    the project folder."""
    for name in CWD_PARAMS:
        value = params.get(name)
        if isinstance(value, str) and value:
            return os.path.normpath(os.path.join(project, os.path.expanduser(value)))
    return project


def command_of(params: Mapping[str, Any]) -> tuple[str | list[str] | None, str | None]:
    """(a script or an argv, None) or (None, why the command cannot be read)."""
    given = [name for name in COMMAND_PARAMS if params.get(name) not in (None, "", [])]
    if len(given) > 1 and len({repr(params[name]) for name in given}) > 1:
        # Which one the tool runs is the tool's business: all of them are read, as one script.
        import shlex  # only here: not at every start (shlex compiles a pattern)

        scripts: list[str] = []
        for name in given:
            value = params[name]
            if isinstance(value, str):
                scripts.append(value)
            elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                scripts.append("\n".join(value) if name == "commands" else shlex.join(value))
            else:
                return None, f"the {name!r} param is not a string or a list of strings"
        return "\n".join(scripts), None
    for name in COMMAND_PARAMS:
        if name not in params:
            continue
        value = params[name]
        if isinstance(value, str):
            return value, None
        if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
            if name == "commands":  # Cline's run_commands: one script a line
                return "\n".join(value), None
            return list(value), None
        return None, f"the {name!r} param is not a string or a list of strings"
    return None, "the exec call has no command param (" + ", ".join(COMMAND_PARAMS) + ")"


def strings(value: Any, budget: list[int]) -> Iterator[str]:
    """Every string inside ``value`` (mapping values, list items), at most ``budget[0]`` of
    them; ``budget[1]`` is set when some were left unread (the call is then partly unknown)."""
    if isinstance(value, str):
        if budget[0] > 0:
            budget[0] -= 1
            yield value
        else:
            budget[1] = 1
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings(item, budget)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings(item, budget)


def path_values(
    params: Mapping[str, Any], spec_paths: frozenset[str], budget: list[int]
) -> Iterator[str]:
    """The values of path params, in nested tables and lists at any depth."""
    for name, value in params.items():
        if name in PATH_PARAMS or name in spec_paths:
            yield from strings(value, budget)
        elif isinstance(value, (str, int, float)) or value is None:
            continue  # the usual param: no ABC check
        else:
            yield from _nested_paths(value, spec_paths, budget)


def _nested_paths(value: Any, spec_paths: frozenset[str], budget: list[int]) -> Iterator[str]:
    if isinstance(value, Mapping):
        yield from path_values(value, spec_paths, budget)
    elif isinstance(value, (list, tuple)):
        for item in value:  # a list of lists of tables: `{"ops": [[{"path": ".env"}]]}`
            yield from _nested_paths(item, spec_paths, budget)


def names_no_path(tool: str, params: Mapping[str, Any], spec: Any) -> bool:
    """Whether a call of ``tool`` (canonical) can name no path: not an exec or file tool, no
    command param with a script, no path param at any depth (nor one its schema marks)."""
    if tool in EXEC_TOOLS or tool in FILE_TOOLS:
        return False
    keys = params.keys()
    if spec is None and keys.isdisjoint(_LOOKED_AT):
        for value in params.values():  # a loop, not all(genexpr): this is every call's path
            if not isinstance(value, _SCALARS):
                break
        else:
            return True  # the usual call (a query, a url): flat, and no name to look at
    if not keys.isdisjoint(COMMAND_PARAMS) and any(
        isinstance(params.get(name), str) for name in COMMAND_PARAMS
    ):
        return False  # a shell command of another tool names paths (call_subject reads it)
    return next(path_values(params, spec_path_params(spec), [MAX_STRINGS, 0]), None) is None


def file_url_path(text: str) -> str | None:
    """The path a ``file://`` URL names (``file:///p``, ``file://localhost/p``, %-escapes
    decoded), as the shell analysis reads one; None for any other text."""
    if text[:7].lower() != "file://":
        return None
    rest = unquote(text[7:])
    return rest[rest.find("/") :] if "/" in rest else ""


def spec_path_params(spec: Any) -> frozenset[str]:
    """Params a tool's JSON Schema marks as paths (``"format": "path"``)."""
    if spec is None:
        return frozenset()
    schema = getattr(spec, "parameters", None)
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return frozenset()
    return frozenset(
        name
        for name, prop in props.items()
        if isinstance(prop, Mapping) and prop.get("format") in ("path", "file-path")
    )


def call_facts(
    tool: str,
    params: Mapping[str, Any],
    spec: Any,
    *,
    project: str,
    home: str,
    need_hosts: bool,
    need_paths: bool,
    programs: Container[str] = (),
    memo: CallMemo | None = None,
) -> CallFacts:
    """The subjects of one call: an exec call's simple commands, or the call itself; an unknown
    program's command is also read as a wrapper from each word in ``programs`` (the rules').
    ``memo``: what this call's other readings found (none: a memo of this reading's own)."""
    if tool in EXEC_TOOLS:
        cwd = call_cwd(params, project)
        command, problem = command_of(params)
        if command is None:
            return CallFacts(exec_call=True, subjects=(), opaque=problem, cwd=cwd)
        memo = CallMemo() if memo is None else memo
        script = memo.script(command, cwd=cwd, home=home)
        subjects = tuple(
            command_subject(c, need_paths, need_hosts, home=home, memo=memo)
            for c in (readings(script.commands, programs) if programs else script.commands)
        )
        return CallFacts(
            exec_call=True, subjects=subjects, opaque=script.opaque, script=script, cwd=cwd
        )
    subject = call_subject(tool, params, spec, project, home, need_paths, need_hosts)
    return CallFacts(exec_call=False, subjects=(subject,))


def command_subject(
    command: Command,
    need_paths: bool,
    need_hosts: bool,
    *,
    home: str,
    memo: CallMemo,
) -> Subject:
    words: Sequence[Any] = command.argv[1:]
    unknown = False
    for word in (*words, *command.redirects):  # a loop: a generator costs more than most scans
        if word.text is None:
            unknown = True
            break

    def paths() -> Items:
        found = memo.paths(command, home=home)
        if command.program in PATCH_PROGRAMS:
            # Codex's `apply_patch PATCH` through the shell: the files the patch names
            found += tuple(
                form
                for word in words
                if word.text
                for name in patch_files(word.text)
                for form in normalise_path(name, cwd=command.cwd, home=home)
            )
        return found

    def hosts() -> Items:
        # No host name starts with "-": such a candidate is an option word (`curl --version`).
        return tuple(h for h in command_hosts(command) if not h.startswith("-"))

    return Subject(
        command=command,
        shown=command.text,
        reach=Reach(paths=paths if need_paths else (), hosts=hosts if need_hosts else ()),
        unknown=unknown,
    )


def call_subject(
    tool: str,
    params: Mapping[str, Any],
    spec: Any,
    project: str,
    home: str,
    need_paths: bool,
    need_hosts: bool,
) -> Subject:
    budget = [MAX_STRINGS, 0]
    paths = _param_paths(tool, params, spec, project, home, budget) if need_paths else []
    hosts = _param_hosts(params, budget) if need_hosts and params else []
    shell_unknown = False
    if (need_paths or need_hosts) and any(isinstance(params.get(n), str) for n in COMMAND_PARAMS):
        # Another tool that runs a shell command (an MCP server's `shell`, a framework's
        # `terminal`): rules that name no tool still see the files and hosts its command reaches.
        command, _ = command_of(params)
        if isinstance(command, str):
            shell_unknown = _shell_reach(
                command,
                call_cwd(params, project),
                home,
                paths if need_paths else None,
                hosts if need_hosts else None,
            )
    return Subject(
        command=None,
        shown=tool,
        reach=Reach(paths=tuple(dict.fromkeys(paths)), hosts=tuple(dict.fromkeys(hosts))),
        # strings left unread, or a shell command not seen through, could hold any path or host
        unknown=bool(budget[1]) or shell_unknown,
    )


def _param_paths(
    tool: str, params: Mapping[str, Any], spec: Any, project: str, home: str, budget: list[int]
) -> list[str]:
    """The paths a call's params name (and a patch tool's patch), normalised."""
    named = list(path_values(params, spec_path_params(spec), budget))
    if tool in PATCH_TOOLS:
        for text in strings(params, budget):
            named += patch_files(text)
    # A file:// URL in any param names a file: a file tool's `uri` or list of sources, and a
    # fetch tool's url (web_fetch file:///home/me/.ssh/id_rsa reads the key). Path params'
    # URLs are read as paths below.
    named += [text for text in strings(params, budget) if text[:7].lower() == "file://"]
    paths: list[str] = []
    if named:
        cwd = call_cwd(params, project)
        for value in dict.fromkeys(named):
            url = file_url_path(value)
            value = value if url is None else url
            if value:  # a NUL is cut where a C library would cut it (normalise_path)
                paths += normalise_path(value, cwd=cwd, home=home)
    return paths


def _param_hosts(params: Mapping[str, Any], budget: list[int]) -> list[str]:
    """The hosts of the URLs in a call's params, and of the bare hosts in its host params."""
    hosts: list[str] = []
    for value in strings(params, budget):
        hosts += hosts_in_text(value)
        if value[:7].lower() == "file://":
            # RFC 8089: a file URL's host is its authority, none meaning this machine; a tool
            # that fetches it reads here (a shell's `curl file://` is read by the analysis)
            authority = value[7:].split("/", 1)[0]
            hosts.append(normalise_host(authority) or "localhost" if authority else "localhost")
    for name in HOST_PARAMS:
        for value in strings(params.get(name), budget):
            if value.startswith("//"):  # a scheme-relative URL: //host/path
                value = value[2:].split("/", 1)[0]
            if "://" not in value and "/" not in value and " " not in value:
                host = normalise_host(value)
                if host:
                    hosts.append(host)
    return hosts


def _shell_reach(
    command: str, cwd: str, home: str, paths: list[str] | None, hosts: list[str] | None
) -> bool:
    """Adds the paths and hosts ``command``'s commands reach to ``paths`` and ``hosts`` (each
    when not None); True when the command is not seen through or holds an unknown word."""
    script = analyse_script(command, cwd=cwd, home=home)
    unknown = script.opaque is not None
    for one in script.commands:
        unknown = unknown or any(w.text is None for w in one.argv[1:])
        if paths is not None:
            paths += command_paths(one, home=home)
        if hosts is not None:
            hosts += command_hosts(one)
    return unknown
