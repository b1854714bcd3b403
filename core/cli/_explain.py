"""``toolhooks explain``: the effective policy for one scope, and the handler chain of a tool."""

from __future__ import annotations

import argparse
from typing import Any

from ..loading._info import HandlerInfo
from ..records._models import KNOWN_TAGS, ToolSpec
from ..records._sender import Sender
from ..runtime._runtime import Runtime
from . import _table
from ._commands import help_of
from ._common import (
    OK,
    UsageError,
    add_config_option,
    add_json_option,
    build_runtime,
    note,
    print_json,
    read_config,
    shown_config,
    tools_label,
)

DESCRIPTION = """\
Show, for one scope, whether each tool is allowed or denied and which config rule decided it.
With --tool, also every step of that tool's decision and the ordered chain of handlers that
would run for it (priority, timeout, on_error, mode).

--sender takes a by_sender key (id:alice, role:admin, name:Alice, channel:slack), repeated or
comma-separated to describe one sender: --sender id:alice,role:admin. A bare value is an id."""
SENDER_KINDS = ("id", "name", "channel", "role")
HOOKS = ("before_tool_call", "after_tool_call")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explain",
        help=help_of("explain"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sender",
        metavar="KEY",
        action="append",
        default=[],
        help="who the agent acts for (id:, name:, role:, channel:)",
    )
    parser.add_argument("--agent", metavar="ID", help="the agent id ([tools.by_agent.<id>])")
    parser.add_argument(
        "--origin",
        choices=("agent", "external"),
        default="agent",
        help="where the call comes from (default: agent)",
    )
    parser.add_argument(
        "--tool",
        metavar="NAME",
        action="append",
        default=[],
        help="explain this tool in full, with its handler chain (repeatable)",
    )
    parser.add_argument(
        "--tag",
        metavar="TAG",
        action="append",
        default=[],
        help="treat the --tool tools as tagged TAG (side_effect, elevated, internal)",
    )
    parser.add_argument(
        "--call",
        metavar="JSON",
        help="one call's decision trail: every before_tool_call handler's answer, in order, "
        "and what the rules saw (commands, paths, hosts) and each rule's verdict "
        '(e.g. \'{"name": "exec", "params": {"command": "ls"}}\'); nothing runs',
    )
    add_json_option(parser, "the verdicts and chains")
    add_config_option(parser)
    parser.set_defaults(func=run)


def parse_sender(keys: list[str]) -> Sender | None:
    """``["id:alice,role:admin"]`` -> ``Sender(id="alice", roles=("admin",))``."""
    parts = [part.strip() for key in keys for part in key.split(",") if part.strip()]
    if not parts:
        return None
    found: dict[str, str] = {}
    roles: list[str] = []
    for part in parts:
        kind, sep, value = part.partition(":")
        if not sep:
            kind, value = "id", part
        if kind not in SENDER_KINDS or not value:
            raise UsageError(
                f"--sender {part!r}: expected id:<id>, name:<name>, role:<role> or "
                "channel:<channel>"
            )
        if kind == "role":
            roles.append(value)
        elif kind in found and found[kind] != value:
            raise UsageError(f"--sender gives two values for {kind}: {found[kind]!r}, {value!r}")
        else:
            found[kind] = value
    return Sender(
        id=found.get("id", ""),
        name=found.get("name"),
        channel=found.get("channel"),
        roles=tuple(roles),
    )


def sender_label(sender: Sender | None) -> str:
    if sender is None:
        return "(none)"
    parts = [f"id:{sender.id}"] if sender.id else []
    parts += [f"name:{sender.name}"] if sender.name else []
    parts += [f"channel:{sender.channel}"] if sender.channel else []
    parts += [f"role:{role}" for role in sender.roles]
    return " ".join(parts)


def handler_dict(handler: HandlerInfo) -> dict[str, Any]:
    timeout = handler.timeout_s
    return {
        "hook": handler.hook,
        "plugin": handler.plugin,
        "priority": handler.priority,
        "timeout_s": timeout,
        "inline": handler.inline,
        "async": handler.is_async,
        "on_error": handler.on_error,
        "mode": handler.mode,
        "tools": None if handler.tools is None else list(handler.tools),
    }


def chain_of(runtime: Runtime, tool: str) -> list[HandlerInfo]:
    return [handler for hook in HOOKS for handler in runtime.handlers(hook, tool)]


def _timeout_label(handler: HandlerInfo) -> str:
    if handler.timeout_s is None:
        return "inline"
    return f"{handler.timeout_s:g}s"


