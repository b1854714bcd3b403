"""What a ``ToolCall``'s fields may hold, the message naming the first field that does not (the
tool name's limits, the keys a proposal given as a mapping may have), and the ids the runtime
makes for a call that comes without them."""

from __future__ import annotations

import itertools
import os

MAX_TOOL_NAME = 256


def name_problem(name: object) -> str:
    """Why ``name`` is not a tool name."""
    if type(name) is not str or not name:
        return "tool name must be a non-empty string"
    if len(name) > MAX_TOOL_NAME:
        return f"tool name is {len(name)} characters long (at most {MAX_TOOL_NAME})"
    return f"tool name {name!r} contains control characters"


def id_problem(*values: object) -> str:
    """Which of id, session_id, run_id, trace_id, agent_id (in that order) is not a string."""
    labels = ("id", "session_id", "run_id", "trace_id", "agent_id")
    for label, value in zip(labels, values, strict=True):
        if value is not None and type(value) is not str:
            return f"{label} must be a string, got {type(value).__name__}"
    return "ids must be strings"  # pragma: no cover - only called when one of them is not


MAPPING_FIELDS = (
    "name",
    "params",
    "id",
    "session_id",
    "run_id",
    "trace_id",
    "agent_id",
    "sender",
    "origin",
    "context_window_tokens",
)
"""The keys a proposal given as a mapping may have, in the constructor's order."""
MAPPING_KEYS = frozenset(MAPPING_FIELDS)


# Ids are a per-process random prefix plus a counter: unique, sortable within a process, and far
# cheaper than uuid4 on the per-call path. The counter starts at 2**60 so that hex() always gives
# 16 digits: no padding to format, and the ids still sort in the order they were made.
# os.urandom(8).hex() is what secrets.token_hex(8) returns; the secrets module imports random
# (and with it hmac, bisect and a seeded generator), 6 M instructions of every start.
_PROCESS_PREFIX = os.urandom(8).hex()
_next_serial = itertools.count(1 << 60).__next__


def new_id() -> str:
    """A 32-hex-digit id, unique across processes (random prefix) and within one (counter)."""
    return _PROCESS_PREFIX + hex(_next_serial())[2:]
