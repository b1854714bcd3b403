"""``toolhooks hook install AGENT [--scope project|user] [--undo]``: wire an agent's hooks.

Each agent's protocol says where its settings live and how to wire our command into them
(``AgentProtocol.settings_path`` / ``wire`` / ``unwire``); ``_settings_files`` reads and
writes them safely. Two kinds of settings: a JSON file (Claude Code, Codex, Gemini, Cursor,
Copilot, Windsurf), or a directory of executable hook scripts named after the event (Cline:
``settings_kind = "script-dir"``, wire/unwire on ``{file name: text}``).

Install keeps everything that was there and records, next to the settings, what it found and
what it wrote (``<name>.toolhooks-undo``, JSON without a ``.json`` ending: Copilot loads every
``.json`` file of its hooks folder as a hook file). ``--undo`` puts back exactly what was there,
byte for byte (removing a file install created), when nothing changed since; when someone edited
the settings since, it removes only toolhooks' hooks and keeps their edits (and says so).
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..kit._process import toolhooks_argv
from ..records._errors import ConfigError
from ._protocol import PROTOCOLS, AgentProtocol, ProtocolError, protocol
from ._settings_files import (
    SCRIPT_MODE,
    dump,
    missing_dirs,
    read_json,
    read_record,
    read_scripts,
    record_undo,
    settings_kind,
    undo_path,
    write_text,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Done:
    """What one install or undo did, for the one line the command prints."""

    agent: str
    path: Path
    message: str
    changed: bool


def hook_command(agent: str) -> str:
    """The command an agent runs: ``toolhooks hook AGENT`` when ``toolhooks`` on PATH is this
    installation (portable in a project's committed settings), else this one's absolute path."""
    here = Path(sys.executable).parent / "toolhooks"
    found = shutil.which("toolhooks")
    if found is not None and here.exists() and Path(found).resolve() == here.resolve():
        return f"toolhooks hook {agent}"
    if here.exists():
        return f"{shlex.quote(str(here))} hook {agent}"
    # Not ``python -m toolhooks``: that puts the agent's working folder (the project) first on
    # the import path (``toolhooks.kit.toolhooks_argv``).
    return shlex.join(toolhooks_argv("hook", agent))


# -- install and undo ----------------------------------------------------------------------------


def install(agent: str, scope: str, project: Path, home: Path, command: str) -> Done:
    """Wire ``command`` to every event of ``agent``'s hooks in its settings for ``scope``."""
    proto = _protocol(agent)
    path = proto.settings_path(scope, project, home)
    if settings_kind(proto) == "script-dir":
        return _install_scripts(proto, path, command)
    current, text = read_json(path)
    wired = _wire(proto, current, command, path)
    if wired == current:
        return Done(agent=agent, path=path, message="already wired; nothing changed", changed=False)
    new_text = dump(wired)
    made = missing_dirs(path.parent)
    record = {"kind": "json", "before": text, "wrote": new_text, "command": command, "made": made}
    record_undo(path, record)
    write_text(path, new_text)
    events = ", ".join(proto.events)
    return Done(agent=agent, path=path, message=f"wired {events}", changed=True)


def _install_scripts(proto: AgentProtocol, path: Path, command: str) -> Done:
    names = list(proto.events)
    current = read_scripts(path, names)
    wired = _wire(proto, dict(current), command, path)
    if wired == current:
        return Done(
            agent=proto.name, path=path, message="already wired; nothing changed", changed=False
        )
    made = missing_dirs(path)
    record = {"kind": "script-dir", "before": current, "wrote": wired, "command": command}
    record["made"] = made
    record_undo(path, record)
    for name, text in wired.items():
        write_text(path / name, text, SCRIPT_MODE)
    for name in set(current) - set(wired):
        (path / name).unlink()
    return Done(agent=proto.name, path=path, message=f"wired {', '.join(wired)}", changed=True)


def undo(agent: str, scope: str, project: Path, home: Path, command: str) -> Done:
    """Put back what install found; without a record, remove every hook that runs ``command``."""
    proto = _protocol(agent)
    path = proto.settings_path(scope, project, home)
    record_path = undo_path(path)
    record = read_record(record_path)
    if settings_kind(proto) == "script-dir":
        done = _undo_scripts(proto, path, record, command)
    else:
        done = _undo_json(proto, path, record, command)
    if record is not None:
        record_path.unlink()
        for made in reversed(record.get("made") or []):  # folders install created, if now empty
            with contextlib.suppress(OSError):
                Path(made).rmdir()
    return done


def _undo_json(
    proto: AgentProtocol, path: Path, record: dict[str, Any] | None, command: str
) -> Done:
    current, text = read_json(path)
    if record is not None and text == record.get("wrote"):
        before = record.get("before")
        if before is None:
            path.unlink()
            return Done(
                agent=proto.name, path=path, message="removed (install created it)", changed=True
            )
        write_text(path, before)
        return Done(
            agent=proto.name, path=path, message="restored as it was before install", changed=True
        )
    command = str(record.get("command", command)) if record is not None else command
    unwired = proto.unwire(current, command)
    if unwired == current:
        return Done(
            agent=proto.name,
            path=path,
            message="no toolhooks hooks there; nothing changed",
            changed=False,
        )
    write_text(path, dump(unwired))
    why = " (the file changed since install, so your edits are kept)" if record else ""
    return Done(agent=proto.name, path=path, message=f"toolhooks' hooks removed{why}", changed=True)


def _undo_scripts(
    proto: AgentProtocol, path: Path, record: dict[str, Any] | None, command: str
) -> Done:
    names = list(proto.events)
    current = read_scripts(path, names)
    if record is not None and current == record.get("wrote"):
        before: dict[str, str] = dict(record.get("before") or {})
    else:
        command = str(record.get("command", command)) if record is not None else command
        before = _unwire(proto, dict(current), command, path)
    if before == current:
        return Done(
            agent=proto.name,
            path=path,
            message="no toolhooks hooks there; nothing changed",
            changed=False,
        )
    for name, text in before.items():
        write_text(path / name, text, SCRIPT_MODE)
    for name in set(current) - set(before):
        (path / name).unlink()
    return Done(
        agent=proto.name, path=path, message="toolhooks' hook scripts removed", changed=True
    )


def _wire(proto: AgentProtocol, current: Any, command: str, path: Path) -> Any:
    try:
        return proto.wire(current, command)
    except ProtocolError as error:
        raise ConfigError(str(error), file=str(path)) from None


def _unwire(proto: AgentProtocol, current: Any, command: str, path: Path) -> Any:
    try:
        return proto.unwire(current, command)
    except ProtocolError as error:
        raise ConfigError(str(error), file=str(path)) from None


def _protocol(agent: str) -> AgentProtocol:
    try:
        return protocol(agent)
    except ProtocolError as error:
        raise ConfigError(str(error)) from None


# -- the command line ----------------------------------------------------------------------------


def add_install_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``toolhooks hook install`` (a subcommand of ``toolhooks hook``)."""
    parser = actions.add_parser(
        "install",
        help="wire toolhooks into an agent's hook settings (--undo takes it out again)",
        description="Write AGENT's own hook settings so that every tool call goes through "
        "toolhooks. What was there is kept; --undo restores it.",
    )
    parser.add_argument("target", metavar="AGENT", choices=sorted(PROTOCOLS))
    parser.add_argument(
        "--scope",
        choices=("project", "user"),
        default="project",
        help="the project's settings in this directory (default) or your user settings",
    )
    parser.add_argument("--undo", action="store_true", help="restore what install found")
    parser.add_argument(
        "--command",
        dest="hook_command",
        metavar="CMD",
        help="the command the agent runs (default: toolhooks hook AGENT)",
    )
    parser.set_defaults(func=run_install)


def run_install(args: argparse.Namespace) -> int:
    agent = args.target
    command = args.hook_command or hook_command(agent)
    step = undo if args.undo else install
    done = step(agent, args.scope, Path.cwd(), Path.home(), command)
    print(f"{agent}: {done.path}: {done.message}")
    if done.changed and not args.undo:
        scope = "" if args.scope == "project" else " --scope user"
        print(f"  undo: toolhooks hook install {agent}{scope} --undo")
        note = getattr(_protocol(agent), "install_note", None)
        if note:
            print(f"  note: {note}")
    return 0
