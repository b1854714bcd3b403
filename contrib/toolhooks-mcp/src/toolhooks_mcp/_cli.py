"""``toolhooks mcp ...``: registered on the core CLI through the ``toolhooks.commands`` group."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from toolhooks.cli import (
    OK,
    PROBLEMS,
    UsageError,
    add_config_option,
    config_path,
    print_json,
)

from ._config import McpTable

DESCRIPTION = """\
Put the toolhooks pipeline in front of MCP servers: every tools/call of every server in
[mcp.servers] goes through the policy fence, hooks, approvals, loop detection, the result
budget and the audit log."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the MCP servers of [mcp.servers] through the pipeline (serve, servers, pin, "
        "wrap)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(title="commands", dest="mcp_command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="serve the proxy over stdio (for an MCP client's config) or streamable HTTP",
        description="Serve the proxy. Without --http it speaks MCP on stdin/stdout, as an "
        "MCP client's config starts it; logs go to stderr.",
    )
    serve.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=None,
        help="serve streamable HTTP at http://HOST:PORT/mcp instead (HOST defaults to 127.0.0.1)",
    )
    add_config_option(serve)
    serve.set_defaults(func=run_serve)
    servers = commands.add_parser(
        "servers", help="list the configured upstream servers and how their tools are named"
    )
    servers.add_argument("--json", action="store_true", help="print the servers as JSON")
    add_config_option(servers)
    servers.set_defaults(func=run_servers)
    wrap = commands.add_parser(
        "wrap",
        help="route every server of a Claude-style mcpServers file through toolhooks (and undo)",
        description="Print (or with --write, do) what routes every server of FILE, a JSON file "
        "with an mcpServers object (claude_desktop_config.json, .cursor/mcp.json), through the "
        "proxy: [mcp.servers] tables for toolhooks.toml (next to FILE, or --config) and FILE "
        "with one toolhooks server. The original is kept as FILE.before-toolhooks; --undo puts "
        "it back.",
    )
    wrap.add_argument("file", metavar="FILE", help="the MCP client's JSON config")
    action = wrap.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="write the files instead of printing")
    action.add_argument(
        "--undo", action="store_true", help="restore FILE from FILE.before-toolhooks"
    )
    add_config_option(wrap)
    wrap.set_defaults(func=run_wrap)
    pin = commands.add_parser(
        "pin",
        help="pin every upstream tool's definition in toolhooks.lock (--check: CI)",
        description="Start every server of [mcp.servers], list its tools and write a sha256 of "
        "each tool's description, input schema, output schema and annotations under [mcp] in "
        "toolhooks.lock (next to the config). Once pinned, a tool whose definition changes is "
        "withheld, asks or warns, as its server's on_change says, until pinned again. --check "
        "writes nothing: exit 0 when every tool matches its pin, else exit 1 listing the "
        "differences.",
    )
    pin.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 listing every difference"
    )
    pin.add_argument("--json", action="store_true", help="print the result as JSON")
    add_config_option(pin)
    pin.set_defaults(func=run_pin)
    parser.set_defaults(func=lambda args: _help(parser))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def settings_of(args: argparse.Namespace) -> McpTable:
    from toolhooks import load_config

    table = load_config(config_path(args)).tables.get("mcp")
    return table if isinstance(table, McpTable) else McpTable()


def run_servers(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    rows = []
    for name, table in settings.servers.items():
        target = table.url or " ".join([table.command or "", *table.args])
        example = "<tool>" if not settings.prefix else f"{name}{settings.separator}<tool>"
        rows.append(
            {
                "server": name,
                "transport": "http" if table.url else "stdio",
                "target": target,
                "trusted": table.trusted,
                "tools_named": example,
            }
        )
    if args.json:
        print_json(rows)
        return OK
    if not rows:
        print("no [mcp.servers] configured", file=sys.stderr)
        return PROBLEMS
    for row in rows:
        trust = "trusted" if row["trusted"] else "untrusted"
        print(
            f"{row['server']}  {row['transport']}  {trust}  {row['tools_named']}  {row['target']}"
        )
    return OK


def run_serve(args: argparse.Namespace) -> int:
    import anyio

    from ._proxy import Proxy

    proxy = Proxy(config_path(args))
    if not proxy.settings.servers:
        print("toolhooks mcp serve: no [mcp.servers] in the config", file=sys.stderr)
        return PROBLEMS
    if args.http is None:
        anyio.run(proxy.serve_stdio)
        return OK
    from ._http import parse_address, serve_http

    try:
        host, port = parse_address(args.http)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    anyio.run(serve_http, proxy, host, port)
    return OK


def run_pin(args: argparse.Namespace) -> int:
    import anyio
    from toolhooks import load_config
    from toolhooks.kit import read_lock_table, write_lock_table

    from ._pins import differences, pins_from, render
    from ._upstream import listings

    config = load_config(config_path(args))
    table = config.tables.get("mcp")
    settings = table if isinstance(table, McpTable) else McpTable()
    if not settings.servers:
        print("toolhooks mcp pin: no [mcp.servers] in the config", file=sys.stderr)
        return PROBLEMS
    listed, down = anyio.run(listings, settings)
    for server, reason in sorted(down.items()):
        print(f"toolhooks mcp pin: MCP server {server!r} did not start: {reason}", file=sys.stderr)
    if down:
        return PROBLEMS
    if args.check:
        found = differences(pins_from(read_lock_table(config, "mcp")), listed)
        if args.json:
            print_json({"ok": not found, "differences": found})
        elif found:
            print("the MCP tools differ from their pins:")
            for line in found:
                print(f"  - {line}")
            print("review the changes, then run `toolhooks mcp pin` to approve them")
        else:
            print(f"every tool matches its pin ({sum(map(len, listed.values()))} tools)")
        return PROBLEMS if found else OK
    target = write_lock_table(config, "mcp", render(listed))
    count = sum(map(len, listed.values()))
    if args.json:
        print_json({"lock": str(target), "tools": count})
    else:
        print(f"wrote {target}: {count} tools of {len(listed)} MCP servers pinned")
    return OK


def run_wrap(args: argparse.Namespace) -> int:
    from pathlib import Path

    from . import _wrap

    source = Path(args.file)
    if args.undo:
        _wrap.undo(source)
        print(f"toolhooks: {source} is back as it was before toolhooks mcp wrap", file=sys.stderr)
        return OK
    given = getattr(args, "config", None)
    target = Path(given) if given else source.absolute().parent / "toolhooks.toml"
    wrapped = _wrap.wrap(_wrap.read_client_file(source), target, source)
    if not args.write:
        print(f"# {target}")
        print(wrapped.toml)
        print(f"# {source}")
        print(json.dumps(wrapped.client, indent=2))
        return OK
    _wrap.write(wrapped, source, target)
    names = ", ".join(wrapped.servers)
    print(f"toolhooks: {names} now run through toolhooks ({target}); restart the MCP client. "
          f"Undo: toolhooks mcp wrap --undo {source}", file=sys.stderr)  # fmt: skip
    return OK
