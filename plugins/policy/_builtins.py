"""The built-in vocabulary of the policy: tool groups, profiles and the well-known tool tags."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

# The core enforces the external-origin block itself; the policy reports the same set with its
# rule, so it is defined once, in the core.
from toolhooks.kit import EXTERNAL_BLOCKED_TOOLS as EXTERNAL_BLOCKED_TOOLS

GROUP_PREFIX: Final = "group:"

BUILTIN_GROUPS: Final = MappingProxyType(
    {
        "group:fs": ("read", "write", "edit", "apply_patch"),
        "group:runtime": ("exec", "process", "code_execution"),
        "group:web": ("web_search", "web_fetch"),
        "group:memory": ("memory_search", "memory_get"),
        "group:sessions": (
            "sessions_list",
            "sessions_history",
            "sessions_send",
            "sessions_spawn",
            "session_status",
        ),
        "group:messaging": ("message",),
        "group:automation": ("cron", "gateway"),
        "group:ui": ("browser", "canvas"),
        "group:nodes": ("nodes",),
    }
)
"""``group:<name>`` -> member tool names. User groups (``[tools.groups]``) are added to these."""

FULL_PROFILE: Final = "full"

BUILTIN_PROFILES: Final = MappingProxyType(
    {
        "minimal": ("session_status",),
        "coding": (
            "group:fs",
            "group:runtime",
            "group:sessions",
            "group:memory",
            "group:web",
            "image",
        ),
        "messaging": (
            "group:messaging",
            "sessions_list",
            "sessions_history",
            "sessions_send",
            "session_status",
        ),
    }
)
"""Profile name -> the entries it grants. ``full`` is not listed: it grants every tool."""

BUILTIN_PROFILE_NAMES: Final = frozenset({FULL_PROFILE, *BUILTIN_PROFILES})

SIDE_EFFECT_TOOLS: Final = frozenset(
    {
        "exec",
        "process",
        "code_execution",
        "write",
        "edit",
        "apply_patch",
        "message",
        "cron",
        "gateway",
        "sessions_spawn",
        "sessions_send",
        "whatsapp_login",
        "nodes",
        "browser",
        "canvas",
    }
)
"""Tools that count as ``side_effect`` by name, whatever (or whether) their ToolSpec is tagged."""


TOOL_ALIASES: Final = MappingProxyType({"bash": "exec", "apply-patch": "apply_patch"})
"""OpenClaw's tool-name aliases: a tool named ``bash`` is ``exec`` to every group, allow / deny
list and the side-effect defaults, and ``apply-patch`` is ``apply_patch``; the same holds for
the aliases written in config entries."""


def canonical_name(name: str) -> str:
    """The name the policy matches: ``name`` with OpenClaw's aliases resolved."""
    return TOOL_ALIASES.get(name, name)


EXTERNAL_BLOCK_RULE: Final = "builtin:external_origin"
"""What ``decided_by`` names when the hard-coded external-origin block decided."""

SENDER_KINDS: Final = ("channel", "role", "name", "id")
"""``[tools.by_sender]`` key prefixes, in the order their steps apply (after ``"*"``)."""


def user_groups(data: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """``[tools.groups]`` of a config's raw ``data`` as the policy reads it, keyed by the full
    ``group:<name>`` (``review`` and ``group:review`` are one): what another plugin's ``tools``
    lists mean by ``group:`` besides :data:`BUILTIN_GROUPS`."""
    tools = data.get("tools", {})
    table = tools.get("groups", {}) if isinstance(tools, Mapping) else {}
    if not isinstance(table, Mapping):
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for key, value in table.items():
        name = str(key) if str(key).startswith(GROUP_PREFIX) else f"{GROUP_PREFIX}{key}"
        if isinstance(value, (list, tuple)):
            out[name] = tuple(str(member) for member in value)
    return out
