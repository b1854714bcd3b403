"""``toolhooks explain --call JSON``: one call's decision trail (``_trail``) and, with the rules
plugin loaded, what it saw in the call (commands, paths, hosts) and each rule's verdict."""

from __future__ import annotations

import argparse
from typing import Any

from ..runtime._runtime import Runtime
from . import _table
from ._common import OK, PROBLEMS, build_runtime, print_json, read_config


def run_call(args: argparse.Namespace) -> int:
    """``--call JSON``: the decision trail (every before_tool_call handler's answer) and, when
    the rules plugin is loaded, what it saw in the call and what each rule made of it."""
    from ._trail import parse_call, trail

    proposal = parse_call(args.call)
    runtime = build_runtime(read_config(args))
    try:
        found = trail(runtime, proposal)
        rules = _rules_view(runtime, proposal)
    finally:
        runtime.close()
    if args.json:
        print_json({**found, "rules": rules})
        return OK if found["status"] != "error" else PROBLEMS
    rows = [[str(s["priority"]), s["plugin"], s["answer"]] for s in found["steps"]]
    print(f"call {_table.clean(found['tool'])}: {found['status']}", end="")
    if found["blocked_by"]:
        print(f" by {_table.clean(found['blocked_by'])}", end="")
    print()
    if found["reason"]:
        print(f"  {_table.clean(found['reason'])}")
    headers = ["PRIORITY", "PLUGIN", "ANSWER"]
    print(_table.render(headers, rows, align=["right", "left", "left"], wrap=2, flex=[2]))
    if rules is not None:
        print()
        _print_rules(rules)
    return OK if found["status"] != "error" else PROBLEMS


def _rules_view(runtime: Runtime, proposal: dict[str, Any]) -> dict[str, Any] | None:
    """The rules plugin's view of the call (None when it is not loaded or the call is invalid)."""
    plugin = runtime.get_plugin("rules")
    explain_call = getattr(plugin, "explain_call", None)
    if not callable(explain_call):
        return None
    try:
        view: dict[str, Any] = explain_call(proposal)
    except ValueError:  # an invalid call: the trail above already says why
        return None
    except Exception as error:  # the trail shows the hook failing closed; say why here too
        return {"error": f"{type(error).__name__}: {error}", "decision": None}
    return view


def _print_rules(view: dict[str, Any]) -> None:
    clean = _table.clean
    if view.get("error"):
        print(f"rules: could not explain the call: {clean(view['error'])}")
        return
    covering = view.get("covering", [])
    named = f" ({', '.join(map(clean, covering))})" if covering else ""
    print(
        _table.paragraph(
            f"rules: {view.get('rules', 0)} in the config, {len(covering)} cover "
            f"{clean(view.get('tool'))}{named}"
        )
    )
    if view.get("opaque"):
        print(_table.paragraph(f"opaque: {clean(view['opaque'])}", indent="  "))
    commands = view.get("commands", [])
    _print_commands(commands)
    for kind in ("paths", "hosts"):
        items = view.get(kind, [])
        print(f"{kind}: " + (", ".join(clean(item) for item in items) if items else "(none)"))
    _print_verdicts(view.get("verdicts", []), bool(commands))
    print(f"rules decision: {_decision(view)}")


def _print_commands(commands: list[dict[str, Any]]) -> None:
    clean = _table.clean
    if commands:
        print("commands:")
    for number, command in enumerate(commands, 1):
        argv = " ".join("<unknown>" if w is None else clean(w) for w in command["argv"])
        via = f" via {clean(' > '.join(command['via']))}" if command["via"] else ""
        print(f"  {number}. {argv}{via} (in {clean(command['cwd'])})")


def _print_verdicts(verdicts: list[dict[str, Any]], exec_call: bool) -> None:
    """One row per rule that matched, was uncertain or excepted a command; one "no match" row
    for a rule that matched nothing."""
    clean = _table.clean
    rows = []
    for rule in dict.fromkeys(v["rule"] for v in verdicts):
        own = [v for v in verdicts if v["rule"] == rule and v["verdict"] != "no match"]
        if not own:
            rows.append([clean(rule), "(every command)" if exec_call else "", "no match", ""])
        rows += [[clean(rule), clean(v["subject"]), v["verdict"], clean(v["detail"])] for v in own]
    if rows:
        headers = ["RULE", "SUBJECT", "VERDICT", "DETAIL"]
        print(_table.render(headers, rows, wrap=3, flex=[1, 0, 2], indent="  "))


def _decision(view: dict[str, Any]) -> str:
    decision = view.get("decision")
    if decision is None:
        return "none (no rule covers this call)"
    by = view.get("by")
    if by is None:
        return str(decision)
    rule = f" {_table.clean(by['rule'])}" if by.get("rule") else ""
    return f"{decision} ({_table.clean(by['kind'])}{rule}: {_table.clean(by['matched'])})"
