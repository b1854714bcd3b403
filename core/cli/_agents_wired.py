"""``toolhooks doctor``'s coding-agent rows: which agents run toolhooks' hook, in which scope.

Each agent's protocol says where its settings live (``settings_path`` for the project and the
user scope) and which events ``toolhooks hook install`` wires (``events``). An agent is wired
in a scope when its settings run ``toolhooks hook <agent>`` (any path to the executable, any
way of quoting it); an event the settings do not wire is a warning with the install command
that fixes it. Reading the settings never changes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..agents._protocol import PROTOCOLS, AgentProtocol, ProtocolError, protocol
from ._checks import Check

SCOPES = ("project", "user")


def check_agents(project: Path, home: Path) -> list[Check]:
    """A row per agent wired in some scope, and one row naming the agents wired nowhere."""
    checks: list[Check] = []
    idle: list[str] = []
    for agent in PROTOCOLS:
        try:
            agent_protocol = protocol(agent)
        except ProtocolError:
            continue  # that agent's protocol is not part of this installation yet
        rows = [
            row for scope in SCOPES if (row := _scope(agent, agent_protocol, scope, project, home))
        ]
        if rows:
            checks.extend(rows)
        else:
            idle.append(agent)
    if idle:
        fix = "toolhooks hook install AGENT [--scope project|user]" if not checks else None
        checks.append(Check("ok", "agents", f"not wired: {', '.join(idle)}", fix))
    return checks


def _scope(
    agent: str, agent_protocol: AgentProtocol, scope: str, project: Path, home: Path
) -> Check | None:
    path = agent_protocol.settings_path(scope, project, home)
    shown = _shown(path, project, home)
    try:
        wired = wired_events(agent, path)
    except (OSError, ValueError) as error:
        return Check(
            "warning",
            f"agent {agent}",
            f"{scope}: cannot read {shown}: {error}",
            f"fix or remove {shown}, then: toolhooks hook install {agent} --scope {scope}",
        )
    if wired is None:
        return None
    missing = [event for event in agent_protocol.events if event not in wired]
    events = ", ".join(e for e in agent_protocol.events if e in wired) or "(some event)"
    if missing:
        return Check(
            "warning",
            f"agent {agent}",
            f"{scope} ({shown}): wired for {events}, not for {', '.join(missing)}",
            f"toolhooks hook install {agent} --scope {scope}",
        )
    return Check("ok", f"agent {agent}", f"wired, {scope} ({shown}): {events}")


def wired_events(agent: str, path: Path) -> set[str] | None:
    """The events whose hooks in ``path`` run toolhooks' hook for ``agent``; None when none do.

    ``path`` is a JSON settings file (``{"hooks": {event: ...}}`` or any other shape: then every
    wired event counts as found), or a folder of hook files named after their events (Cline)."""
    if path.is_dir():
        found = {
            entry.name
            for entry in path.iterdir()
            if entry.is_file() and runs_toolhooks(entry.read_text(errors="replace"), agent)
        }
        return found or None
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    if not runs_toolhooks(text, agent):
        return None
    try:
        settings = json.loads(text)
    except ValueError as error:
        raise ValueError(f"not JSON ({error})") from None
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return set(protocol(agent).events)  # a shape this check does not know: trust the text
    return {
        str(event)
        for event, entries in hooks.items()
        if any(runs_toolhooks(s, agent) for s in _strings(entries))
    }


def runs_toolhooks(text: str, agent: str) -> bool:
    """Whether ``text`` runs ``toolhooks hook <agent>`` (or posts to the daemon's ``/hook/<agent>``)."""
    name = re.escape(agent)
    command = rf"toolhooks(?:\.exe)?[\"']?\s+hook\s+{name}(?![\w-])"
    url = rf"https?://(?:127\.0\.0\.1|localhost)[^\s\"']*/hook/{name}(?![\w-])"
    return re.search(f"{command}|{url}", text) is not None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _shown(path: Path, project: Path, home: Path) -> str:
    """``path`` as a person reads it: relative to the project, or under ``~``."""
    for base, prefix in ((project, ""), (home, "~/")):
        try:
            return prefix + str(path.relative_to(base))
        except ValueError:
            continue
    return str(path)
