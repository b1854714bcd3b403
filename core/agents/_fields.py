"""Reading an agent's hook payload field by field, with one clear error for what is wrong.

Every protocol module reads untrusted JSON from an agent; these helpers turn a missing or
mistyped field into a ``ProtocolError`` naming the field and the agent, so the hook answers "bad
payload: ..." in the agent's own protocol instead of raising a ``KeyError``. Stdlib only: the
hook client imports the protocol modules before any daemon answers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._protocol import ProtocolError


def text(payload: Mapping[str, Any], key: str, *, agent: str, where: str = "payload") -> str:
    """The non-empty string at ``key``; ``ProtocolError`` when it is missing or not a string."""
    value = payload.get(key)
    if not isinstance(value, str) or not value:
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise ProtocolError(f"{agent} {where}: {key!r} must be a non-empty string ({got})")
    return value


def optional_text(payload: Mapping[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` that holds a non-empty string, else None (ids, cwd: nice to have)."""
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def section(payload: Mapping[str, Any], key: str, *, agent: str) -> Mapping[str, Any]:
    """The JSON object at ``key`` (an event's own part of the payload)."""
    value = payload.get(key)
    if not isinstance(value, Mapping):
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise ProtocolError(f"{agent} payload: {key!r} must be an object ({got})")
    return value


def arguments(value: Any, *, agent: str, key: str) -> Mapping[str, Any]:
    """A tool's arguments: an object, or a JSON string holding one (Copilot's ``toolArgs`` and
    Cursor's MCP ``tool_input`` come either way); absent arguments are an empty object."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ProtocolError(f"{agent} payload: {key!r} is a string but not JSON") from None
    if not isinstance(value, Mapping):
        raise ProtocolError(f"{agent} payload: {key!r} must be an object, not a {_kind(value)}")
    return value


def first_root(payload: Mapping[str, Any], key: str) -> str | None:
    """The first workspace root of a list of them (Cursor, Cline): the session's cwd."""
    roots = payload.get(key)
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    return None


def _kind(value: Any) -> str:
    return "list" if isinstance(value, list) else type(value).__name__
