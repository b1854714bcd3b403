"""``params`` conditions: one param at a time (dotted for nested; a list matches when an element
does), never the whole JSON; ``tools`` selection (names, patterns, groups, aliases)."""

from __future__ import annotations

from toolhooks import Runtime


def runtime(*rules, **settings) -> Runtime:
    config = {"rules": list(rules), "plugins": {"only": ["rules"]}}
    if settings:
        config["plugins"]["rules"] = settings
    return Runtime(config=config)


def status(rt: Runtime, name: str, **params) -> str:
    return rt.decide({"name": name, "params": params}).status


def test_a_param_glob_matches_that_param_alone():
    rule = {
        "id": "external-mail",
        "tools": ["send_email"],
        "params": {"to": "*@example.com"},
        "unless": {"params": {"to": "*@example.com"}},
        "decision": "deny",
    }
    rule = {
        "id": "mail",
        "tools": ["send_email"],
        "params": {"to": ["*@evil.example", "*.ru"]},
        "decision": "deny",
        "reason": "no mail to those domains",
    }
    with runtime(rule) as rt:
        assert status(rt, "send_email", to="a@evil.example") == "blocked"
        assert status(rt, "send_email", to="a@corp.example") == "allowed"
        # The string appears in another param: the whole JSON is never matched.
        assert status(rt, "send_email", to="a@corp.example", body="cc a@evil.example") == "allowed"
        assert status(rt, "other_tool", to="a@evil.example") == "allowed"
        reason = rt.decide({"name": "send_email", "params": {"to": "x@evil.example"}}).reason
        assert "'mail'" in reason and "no mail to those domains" in reason
        assert "to=x@evil.example" in reason


def test_dotted_names_reach_nested_params_and_lists_match_by_element():
    rule = {"id": "prod", "params": {"target.env": "prod*", "tags": "danger"}, "decision": "ask"}
    with runtime(rule) as rt:
        assert status(rt, "deploy", target={"env": "prod-eu"}, tags=["x", "danger"]) == "pending"
        assert status(rt, "deploy", target={"env": "prod-eu"}, tags=["x"]) == "allowed"
        assert status(rt, "deploy", target={"env": "staging"}, tags=["danger"]) == "allowed"
        assert status(rt, "deploy", target="prod", tags=["danger"]) == "allowed"  # not nested
        assert status(rt, "deploy", tags=["danger"]) == "allowed"  # a missing param never holds


def test_non_string_values_match_as_their_json_text():
    rule = {"id": "force", "params": {"force": "true", "retries": "1?"}, "decision": "deny"}
    with runtime(rule) as rt:
        assert status(rt, "sync", force=True, retries=12) == "blocked"
        assert status(rt, "sync", force=False, retries=12) == "allowed"
        assert status(rt, "sync", force="true", retries=3) == "allowed"


def test_unless_params_hold_only_when_every_element_matches():
    rule = {
        "id": "recipients",
        "tools": ["send_email"],
        "params": {"to": "*"},
        "unless": {"params": {"to": "*@corp.example"}},
        "decision": "ask",
    }
    with runtime(rule) as rt:
        assert status(rt, "send_email", to=["a@corp.example", "b@corp.example"]) == "allowed"
        assert status(rt, "send_email", to=["a@corp.example", "b@evil.example"]) == "pending"
        assert status(rt, "send_email", to=[]) == "allowed"  # "*" over no element: no match


def test_tools_take_names_patterns_groups_and_aliases():
    def rule(tools):
        return {"id": "r", "tools": tools, "params": {"x": "1"}, "decision": "deny"}

    with runtime(rule(["group:web"])) as rt:
        assert status(rt, "web_fetch", x="1") == "blocked"
        assert status(rt, "read", x="1") == "allowed"
    with runtime(rule(["mcp_*"])) as rt:
        assert status(rt, "mcp_github__create_issue", x="1") == "blocked"
        assert status(rt, "exec_other", x="1") == "allowed"
    with runtime(rule(["exec"])) as rt:
        assert status(rt, "bash", x="1", command="ls") == "blocked"  # bash is exec
    with Runtime(
        config={
            "rules": [rule(["group:mine"])],
            "plugins": {"only": ["rules"]},
            "tools": {"groups": {"mine": ["deploy"]}},
        }
    ) as rt:
        assert status(rt, "deploy", x="1") == "blocked"


def test_ask_is_an_approval_with_the_rules_reason_as_the_question():
    rule = {
        "id": "big-refund",
        "tools": ["refund"],
        "params": {"amount": "[0-9][0-9][0-9]*"},
        "decision": "ask",
        "reason": "Refunds over 99 need a second person",
    }
    seen = []

    def approver(pending):
        seen.append(pending)
        return "allow-once"

    config = {"rules": [rule], "plugins": {"only": ["rules"]}}
    with Runtime(config=config, approver=approver) as rt:

        @rt.tool()
        def refund(amount: int) -> str:
            return f"refunded {amount}"

        outcome = rt.call({"name": "refund", "params": {"amount": 250}})
        assert outcome.status == "ok" and outcome.content == "refunded 250"
        assert seen[0].request.title == "Refunds over 99 need a second person"
        assert "big-refund" in seen[0].request.description
        assert seen[0].plugin == "rules"
        # A grant would cover every rule's question about the tool: only allow-once or deny.
        assert tuple(seen[0].request.allowed_decisions) == ("allow-once", "deny")
        assert rt.call({"name": "refund", "params": {"amount": 20}}).status == "ok"
        assert len(seen) == 1


def test_an_exec_call_whose_command_cannot_be_read_gets_the_opaque_decision():
    rule = {"id": "rm", "command": ["rm"], "flags": ["-r"], "decision": "deny"}
    with runtime(rule) as rt:
        assert status(rt, "exec", command=5) == "pending"
        assert status(rt, "exec", command=["rm", 3]) == "pending"
        assert status(rt, "exec", script_path="x.sh") == "pending"
        reason = rt.decide({"name": "exec", "params": {"command": 5}}).reason
        assert "cannot toolhooks see" in reason.lower() or "command" in reason
    with runtime(rule, opaque="deny") as rt:
        denied = rt.decide({"name": "exec", "params": {}})
        assert denied.status == "blocked" and "no command param" in denied.reason


def test_a_plugin_registered_by_hand_brings_its_own_rules(tmp_path):
    from toolhooks.plugins.rules import RulesPlugin

    plugin = RulesPlugin(
        {"unmatched": "deny"},
        rules=[{"id": "ok", "command": ["ls"], "decision": "allow"}],
        project=str(tmp_path),
    )
    with Runtime(config={}, plugins=[plugin], load_entrypoints=False) as rt:
        assert status(rt, "exec", command="ls -la") == "allowed"
        assert status(rt, "exec", command="ls; whoami") == "blocked"
        assert status(rt, "read", path="x") == "allowed"  # no rule covers read