def run(args: argparse.Namespace) -> int:
    if args.call is not None:
        from ._explain_call import run_call

        return run_call(args)
    sender = parse_sender(args.sender)
    _check_tags(args)
    config = read_config(args)
    runtime = build_runtime(config)
    try:
        policy = runtime.get_plugin("policy")
        explain = getattr(policy, "explain", None)
        wanted: list[str | ToolSpec] = [
            ToolSpec(name, tags=frozenset(args.tag)) for name in args.tool
        ]
        verdicts: list[Any] = []
        if callable(explain):
            tools = wanted or None
            verdicts = list(
                explain(sender=sender, agent_id=args.agent, origin=args.origin, tools=tools)
            )
        chains = {name: chain_of(runtime, name) for name in args.tool}
    finally:
        runtime.close()
    scope = {
        "sender": None if sender is None else sender_label(sender),
        "agent_id": args.agent,
        "origin": args.origin,
    }
    if args.json:
        print_json(
            {
                "config": config.file,
                "scope": scope,
                "policy_loaded": callable(explain),
                "tools": [verdict.to_dict() for verdict in verdicts],
                "chains": {
                    name: [handler_dict(h) for h in chain] for name, chain in chains.items()
                },
            }
        )
        return OK
    print(
        _table.pairs(
            [
                ("config", shown_config(config)),
                ("sender", sender_label(sender)),
                ("agent", args.agent or "(none)"),
                ("origin", args.origin),
            ]
        )
    )
    print()
    if not callable(explain):
        print("the policy plugin is not loaded: no tool is denied by policy")
    elif not args.tool:
        _print_verdicts(verdicts)
    for index, name in enumerate(args.tool):
        verdict = next((v for v in verdicts if v.tool == name), None)
        if index:
            print()
        _print_tool(name, verdict, chains[name])
    return OK


def _check_tags(args: argparse.Namespace) -> None:
    if args.tag and not args.tool:
        raise UsageError("--tag applies to the --tool tools; give --tool NAME too")
    for tag in dict.fromkeys(args.tag):
        if tag not in KNOWN_TAGS:
            known = ", ".join(sorted(KNOWN_TAGS))
            note(f"--tag {tag!r} is not a tag toolhooks knows ({known}): it changes no verdict")


def _print_verdicts(verdicts: list[Any]) -> None:
    rows = [[v.tool, "allow" if v.allowed else "deny", v.decided_by, v.detail] for v in verdicts]
    print(
        _table.render(
            ["TOOL", "VERDICT", "DECIDED BY", "DETAIL"],
            rows,
            wrap=3,
            flex=[3, 0, 2],
            status=[1],
            empty="(no tools known)",
        )
    )
    allowed = sum(1 for v in verdicts if v.allowed)
    print()
    print(
        _table.paragraph(
            f"{allowed} allowed, {len(verdicts) - allowed} denied; "
            "`--tool NAME` shows every step and the handler chain"
        )
    )


def _print_tool(name: str, verdict: Any, chain: list[HandlerInfo]) -> None:
    if verdict is not None:
        state = "allowed" if verdict.allowed else "denied"
        print(_table.paragraph(f"{name}: {state} by {verdict.decided_by} ({verdict.detail})"))
        print()
        steps = [[s.step, s.rule, s.effect, s.detail] for s in verdict.steps]
        headers = ["STEP", "RULE", "EFFECT", "DETAIL"]
        print(_table.render(headers, steps, wrap=3, flex=[3, 1], status=[2], indent="  "))
        print()
    print(_table.paragraph(f"handlers that would run for {name}, in order:"))
    rows = [
        [
            str(number),
            h.hook,
            h.plugin,
            h.priority,
            _timeout_label(h),
            h.on_error,
            h.mode,
            tools_label(h.tools),
        ]
        for number, h in enumerate(chain, 1)
    ]
    print(
        _table.render(
            ["#", "HOOK", "PLUGIN", "PRIORITY", "TIMEOUT", "ON_ERROR", "MODE", "TOOLS"],
            rows,
            align=["right", "left", "left", "right"],
            flex=[7],
            drop=[4, 6, 5],
            indent="  ",
            empty="(no handlers)",
        )
    )
    if verdict is not None and not verdict.allowed:
        print()
        print(
            _table.paragraph(
                f"policy blocks {name}: the before_tool_call handlers after it do not run; "
                "the after_tool_call handlers still see the blocked result",
                indent="  ",
            )
        )
