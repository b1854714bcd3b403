"""Issue #41: what the Cedar plugin adds to a call, against cedarpy's own evaluation.

Rows, interleaved in one run (bench/timing.py), on one ``pay`` call by a sender with a role, in a
session, under eight policies like docs/how-to/cedar.md's (a decimal amount, roles and groups
from an entities file, a time window, provenance, session calls, shell facts):

- cedarpy.is_authorized, pre-parsed: ``cedarpy.is_authorized(request, PolicySet, Entities)`` on
  the request the plugin builds for this call, handles parsed once, the same request object
  every call; then the same on a fresh (equal) request each call, and the cost of making it;
- cedarpy.is_authorized on what the plugin sends: the policies the call's action can meet and
  the context parts they name (the plugin leaves the rest out: Cedar's cost is mostly the
  context), fresh each call;
- rt.decide, Cedar policies: the call through a runtime whose ``[plugins.cedar]`` has them;
- rt.decide, Cedar, cedarpy's answer given: the same, with the plugin's call of cedarpy handing
  back the answer it would compute (the plugin's cost around the evaluation, in the pipeline);
- rt.decide, no Cedar (installed): the same runtime without ``[plugins.cedar]`` (the plugin is
  installed; ``off_until_configured`` keeps it out of the chain);
- rt.decide, Cedar disabled: ``[plugins] disable = ["cedar"]`` (never imported).

The event log and loop detection are off in every runtime, so the differences are the plugin's.
Target (issue #41): the plugin adds at most 1.2x cedarpy's own evaluation of the same request.
Two readings are printed: against the evaluation as it runs in those calls (Cedar policies minus
answer given), and against the direct call on a fresh request (which runs in warmer caches than
a call in a pipeline does).

    python bench/cedar.py [--rounds R] [--clock cpu|wall]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cedarpy
import timing
from timing import compare, micro
from toolhooks import Runtime, ToolCall, ToolSpec

POLICIES = """\
@id("big-payments") @reason("Payments over 500 need the finance role")
forbid (principal, action == Action::"pay", resource)
when { context.input.amount.greaterThan(decimal("500.0")) } unless { principal in Role::"finance" };

@id("oncall-restarts") @decision("ask")
forbid (principal, action == Action::"restart", resource)
when { context.input.env == "prod" } unless { principal in Group::"oncall" };

@id("change-freeze")
forbid (principal, action in [Action::"deploy", Action::"restart"], resource)
when { (context.now.weekday == 5 && context.now.hour >= 16) || context.now.weekday >= 6 };

@id("provenance")
forbid (principal, action == Action::"pay", resource) when { context.from.to.contains("web") };

@id("rate") forbid (principal, action, resource) when { context.session.calls > 10000000 };

@id("no-recursive-rm")
forbid (principal, action == Action::"exec", resource)
when { context.exec.flags.containsAny(["rm -r", "rm -R", "rm --recursive"]) };

@id("no-env-read")
forbid (principal, action == Action::"exec", resource) when { context.exec.names.contains(".env") };

