"""The names the client sees, rebuilt whenever an upstream connects or goes away.

Every upstream tool gets its exposed name (``server__tool`` by default) and a spec on the
runtime; two tools under one exposed name are both withheld, with the reason kept for a call by
that name. Prompts get exposed names the same way. Once tools are pinned (``_pins``), a tool
whose definition is not its pin is withheld, or asks before each call, or is only reported, as
its server's ``on_change`` says.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from toolhooks import Runtime, ToolSpec

from ._config import McpTable
from ._pins import Change, Pins, change_of
from ._tools import Route, routes_for, spec_for
from ._upstream import Upstream

logger = logging.getLogger("toolhooks.mcp")


@dataclass(frozen=True, slots=True)
class Catalog:
    routes: dict[str, Route]
    prompts: dict[str, tuple[str, str]]
    """Exposed prompt name -> (server, the prompt's own name)."""
    collisions: dict[str, str]
    """Exposed names that two upstream tools share, each with why it is withheld."""
    specs: dict[str, ToolSpec]
    """The spec registered on the runtime for each exposed tool name."""
    withheld: dict[str, str]
    """Exposed names of tools whose definition is not the pinned one, each with why."""
    ask: dict[str, str]
    """Exposed names of changed tools that are offered, each call approved first (``ask``)."""
    changes: tuple[Change, ...]
    """Every tool that differs from its pin, whatever its server does about it."""


def build_catalog(
    settings: McpTable,
    upstreams: dict[str, Upstream],
    runtime: Runtime,
    known_collisions: dict[str, str],
    pins: Pins | None = None,
) -> Catalog:
    """The routes of every upstream's tools and prompts; each tool's spec goes on the runtime.

    A collision not in ``known_collisions`` is logged once, as a warning.
    """
    routes: dict[str, Route] = {}
    prompts: dict[str, tuple[str, str]] = {}
    owners: dict[str, list[Route]] = {}
    specs: dict[str, ToolSpec] = {}
    withheld: dict[str, str] = {}
    ask: dict[str, str] = {}
    changes: list[Change] = []
    for server, upstream in upstreams.items():
        table = settings.servers[server]
        found = routes_for(settings, server, table, list(upstream.tools.values()))
        for name, route in list(found.items()):
            owners.setdefault(name, []).append(route)
            change = None if pins is None else change_of(pins, server, upstream.tools[route.tool])
            if change is not None:
                changes.append(change)
                if table.on_change == "withhold":
                    withheld[name] = (
                        f"{change.text}; it is withheld until its definition is reviewed and "
                        "pinned again (toolhooks mcp pin)"
                    )
                    del found[name]
                    continue
                if table.on_change == "ask":
                    ask[name] = change.text
            specs[name] = runtime.add_tool(spec_for(name, table, upstream.tools[route.tool]))
        routes.update(found)
        for prompt in upstream.prompts:
            key = prompt if not settings.prefix else f"{server}{settings.separator}{prompt}"
            prompts[key] = (server, prompt)
    # Two upstream tools under one exposed name (server "a" tool "_x" and server "a_" tool
    # "x" are both "a___x"): neither is offered, and a call by that name is refused naming
    # both, so no call can reach a server the client did not mean.
    collisions = {
        name: "Tool name "
        + repr(name)
        + " is ambiguous: it names "
        + " and ".join(f"tool {r.tool!r} of server {r.server!r}" for r in found_by)
        + "; neither is offered (rename a server in [mcp.servers] or set a separator)"
        for name, found_by in owners.items()
        if len(found_by) > 1
    }
    for name, reason in collisions.items():
        if name not in known_collisions:
            logger.warning("toolhooks-mcp: %s", reason)
        routes.pop(name, None)
    return Catalog(routes, prompts, collisions, specs, withheld, ask, tuple(changes))
