"""Decisions agree with an independent reading of Cedar: for 10,000 generated calls, the plugin's
outcome (through ``rt.decide``) equals what ``cedarpy.is_authorized`` says on the request this
test builds itself from DESIGN.md's mapping, read with DESIGN.md's decision rules.

Nothing of the plugin is used to build the expected answer: the principal, the entities, the
context (Longs and decimals, session labels and calls, ``from``, ``now``) are spelled out here.
Hypothesis draws 200 batches of 50 calls (one session history per batch), so the 10,000 requests
cost a few seconds."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from typing import Any

import cedarpy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from toolhooks import Runtime, ToolSpec
from toolhooks.stores import text_tokens

POLICIES = """\
@id("big") @reason("Payments over 500 need finance")
forbid (principal, action == Action::"pay", resource)
when { context.input.amount.greaterThan(decimal("500.0")) } unless { principal in Role::"finance" };

@id("ask-prod") @decision("ask")
forbid (principal, action == Action::"restart", resource) when { context.input.env == "prod" };

@id("oncall") permit (principal in Group::"oncall", action == Action::"restart", resource);
@id("owners") permit (principal, action, resource) when { principal.is_owner };
@id("finance-pay") permit (principal in Role::"finance", action == Action::"pay", resource);
@id("small-pay") permit (principal, action == Action::"pay", resource)
when { context.input.amount.lessThan(decimal("100.0")) };

@id("freeze") forbid (principal, action == Action::"restart", resource)
when { context.now.weekday == 5 && context.now.hour >= 16 };

@id("web-taint") forbid (principal, action == Action::"pay", resource)
when { context.from.to.contains("web") };

@id("mail-asks") @decision("ask") forbid (principal, action, resource)
when { context.session.labels.contains("mail") };

@id("rate") forbid (principal, action == Action::"fetch", resource)
when { context.session.calls >= 30 };

@id("count") forbid (principal, action == Action::"batch", resource) when { context.input.count > 40 };

@id("overflow") forbid (principal, action == Action::"batch", resource)
when { context.input.count * 100000000000000000 < 0 };

@id("sandbox") forbid (principal, action, resource == Agent::"sandbox")
when { context.input has url && context.input.url like "*internal*" };

@id("names") permit (principal, action == Action::"fetch", resource)
when { principal has name && principal.name like "A*" };

@id("email-urgent") forbid (principal, action == Action::"pay", resource)
when { principal has channel && principal.channel == "email" && context.input has memo &&
       context.input.memo like "*urgent*" };