@id("memo") forbid (principal, action == Action::"pay", resource)
when { context.input has memo && context.input.memo like "*password*" };
"""
ENTITIES = [
    {"uid": {"type": "User", "id": "dana"}, "attrs": {"department": "finance"},
     "parents": [{"type": "Role", "id": "finance"}]},
    {"uid": {"type": "User", "id": "omar"}, "attrs": {"department": "platform"},
     "parents": [{"type": "Group", "id": "oncall"}]},
    {"uid": {"type": "Group", "id": "oncall"}, "attrs": {}, "parents": []},
]  # fmt: skip
PAY = {
    "type": "object",
    "properties": {
        "amount": {"type": "number"},
        "to": {"type": "string"},
        "memo": {"type": "string"},
    },
    "required": ["amount", "to"],
}
TOOLS = [
    ToolSpec("pay", "pay", PAY, frozenset({"side_effect"})),
    ToolSpec(
        "restart",
        "r",
        {"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]},
    ),
    ToolSpec("deploy", "d", {"type": "object", "properties": {"service": {"type": "string"}}}),
    ToolSpec("exec", "e", {"type": "object", "properties": {"command": {"type": "string"}}}),
]
CALL = {
    "name": "pay",
    "params": {"amount": 120.5, "to": "DE89370400440532013000", "memo": "rent for december"},
    "sender": {"id": "sam", "name": "Sam", "channel": "slack", "roles": ["dev"]},
    "session_id": "bench",
}
QUIET = '[tools]\nprofile = "full"\n[plugins.event_log]\nenabled = false\n' \
    '[plugins.loop_detection]\nenabled = false\n'  # fmt: skip


def runtimes(folder: Path) -> dict[str, Runtime]:
    (folder / "policies").mkdir()
    (folder / "policies" / "p.cedar").write_text(POLICIES)
    (folder / "entities.json").write_text(json.dumps(ENTITIES))
    configs = {
        "cedar": QUIET + '[plugins.cedar]\npolicies = ["policies/*.cedar"]\n'
        'entities = "entities.json"\nreload = false\n',
        "none": QUIET,
        "disabled": QUIET.replace("[tools]", '[plugins]\ndisable = ["cedar"]\n[tools]'),
    }
    made = {}
    for name, text in configs.items():
        (folder / f"{name}.toml").write_text(text)
        made[name] = Runtime(config=folder / f"{name}.toml", tools=TOOLS)
    return made


def main() -> None:
    rounds = timing.rounds_and_clock(__doc__ or "")
    with tempfile.TemporaryDirectory() as tmp:
        made = runtimes(Path(tmp))
        try:
            run(made, rounds)
        finally:
            for rt in made.values():
                rt.close()


def run(made: dict[str, Runtime], rounds: int) -> None:
    cedar = made["cedar"]
    plugin = cedar.get_plugin("cedar")
    assert plugin is not None and plugin.data is not None
    assert made["none"].get_plugin("cedar") is None, "an unconfigured Cedar plugin was loaded"
    fixed = datetime(2026, 12, 9, 12, tzinfo=timezone.utc)
    plugin.clock = lambda: fixed
    spec = next(s for s in cedar.tool_specs() if s.name == "pay")
    call = ToolCall.from_mapping(CALL, spec=spec)
    request = plugin.request_of(call, calls=3)
    handle = cedarpy.PolicySet.from_str(POLICIES)
    principal = {
        "uid": {"type": "User", "id": "sam"},
        "attrs": {"name": "Sam", "channel": "slack", "is_owner": False},
        "parents": [{"type": "Role", "id": "dev"}],
    }
    entities = cedarpy.Entities.from_json_str(json.dumps([*ENTITIES, principal]))
    direct = cedarpy.is_authorized(request, handle, entities)
    assert direct.decision == cedarpy.Decision.Deny and not direct.diagnostics.errors
    assert cedar.decide(CALL).status == "allowed"  # no forbid applies, no permit: no opinion

    engine = plugin._load_engine()
    real = engine._is_authorized
    # What the plugin sends: the policies pay can meet, the context parts they name.
    part = plugin.data.slice_for("pay")
    sent = engine.request_of(plugin, call, plugin.data, calls=3, part=part)
    answer = real(sent, part.handle, plugin.data.entities_for(_who(call)))
    assert answer.decision == direct.decision and not answer.diagnostics.errors
    text = json.dumps(request)
    sent_text = json.dumps(sent)

    def stubbed() -> object:
        # The same call with cedarpy's answer handed back instead of computed: what the plugin
        # costs around the evaluation, measured in the pipeline.
        engine._is_authorized = lambda *args: answer
        try:
            return cedar.decide(CALL)
        finally:
            engine._is_authorized = real

    rows = {
        "cedarpy.is_authorized, pre-parsed": lambda: cedarpy.is_authorized(
            request, handle, entities
        ),
        "  same, a fresh request each call": lambda: cedarpy.is_authorized(
            json.loads(text), handle, entities
        ),
        "  (making the fresh request)": lambda: json.loads(text),
        "cedarpy.is_authorized, the plugin's slice and context": lambda: cedarpy.is_authorized(
            json.loads(sent_text), part.handle, entities
        ),
        "  (making that request)": lambda: json.loads(sent_text),
        "rt.decide, Cedar policies": lambda: cedar.decide(CALL),
        "rt.decide, Cedar, cedarpy's answer given": stubbed,
        "rt.decide, no Cedar (installed)": lambda: made["none"].decide(CALL),
        "rt.decide, Cedar disabled": lambda: made["disabled"].decide(CALL),
    }
    timings = compare(rows, rounds)
    print(f"Cedar plugin, {rounds} rounds, {timing.clock.__name__} clock\n")
    print("| row | per call |\n|---|---|")
    for label, found in timings.items():
        print(f"| {label} | {micro(found.median)} |")

    def samples(label: str) -> list[float]:
        return timings[label].samples

    rounds_of = list(
        zip(
            samples("rt.decide, Cedar policies"),
            samples("rt.decide, Cedar, cedarpy's answer given"),
            samples("rt.decide, no Cedar (installed)"),
            samples("  same, a fresh request each call"),
            samples("  (making the fresh request)"),
            samples("cedarpy.is_authorized, the plugin's slice and context"),
            samples("  (making that request)"),
            strict=True,
        )
    )
    in_situ = statistics.median((c - n) / (c - s) for c, s, n, *_ in rounds_of)
    direct = statistics.median((c - n) / (f - m) for c, _, n, f, m, _, _ in rounds_of)
    sliced = statistics.median((c - n) / (f - m) for c, _, n, _, _, f, m in rounds_of)
    around = statistics.median((s - n) / (c - s) for c, s, n, *_ in rounds_of)
    print(
        f"\nadded by the plugin / cedarpy's evaluation in the same calls: {in_situ:.2f}x "
        f"(target <= 1.2x): {'met' if in_situ <= 1.2 else 'NOT met'}"
    )
    print(f"  the plugin around the evaluation / the evaluation: {around:.2f}")
    print(
        f"added by the plugin / a direct call on a fresh request: {direct:.2f}x "
        f"(target <= 1.2x): {'met' if direct <= 1.2 else 'NOT met'}"
    )
    print(f"added by the plugin / a direct call on what the plugin sends: {sliced:.2f}x")
    none, disabled = (
        samples("rt.decide, no Cedar (installed)"),
        samples("rt.decide, Cedar disabled"),
    )
    idle = statistics.median((n - d) / d for n, d in zip(none, disabled, strict=True))
    same = [h.plugin for h in made["none"].handlers("before_tool_call", "pay")] == [
        h.plugin for h in made["disabled"].handlers("before_tool_call", "pay")
    ]
    print(
        f"no Cedar (installed, unconfigured) vs disabled: {idle:+.1%} per call (same chain: {same})"
    )


def _who(call: ToolCall) -> object:
    from toolhooks_cedar._request import Who

    return Who.of(call.sender)


if __name__ == "__main__":
    main()
