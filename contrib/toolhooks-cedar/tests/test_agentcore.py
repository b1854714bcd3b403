"""AgentCore Policy's documented examples, rewritten to this mapping, decide as its docs say.

AgentCore writes ``principal is AgentCore::OAuthUser`` with the token's ``username`` tag and
``action == AgentCore::Action::"<target>___<tool>"``; here the principal is ``User::"<sender
id>"`` with the sender's ``name``, and the action is the tool. AgentCore denies what no permit
allows (``default = "deny"``), and a forbid wins over a permit."""

from __future__ import annotations

from typing import Any

from toolhooks import ToolSpec

REFUNDS = """\
// AgentCore's refund example: only John, and only under 500.
@id("john-refunds-under-500")
// match: {"params": {"amount": 400, "order": "A1"}, "sender": {"id": "u1", "name": "John"}}
// not_match: {"params": {"amount": 600, "order": "A1"}, "sender": {"id": "u1", "name": "John"}}
// not_match: {"params": {"amount": 100, "order": "A1"}, "sender": {"id": "u2", "name": "Jane"}}
permit (principal, action == Action::"process_refund", resource)
when { principal has name && principal.name == "John" && context.input.amount < 500 };

// A forbid wins over any permit (Cedar's semantics, as AgentCore documents them).
@id("no-refunds-on-closed-orders")
forbid (principal, action == Action::"process_refund", resource)
when { context.input.order like "CLOSED-*" };

// Reading a refund's status is open to every signed-in user.
@id("anyone-reads-status")
permit (principal, action == Action::"get_refund_status", resource)
unless { principal == User::"anonymous" };
"""

REFUND = {
    "type": "object",
    "properties": {"amount": {"type": "integer"}, "order": {"type": "string"}},
    "required": ["amount", "order"],
}
STATUS = {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]}


def test_agentcore_refund_examples_decide_as_documented(project: Any) -> None:
    project.policy(REFUNDS)
    rt = project.runtime(
        default="deny",
        extra=(
            ToolSpec("process_refund", "refund", REFUND, frozenset({"side_effect"})),
            ToolSpec("get_refund_status", "status", STATUS),
        ),
    )
    john, jane = {"id": "u1", "name": "John"}, {"id": "u2", "name": "Jane"}

    def decide(tool: str, sender: Any, **params: Any) -> str:
        proposal = {"name": tool, "params": params}
        if sender is not None:
            proposal["sender"] = sender
        return str(rt.decide(proposal).status)

    assert decide("process_refund", john, amount=400, order="A1") == "allowed"
    assert decide("process_refund", john, amount=500, order="A1") == "blocked"  # "less than"
    assert decide("process_refund", john, amount=600, order="A1") == "blocked"
    assert decide("process_refund", jane, amount=100, order="A1") == "blocked"
    assert decide("process_refund", None, amount=100, order="A1") == "blocked"
    assert decide("process_refund", john, amount=100, order="CLOSED-7") == "blocked"
    assert decide("get_refund_status", jane, order="A1") == "allowed"
    assert decide("get_refund_status", None, order="A1") == "blocked"
    # default deny: a tool no policy names is blocked, with the reason saying so
    out = rt.decide({"name": "pay", "params": {"amount": 1, "to": "x"}, "sender": john})
    assert out.status == "blocked" and 'default = "deny"' in (out.reason or "")