@id("date") forbid (principal, action == Action::"batch", resource)
when { context.now.date == "2026-12-25" };
"""

ENTITIES = [
    {
        "uid": {"type": "User", "id": "alice"},
        "attrs": {},
        "parents": [{"type": "Group", "id": "oncall"}],
    },
    {
        "uid": {"type": "User", "id": "fin"},
        "attrs": {},
        "parents": [{"type": "Role", "id": "finance"}],
    },
    {
        "uid": {"type": "Role", "id": "sre"},
        "attrs": {},
        "parents": [{"type": "Group", "id": "oncall"}],
    },
    {"uid": {"type": "Group", "id": "oncall"}, "attrs": {}, "parents": []},
]

TOOLS = {
    "pay": {
        "type": "object",
        "properties": {
            "amount": {"type": "number"},
            "to": {"type": "string"},
            "memo": {"type": "string"},
        },
        "required": ["amount", "to"],
    },
    "restart": {
        "type": "object",
        "properties": {"service": {"type": "string"}, "env": {"type": "string"}},
        "required": ["service", "env"],
    },
    "fetch": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
    "batch": {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "ratio": {"type": "number"}},
        "required": ["count"],
    },
}
IBANS = ["DE89370400440532013000", "GB29NWBK60161331926819", "FR1420041010050500013M02606"]
LABELS = ["web", "mail", "files"]
BATCHES = int(__import__("os").environ.get("CEDAR_BATCHES", "200"))
CALLS = 50


def draw_sender(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.2:
        return None
    sender: dict[str, Any] = {
        "id": rng.choice(["alice", "bob", "fin", "ann", "zed"]),
        "roles": rng.sample(["finance", "sre", "dev"], rng.randint(0, 2)),
        "is_owner": rng.random() < 0.1,
    }
    name = rng.choice([None, "Ann", "Bob", "Al"])
    channel = rng.choice([None, "email", "slack"])
    if name:
        sender["name"] = name
    if channel:
        sender["channel"] = channel
    return sender


def draw_amount(rng: random.Random) -> int | float:
    if rng.random() < 0.5:
        return rng.randint(0, 1000)
    return rng.randint(0, 100_000) / 100  # at most two digits after the point


def draw_call(rng: random.Random) -> tuple[str, dict[str, Any]]:
    tool = rng.choice(list(TOOLS))
    if tool == "pay":
        params: dict[str, Any] = {
            "amount": draw_amount(rng),
            "to": rng.choice([*IBANS, "someone"]),
        }
        if rng.random() < 0.5:
            params["memo"] = rng.choice(["rent", "urgent rent", "fee"])
    elif tool == "restart":
        params = {"service": rng.choice(["db", "web"]), "env": rng.choice(["prod", "dev"])}
    elif tool == "fetch":
        params = {"url": rng.choice(["https://a.example", "https://internal.example/x"])}
    else:
        params = {"count": rng.randint(-5, 100)}
        if rng.random() < 0.5:
            params["ratio"] = draw_amount(rng)
    return tool, params


def draw_step(rng: random.Random) -> tuple[Any, ...]:
    moment = datetime(2026, 12, 20, tzinfo=timezone.utc) + timedelta(
        minutes=rng.randint(0, 8 * 24 * 60)
    )
    return draw_call(rng), draw_sender(rng), rng.choice([None, "main", "sandbox"]), moment


def cedar_value(value: Any, schema: dict[str, Any]) -> Any:
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and schema.get("type") != "number":
        return value
    text = str(value) if isinstance(value, int) else repr(value)
    return {"__extn": {"fn": "decimal", "arg": text if "." in text else text + ".0"}}


def expected_request(
    tool: str,
    params: dict[str, Any],
    sender: Any,
    agent: Any,
    moment: datetime,
    session: str,
    labels: dict[str, set[str]],
    count: int,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    props = TOOLS[tool]["properties"]
    uid = "anonymous" if sender is None else sender["id"]
    listed = next((e for e in ENTITIES if e["uid"] == {"type": "User", "id": uid}), None)
    attrs: dict[str, Any] = {}
    parents = [{"type": "Role", "id": r} for r in (sender or {}).get("roles", [])]
    if listed is not None:
        parents += [p for p in listed["parents"] if p not in parents]
    for key in ("name", "channel"):
        if sender and sender.get(key) is not None:
            attrs[key] = sender[key]
    attrs["is_owner"] = bool(sender and sender.get("is_owner"))
    principal = {"uid": {"type": "User", "id": uid}, "attrs": attrs, "parents": parents}
    entities = [e for e in ENTITIES if e["uid"] != principal["uid"]] + [principal]
    carried = sorted(label for label, tokens in labels.items() if tokens)
    # Every param of the call and of the tool's schema (an absent one has no labels).
    sources = {
        name: sorted(
            label
            for label, tokens in labels.items()
            if isinstance(params.get(name), str) and params[name].lower() in tokens
        )
        for name in [*params, *(name for name in props if name not in params)]
    }
    request = {
        "principal": {"type": "User", "id": uid},
        "action": {"type": "Action", "id": tool},
        "resource": {"type": "Agent", "id": agent or "default"},
        "context": {
            "input": {k: cedar_value(v, props[k]) for k, v in params.items()},
            "session": {"id": session, "labels": carried, "calls": count},
            "from": sources,
            "now": {
                "date": moment.strftime("%Y-%m-%d"),
                "hour": moment.hour,
                "weekday": moment.isoweekday(),
            },
            "exec": {
                **{
                    k: []
                    for k in ("programs", "subcommands", "flags", "args", "paths", "names", "hosts")
                },
                "opaque": False,
                "unknown": False,
            },
        },
    }
    return request, entities


def _annotated() -> dict[str, tuple[str, str | None]]:
    found = json.loads(cedarpy.policies_to_json_str(POLICIES))["staticPolicies"]
    return {
        pid: (body["effect"], body.get("annotations", {}).get("decision"))
        for pid, body in found.items()
    }


ANNOTATED = _annotated()
PARSED = cedarpy.PolicySet.from_str(POLICIES)
PERMITS = cedarpy.PolicySet.from_str(
    "\n".join(s for s in (p + ";" for p in POLICIES.split(";") if p.strip()) if "permit" in s)
)


_HANDLES: dict[str, Any] = {}


def entities_handle(entities: list[dict[str, Any]]) -> Any:
    """The test's own parse of its entities (kept per distinct text: 10,000 parses cost more
    than the decisions checked)."""
    text = json.dumps(entities, sort_keys=True)
    if text not in _HANDLES:
        _HANDLES[text] = cedarpy.Entities.from_json_str(text)
    return _HANDLES[text]


def expected_outcome(request: dict[str, Any], entities: list[dict[str, Any]], default: str) -> str:
    """DESIGN.md's decision rules on Cedar's own answer."""
    answer = cedarpy.is_authorized(request, PARSED, entities_handle(entities))
    if answer.diagnostics.errors:
        return "blocked"
    reasons = [ANNOTATED[r] for r in answer.diagnostics.reasons]
    if answer.decision == cedarpy.Decision.Allow:
        return "allowed"
    forbids = [r for r in reasons if r[0] == "forbid"]
    if any(decision != "ask" for _, decision in forbids):
        return "blocked"
    if forbids:
        if default == "deny":
            again = cedarpy.is_authorized(request, PERMITS, entities_handle(entities))
            if again.decision != cedarpy.Decision.Allow:
                return "blocked"
        return "pending"
    return "blocked" if default == "deny" else "allowed"


def _runtime(root: Any, default: str) -> Runtime:
    folder = root / default
    (folder / "policies").mkdir(parents=True)
    (folder / "policies" / "p.cedar").write_text(POLICIES)
    (folder / "entities.json").write_text(json.dumps(ENTITIES))
    (folder / "toolhooks.toml").write_text(
        '[tools]\nprofile = "full"\n[plugins]\ndisable = ["loop_detection"]\n'
        f'[plugins.cedar]\npolicies = ["policies/*.cedar"]\nentities = "entities.json"\n'
        f'default = "{default}"\nreload = false\n'
    )
    tools = [ToolSpec(name, name, schema) for name, schema in TOOLS.items()]
    return Runtime(config=folder / "toolhooks.toml", tools=tools)


def test_the_plugin_decides_as_cedar_does_on_10000_requests(tmp_path: Any) -> None:
    runtimes = {default: _runtime(tmp_path, default) for default in ("none", "deny")}
    checked = {"n": 0}
    batch = {"n": 0}

    @settings(
        max_examples=BATCHES,
        deadline=None,
        derandomize=True,
        phases=[Phase.generate],
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        default=st.sampled_from(["none", "deny"]),
        history=st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(IBANS)), max_size=3),
        seed=st.integers(min_value=0, max_value=2**32 - 1),
    )
    def check(default: str, history: list[tuple[str, str]], seed: int) -> None:
        # Hypothesis draws the batch's seed; the 50 calls come from it (drawing each value
        # through Hypothesis would cost more than the 10,000 decisions checked).
        rng = random.Random(seed)
        plan = [draw_step(rng) for _ in range(CALLS)]
        rt = runtimes[default]
        batch["n"] += 1
        session = f"s{batch['n']}"
        labels: dict[str, set[str]] = {label: set() for label in LABELS}
        for label, iban in history:
            tokens = text_tokens(f"please wire the money to {iban} now")
            rt.label_store.record(session, [label], tokens)
            labels[label] |= tokens
        plugin = rt.get_plugin("cedar")
        for count, ((tool, params), sender, agent, moment) in enumerate(plan):
            plugin.clock = lambda moment=moment: moment
            proposal: dict[str, Any] = {"name": tool, "params": params, "session_id": session}
            if sender is not None:
                proposal["sender"] = sender
            if agent is not None:
                proposal["agent_id"] = agent
            decision = rt.decide(proposal)
            request, entities = expected_request(
                tool, params, sender, agent, moment, session, labels, count
            )
            want = expected_outcome(request, entities, default)
            assert decision.status == want, (default, proposal, request, decision.reason)
            if want == "blocked":
                assert decision.blocked_by == "cedar", decision.reason
            checked["n"] += 1

    try:
        check()
    finally:
        for rt in runtimes.values():
            rt.close()
    assert checked["n"] >= BATCHES * CALLS


def test_the_time_line_covers_a_friday_evening_and_christmas() -> None:
    """The drawn times include the freeze window and the dated policy (else they test nothing)."""
    friday = datetime(2026, 12, 25, 17, tzinfo=timezone.utc)
    assert friday.isoweekday() == 5 and friday - timedelta(days=5) >= datetime(
        2026, 12, 20, tzinfo=timezone.utc
    )
