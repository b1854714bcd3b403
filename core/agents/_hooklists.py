"""Wiring one command into a settings file shaped ``{"hooks": {event: [entry, ...]}}``.

Cursor's ``hooks.json``, Copilot's ``.github/hooks/*.json`` and Windsurf's ``hooks.json`` all
keep a list of hook entries per event. ``wire`` appends toolhooks' entry to each event's list
once (running it again changes nothing) and keeps every other key and entry; ``unwire`` takes
out the entries that run the command and the event lists that only held them. Neither mutates
the settings it is given. Stdlib only.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from ._protocol import ProtocolError


def wire(
    settings: Mapping[str, Any],
    events: Iterable[str],
    entry: Mapping[str, Any],
    *,
    command_keys: tuple[str, ...],
    agent: str,
) -> dict[str, Any]:
    """``settings`` with ``entry`` in the list of each of ``events``."""
    wired = copy.deepcopy(dict(settings))
    hooks = wired.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ProtocolError(f"{agent} settings: 'hooks' must be an object")
    command = next(str(entry[key]) for key in command_keys if key in entry)
    for event in events:
        entries = hooks.setdefault(event, [])
        if not isinstance(entries, list):
            raise ProtocolError(f"{agent} settings: hooks.{event} must be a list")
        if not any(runs(existing, command, command_keys) for existing in entries):
            entries.append(dict(entry))
    return wired


def unwire(
    settings: Mapping[str, Any], command: str, *, command_keys: tuple[str, ...]
) -> dict[str, Any]:
    """``settings`` without the entries that run ``command``."""
    unwired = copy.deepcopy(dict(settings))
    hooks = unwired.get("hooks")
    if not isinstance(hooks, dict):
        return unwired
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            continue
        kept = [entry for entry in entries if not runs(entry, command, command_keys)]
        if kept:
            hooks[event] = kept
        elif entries:  # only ours were there: the event goes, as before install
            del hooks[event]
    return unwired


def runs(entry: Any, command: str, command_keys: tuple[str, ...]) -> bool:
    """Whether a hook entry runs ``command`` (under any of the keys the agent reads it from)."""
    return isinstance(entry, Mapping) and any(entry.get(key) == command for key in command_keys)
