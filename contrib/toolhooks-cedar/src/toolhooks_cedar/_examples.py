"""A policy's examples, checked when the policies load (as ``[[rules]]``' ``match`` /
``not_match`` are): comment lines right above a policy,

    // match: "rm -rf /"
    // not_match: {"name": "pay", "params": {"amount": 20}, "sender": {"id": "fin", "roles": ["finance"]}}

Each example is one line of JSON: a string is an ``exec`` call of that command; an object is a
call as ``toolhooks explain --call`` takes it (``name``, ``params``, ``sender``, ``agent_id``,
``session_id``), plus what the example pins: ``now`` (``"2026-12-04T17:30"``, in the configured
time zone), ``labels`` (the session's), ``from`` (param -> labels), ``calls``. ``name`` may be
left out when the policy's scope names one action. ``match``: the policy applies to the call (a
forbid forbids it, a permit permits it); ``not_match``: it does not. The policy is evaluated
alone, so an example says what that policy does, whatever the others say.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from toolhooks import ConfigError, ToolCall, ToolSpec

from ._source import Policy
from ._values import Unrepresentable

if TYPE_CHECKING:
    from ._plugin import CedarPlugin
    from ._policyset import PolicySetData

EXAMPLE_KEYS = frozenset(
    {"name", "tool", "params", "sender", "agent_id", "session_id", "now", "labels", "from", "calls"}
)


def check_examples(data: PolicySetData, plugin: CedarPlugin) -> None:
    """Every example of every policy; the first that fails is a ConfigError naming its line."""
    import cedarpy

    for policy in data.policies:
        if not policy.examples:
            continue
        alone = cedarpy.PolicySet.from_str(policy.text)
        for kind, text, line in policy.examples:
            request, who = _request(policy, text, line, data, plugin)
            result = cedarpy.is_authorized(request, alone, data.entities_for(who))
            errors = [" ".join(str(e).split()) for e in result.diagnostics.errors]
            if errors:
                raise _error(policy, line, f"{kind} example {text}: the policy fails: {errors[0]}")
            applies = bool(result.diagnostics.reasons)
            if applies != (kind == "match"):
                said = "does not apply to" if kind == "match" else "applies to"
                raise _error(policy, line, f"{kind} example {text}: the policy {said} this call")


def _request(
    policy: Policy, text: str, line: int, data: PolicySetData, plugin: CedarPlugin
) -> tuple[dict[str, Any], Any]:
    from ._request import Who

    try:
        example = json.loads(text)
    except ValueError as error:
        raise _error(policy, line, f"an example is one line of JSON ({error}): {text}") from None
    if isinstance(example, str):
        example = {"name": "exec", "params": {"command": example}}
    if not isinstance(example, dict):
        raise _error(policy, line, f"an example is a JSON string or object: {text}")
    unknown = set(example) - EXAMPLE_KEYS
    if unknown:
        raise _error(policy, line, f"example keys {', '.join(sorted(unknown))} are not known")
    name = example.get("name", example.get("tool")) or _scoped_action(policy)
    if not isinstance(name, str):
        raise _error(
            policy, line, 'the example names no tool ("name") and the policy\'s scope no action'
        )
    moment = None
    if "now" in example:
        try:
            moment = datetime.fromisoformat(str(example["now"]))
        except ValueError:
            raise _error(
                policy, line, f"now: {example['now']!r} is not an ISO date and time"
            ) from None
    try:
        params = data.tool_params.get(name)
        call = ToolCall.from_mapping(
            {
                "name": name,
                "params": example.get("params", {}),
                **{k: example[k] for k in ("sender", "agent_id", "session_id") if k in example},
            },
            spec=None if params is None else ToolSpec(name, name, params),
        )
        request = plugin.request_of(
            call,
            data,
            moment=moment,
            labels=frozenset(example.get("labels", ())),
            sources=example.get("from", {}),
            calls=int(example.get("calls", 0)),
        )
    except (ValueError, TypeError, Unrepresentable) as error:
        raise _error(policy, line, f"the example is not a call: {error}") from None
    return request, Who.of(call.sender)


def _scoped_action(policy: Policy) -> str | None:
    import cedarpy

    body = json.loads(cedarpy.policies_to_json_str(policy.text))["staticPolicies"]
    scope = next(iter(body.values())).get("action", {})
    entity = scope.get("entity")
    if scope.get("op") == "==" and isinstance(entity, dict):
        return str(entity.get("id"))
    return None


def _error(policy: Policy, line: int, message: str) -> ConfigError:
    return ConfigError(f"{policy.called}: {message}", file=policy.file, line=line)
