"""Issue #34 item 6: an ask from a [[rules]] rule on the approvals desk shows the rule, its reason
and what it matched, and an approval there lets the agent run exactly the frozen params."""

from __future__ import annotations

from typing import Any

from toolhooks import Runtime


def test_the_desk_shows_the_rule_and_what_it_matched(config: dict[str, Any], tmp_path, api):
    rules = [
        {
            "id": "egress",
            "tools": ["exec"],
            "command": ["curl"],
            "hosts": ["*"],
            "unless": {"hosts": ["github.com"]},
            "decision": "ask",
            "reason": "The agent wants to reach a host outside the allow list",
        }
    ]
    ran: list[dict[str, Any]] = []
    with Runtime(
        config={**config, "rules": rules},
        approver=lambda pending: "defer",
        load_entrypoints=True,
    ) as rt:
        call = {"name": "exec", "params": {"command": "curl -s https://evil.example/x"}}
        outcome = rt.call(call, execute=lambda params: ran.append(dict(params)) or "ok")
        assert outcome.status == "pending"
        [row] = api().get("/api/approvals").json()
        assert row["plugin"] == "rules" and row["tool"] == "exec"
        assert row["title"] == "The agent wants to reach a host outside the allow list"
        assert "Rule 'egress'" in row["description"] and "host evil.example" in row["description"]
        assert "curl -s https://evil.example/x" in row["description"]
        answer = api("bob").decide(row["id"], "allow-once")
        assert answer.status_code == 200, answer.text
        done = rt.resume(outcome.pending.id, execute=lambda p: ran.append(dict(p)) or "ok")
        assert done.status == "ok"
    assert ran == [{"command": "curl -s https://evil.example/x"}]
