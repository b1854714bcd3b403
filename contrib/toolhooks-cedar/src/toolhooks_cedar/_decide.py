"""Cedar's answer as a toolhooks decision.

Strictest wins: a policy whose evaluation errors counts as a matching forbid (fail closed); a
plain ``forbid`` blocks; a ``forbid`` annotated ``@decision("ask")`` asks; with ``default =
"deny"`` a call no permit allows is blocked, even when an ask forbid also matched; Allow, and no
decision with ``default = "none"``, are no opinion (other plugins may still block).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from ._policyset import PolicySetData
from ._source import Policy

_POLICY_IN_ERROR: Final = re.compile(r"policy `([^`]+)`")


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What the plugin does with a call: ``None`` no opinion, ``block``, or ``ask``."""

    decision: Literal["block", "ask"] | None
    policy: Policy | None = None
    """The policy that decided (the first in file order), None for a default or a failure."""
    why: str = ""
    """The reason the model or the approver reads."""
    matched: tuple[str, ...] = ()
    """Every policy that matched (names), for the event."""
    errors: tuple[str, ...] = ()


NO_OPINION: Final = Verdict(decision=None)


def decide(
    data: PolicySetData,
    result: Any,
    default: str,
    request: dict[str, Any],
    entities: Any,
    by_id: Mapping[str, Policy] | None = None,
) -> Verdict:
    """The verdict for cedarpy's ``result`` on ``request`` (``entities``: its entity set;
    ``by_id``: Cedar's ids of the policy set evaluated, default the whole set's)."""
    ids = data.by_id if by_id is None else by_id
    diagnostics = result.diagnostics
    if diagnostics.errors:
        return _failed(ids, tuple(" ".join(str(e).split()) for e in diagnostics.errors))
    said = diagnostics.reasons
    if not said and default != "deny":
        return NO_OPINION  # no policy applied (Allow needs a permit, which would be a reason)
    reasons = [ids[r] for r in said if r in ids]
    reasons.sort(key=lambda p: int(p.cedar_id.removeprefix("policy")))
    names = tuple(p.name for p in reasons)
    if result.decision.value == "Allow":
        return Verdict(decision=None, matched=names)
    forbids = [p for p in reasons if p.effect == "forbid"]
    plain = [p for p in forbids if not p.asks]
    if plain:
        return Verdict(decision="block", policy=plain[0], why=_because(plain[0]), matched=names)
    if forbids:
        if default == "deny" and not _permitted(data, request, entities):
            return Verdict(
                decision="block",
                why=f'no Cedar policy permits this call (default = "deny"); '
                f"{forbids[0].name} would also ask",
                matched=names,
            )
        return Verdict(decision="ask", policy=forbids[0], why=_because(forbids[0]), matched=names)
    if default == "deny":
        return Verdict(decision="block", why='no Cedar policy permits this call (default = "deny")')
    return Verdict(decision=None)


def _permitted(data: PolicySetData, request: dict[str, Any], entities: Any) -> bool:
    """Whether a permit allows the request (Cedar hides permits behind a matching forbid)."""
    import cedarpy

    if len(data.permits) == 0:
        return False
    again = cedarpy.is_authorized(request, data.permits, entities)
    return bool(again.decision.value == "Allow" and not again.diagnostics.errors)


def _because(policy: Policy) -> str:
    said = policy.reason
    at = f" ({policy.where})" if policy.name != policy.where else ""
    return f"Cedar policy {policy.name!r}{at}" + (
        f": {said}" if said and said != policy.name else ""
    )


def _failed(by_id: Mapping[str, Policy], errors: tuple[str, ...]) -> Verdict:
    """An evaluation error: the policy it names counts as a matching forbid (fail closed)."""
    for error in errors:
        found = _POLICY_IN_ERROR.search(error)
        policy = by_id.get(found.group(1)) if found else None
        if policy is not None:
            detail = error.split(": ", 1)[-1]
            return Verdict(
                decision="block",
                policy=policy,
                why=f"Cedar policy {policy.name!r} ({policy.where}) failed to evaluate, which "
                f"blocks (fail closed): {detail}",
                errors=errors,
            )
    return Verdict(
        decision="block",
        why=f"Cedar could not evaluate the call, which blocks (fail closed): {errors[0]}",
        errors=errors,
    )
