"""Pinned tool definitions: what each upstream's tools looked like when someone approved them.

``toolhooks mcp pin`` writes, for every tool of every upstream, a sha256 per part of its
definition (over the part's canonical JSON) into ``toolhooks.lock``, under ``[mcp]``::

    [mcp.servers.files.tools.read_file]
    description = "<sha256>"
    input_schema = "<sha256>"
    output_schema = "<sha256>"
    annotations = "<sha256>"

Pinning is on once the lock has an ``[mcp]`` table. Then, whenever an upstream lists its tools,
a tool whose digests differ from its pin, or that has no pin, is a :class:`Change`: the proxy
withholds it, asks before each call, or only warns (``[mcp.servers.<name>] on_change``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from toolhooks.kit import canonical_json, toml_string

PARTS = ("description", "input_schema", "output_schema", "annotations")
"""What of a definition is pinned, each under its own digest."""

_WORDS = {
    "description": "description",
    "input_schema": "input schema",
    "output_schema": "output schema",
    "annotations": "annotations",
}
NEW = "new tool"

Pins = Mapping[str, Mapping[str, Mapping[str, str]]]
"""server -> tool -> part -> sha256."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """A tool whose definition is not the pinned one."""

    server: str
    tool: str
    what: tuple[str, ...]
    """``("new tool",)``, or the parts that changed (``"description"``, ``"input schema"``,
    ``"output schema"``, ``"annotations"``)."""
    digests: tuple[tuple[str, str], ...]
    """The definition's digests now (to report each distinct change once)."""

    @property
    def text(self) -> str:
        if self.what == (NEW,):
            return f"tool {self.tool!r} of MCP server {self.server!r} is new (not pinned)"
        return (
            f"tool {self.tool!r} of MCP server {self.server!r} changed since it was pinned: "
            + ", ".join(self.what)
        )


def part_values(tool: types.Tool) -> dict[str, Any]:
    annotations = tool.annotations
    return {
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": None
        if annotations is None
        else annotations.model_dump(mode="json", by_alias=True, exclude_none=True),
    }


def digests(tool: types.Tool) -> dict[str, str]:
    """A sha256 per pinned part of the definition, over its canonical JSON."""
    return {
        part: hashlib.sha256(canonical_json(value).encode()).hexdigest()
        for part, value in part_values(tool).items()
    }


def pins_from(table: Mapping[str, Any] | None) -> Pins | None:
    """The lock's ``[mcp]`` table as pins; None when there is none (pinning is off)."""
    if table is None:
        return None
    servers = table.get("servers", {})
    pins: dict[str, dict[str, dict[str, str]]] = {}
    if not isinstance(servers, dict):
        return pins
    for server, entry in servers.items():
        tools = entry.get("tools", {}) if isinstance(entry, dict) else {}
        pins[server] = {
            name: {part: str(value) for part, value in parts.items() if part in PARTS}
            for name, parts in (tools.items() if isinstance(tools, dict) else ())
            if isinstance(parts, dict)
        }
    return pins


def change_of(pins: Pins, server: str, tool: types.Tool) -> Change | None:
    """How ``tool`` differs from its pin; None when it is the pinned definition."""
    now = digests(tool)
    pinned = pins.get(server, {}).get(tool.name)
    if pinned is None:
        what: tuple[str, ...] = (NEW,)
    else:
        what = tuple(_WORDS[part] for part in PARTS if pinned.get(part) != now[part])
        if not what:
            return None
    return Change(server=server, tool=tool.name, what=what, digests=tuple(sorted(now.items())))


def differences(pins: Pins | None, listed: Mapping[str, Mapping[str, types.Tool]]) -> list[str]:
    """Every way the pins and the upstreams' tools differ, one line each (``pin --check``)."""
    if pins is None:
        return ["no tool definitions are pinned: run `toolhooks mcp pin`"]
    lines = []
    for server in sorted(set(pins) | set(listed)):
        tools = listed.get(server, {})
        for name in sorted(tools):
            change = change_of(pins, server, tools[name])
            if change is not None:
                lines.append(change.text)
        for name in sorted(set(pins.get(server, {})) - set(tools)):
            lines.append(f"tool {name!r} of MCP server {server!r} is pinned but not listed")
    return lines


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    return name if _BARE.match(name) else toml_string(name)


def render(listed: Mapping[str, Mapping[str, types.Tool]]) -> str:
    """The ``[mcp]`` tables of the lock for these upstreams' tools (sorted: a small diff)."""
    lines = [
        "[mcp]",
        "# The MCP tools' definitions as reviewed, written by `toolhooks mcp pin`: a sha256 per",
        "# part over its canonical JSON. A tool that differs is withheld (or asks, or warns).",
    ]
    for server in sorted(listed):
        tools = listed[server]
        if not tools:
            lines += ["", f"[mcp.servers.{_key(server)}]"]
            lines.append("tools = {}")
        for name in sorted(tools):
            lines += ["", f"[mcp.servers.{_key(server)}.tools.{_key(name)}]"]
            lines += [f'{part} = "{digest}"' for part, digest in digests(tools[name]).items()]
    return "\n".join(lines) + "\n"
