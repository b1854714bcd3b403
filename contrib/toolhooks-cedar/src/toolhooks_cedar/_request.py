"""A call as a Cedar request (DESIGN.md, "Integrations", toolhooks-cedar).

- principal ``User::"<sender id>"`` (``User::"anonymous"`` without a sender), with the sender's
  ``name``, ``channel`` and ``is_owner`` as attributes and its ``roles`` as parents
  ``Role::"<role>"``; an entities-file entry of the same user is merged in (its attributes
  under the sender's, its parents added);
- action ``Action::"<tool>"``; resource ``Agent::"<agent id, or default>"``;
- context ``{input: params, session: {id, labels, calls}, from: {<param>: labels}, now: {date,
  hour, weekday}, exec: {...}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final, NamedTuple

from ._values import Converter

ANONYMOUS: Final = "anonymous"
DEFAULT_AGENT: Final = "default"


class Who(NamedTuple):
    """The parts of a sender the principal is made of (a cache key: hashable; a tuple, as it
    is made on every call)."""

    id: str
    name: str | None = None
    channel: str | None = None
    roles: tuple[str, ...] = ()
    is_owner: bool = False

    @classmethod
    def of(cls, sender: Any) -> Who:
        if sender is None:
            return _ANONYMOUS
        return cls(sender.id, sender.name, sender.channel, tuple(sender.roles), sender.is_owner)


_ANONYMOUS: Final = Who(ANONYMOUS)


def principal_entity(who: Who, listed: Mapping[str, Any] | None) -> dict[str, Any]:
    """The principal's entity: the sender's attributes and roles, merged with its entry in the
    entities file (``listed``) when it has one."""
    attrs: dict[str, Any] = dict(listed.get("attrs", {})) if listed else {}
    if who.name is not None:
        attrs["name"] = who.name
    if who.channel is not None:
        attrs["channel"] = who.channel
    attrs["is_owner"] = who.is_owner
    parents: list[dict[str, str]] = [{"type": "Role", "id": role} for role in who.roles]
    for parent in listed.get("parents", ()) if listed else ():
        if parent not in parents:
            parents.append(parent)
    return {"uid": {"type": "User", "id": who.id}, "attrs": attrs, "parents": parents}


def now_record(moment: datetime) -> dict[str, Any]:
    """``context.now``: the date, hour (0-23) and ISO weekday (Monday 1) of ``moment``."""
    return {
        "date": moment.strftime("%Y-%m-%d"),
        "hour": moment.hour,
        "weekday": moment.isoweekday(),
    }


def build_request(
    *,
    tool: str,
    params: Mapping[str, Any],
    parameters: Mapping[str, Any] | None,
    who: Who,
    agent_id: str | None,
    session_id: str | None,
    labels: frozenset[str] | set[str],
    calls: int,
    sources: Mapping[str, Any],
    moment: datetime | None,
    exec_facts: Mapping[str, Any],
    parts: frozenset[str] | None = None,
) -> dict[str, Any]:
    """The Cedar request of one call; raises ``Unrepresentable`` for a value Cedar cannot hold
    (``parameters``: the tool's params JSON Schema, so a ``number`` param is a decimal).
    ``parts``: the context's top-level keys to build (default all); ``moment`` may be None
    when ``now`` is not one of them."""
    # The params are converted even when no policy reads them: a value Cedar cannot hold
    # blocks the call whatever the policies say (fail closed, the same for every set).
    converted = Converter().record(params, "", parameters)
    context: dict[str, Any] = {}
    if parts is None or "input" in parts:
        context["input"] = converted
    if parts is None or "session" in parts:
        context["session"] = {"id": session_id or "", "labels": sorted(labels), "calls": calls}
    if parts is None or "from" in parts:
        context["from"] = from_record(params, parameters, sources)
    if parts is None or "now" in parts:
        assert moment is not None
        context["now"] = now_record(moment)
    if parts is None or "exec" in parts:
        context["exec"] = exec_facts
    return {
        "principal": {"type": "User", "id": who.id},
        "action": {"type": "Action", "id": tool},
        "resource": {"type": "Agent", "id": agent_id or DEFAULT_AGENT},
        "context": context,
    }


def from_record(
    params: Mapping[str, Any], parameters: Mapping[str, Any] | None, sources: Mapping[str, Any]
) -> dict[str, list[str]]:
    """``context.from``: a key for every param the call gives and every param the tool's schema
    names (the schema "auto" types each as required), an empty set where no label is known; so
    a validated ``context.from.recipient`` does not fail on a call that leaves it out."""
    found = {name: sorted(sources.get(name, ())) for name in params}
    properties = parameters.get("properties") if parameters else None
    if isinstance(properties, Mapping):
        for name in properties:
            if isinstance(name, str) and name not in found:
                found[name] = []
    return found
