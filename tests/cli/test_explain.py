"""`toolhooks explain`: the effective policy of a scope and the handler chain of a tool."""

from __future__ import annotations

CONFIG = """
[tools]
profile = "coding"
deny = ["web_fetch"]

[tools.by_sender."role:guest"]
deny = ["group:runtime"]

[tools.by_agent.reviewer]
allow = ["read", "web_search"]

[tools.elevated]
enabled = false
"""


def verdicts(result):
    return {row["tool"]: row for row in result.json()["tools"]}


def test_table_lists_each_tool_with_the_rule(cli):
    cli.config(CONFIG)
    result = cli("explain")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert any(line.startswith("TOOL") and "DECIDED BY" in line for line in lines)
    message = next(line for line in lines if line.startswith("message "))
    assert "deny" in message and "tools.profile" in message
    web_fetch = next(line for line in lines if line.startswith("web_fetch "))
    assert "deny" in web_fetch and "tools.deny" in web_fetch
    read = next(line for line in lines if line.startswith("read "))
    assert "allow" in read
    assert "allowed," in result.out and "denied" in result.out


def test_json_verdicts_with_steps(cli):
    cli.config(CONFIG)
    result = cli("explain", "--json")
    assert result.code == 0
    data = result.json()
    assert data["scope"] == {"sender": None, "agent_id": None, "origin": "agent"}
    tools = verdicts(result)
    assert tools["exec"]["allowed"] is True and tools["exec"]["decided_by"] == "tools.profile"
    assert tools["message"]["allowed"] is False
    assert tools["message"]["reason"].startswith("Tool 'message' denied by policy")
    assert [step["step"] for step in tools["read"]["steps"]] == ["origin", "tools"]


def test_sender_scope_narrows(cli):
    cli.config(CONFIG)
    tools = verdicts(cli("explain", "--json", "--sender", "id:bob,role:guest"))
    assert tools["exec"]["allowed"] is False
    assert tools["exec"]["decided_by"] == 'tools.by_sender."role:guest".deny'
    assert tools["read"]["allowed"] is True
    repeated = verdicts(cli("explain", "--json", "--sender", "id:bob", "--sender", "role:guest"))
    assert repeated["exec"]["decided_by"] == tools["exec"]["decided_by"]
    human = cli("explain", "--sender", "id:bob,role:guest")
    assert "id:bob role:guest" in human.out


def test_agent_scope(cli):
    cli.config(CONFIG)
    tools = verdicts(cli("explain", "--json", "--agent", "reviewer"))
    assert tools["read"]["allowed"] is True
    assert tools["exec"]["allowed"] is False
    assert tools["exec"]["decided_by"].startswith("tools.by_agent.reviewer")


def test_external_origin_blocks_internal_tools_whatever_the_config(cli):
    cli.config('[tools]\nprofile = "full"\n')
    agent = verdicts(cli("explain", "--json", "--tool", "cron"))
    assert agent["cron"]["allowed"] is True
    external = verdicts(cli("explain", "--json", "--origin", "external", "--tool", "cron"))
    assert external["cron"]["allowed"] is False
    assert external["cron"]["decided_by"] == "builtin:external_origin"


def test_tag_applies_to_the_tool(cli):
    cli.config('[tools]\nprofile = "full"\n')
    plain = verdicts(cli("explain", "--json", "--tool", "deploy_prod"))
    assert plain["deploy_prod"]["allowed"] is True
    tools = verdicts(cli("explain", "--json", "--tool", "deploy_prod", "--tag", "elevated"))
    assert tools["deploy_prod"]["allowed"] is False
    assert "elevated" in tools["deploy_prod"]["decided_by"]


def test_tool_shows_steps_and_the_ordered_chain(cli):
    cli.config(
        CONFIG
        + """
[plugins.workspace_guard]
mode = "audit"
timeout_s = 2.5
on_error = "ignore"
"""
    )
    result = cli("explain", "--tool", "exec", "--sender", "role:guest")
    assert result.code == 0, result.err
    out = result.out
    assert 'exec: denied by tools.by_sender."role:guest".deny' in out
    assert "STEP" in out and "sender" in out
    assert "handlers that would run for exec, in order:" in out
    chain_lines = [
        line for line in out.splitlines() if line.split()[:1] and line.split()[0].isdigit()
    ]
    plugins = [line.split()[2] for line in chain_lines]
    assert plugins == [
        "policy",
        "loop_detection",
        "workspace_guard",
        "call_limits",
        "loop_detection",
        "workspace_guard",
        "result_budget",
    ]
    guard = next(line for line in chain_lines if "workspace_guard" in line and "before" in line)
    assert "2.5s" in guard and "ignore" in guard and "audit" in guard
    assert "policy blocks exec" in out


def test_tool_chain_json(cli):
    result = cli("explain", "--json", "--tool", "read", "--tool", "web_search")
    chains = result.json()["chains"]
    read = [(h["hook"], h["plugin"]) for h in chains["read"]]
    assert read[:3] == [
        ("before_tool_call", "policy"),
        ("before_tool_call", "loop_detection"),
        ("before_tool_call", "workspace_guard"),
    ]
    search = [h["plugin"] for h in chains["web_search"] if h["hook"] == "before_tool_call"]
    # workspace_guard only matches its tools
    assert search == ["policy", "loop_detection", "call_limits"]
    first = chains["read"][0]
    assert first == {
        "hook": "before_tool_call",
        "plugin": "policy",
        "priority": 10000,
        "timeout_s": None,
        "inline": True,
        "async": False,
        "on_error": "block",
        "mode": "enforce",
        "tools": None,
    }
    assert {v["tool"] for v in result.json()["tools"]} == {"read", "web_search"}


def test_without_policy(cli):
    cli.config('[plugins]\ndisable = ["policy"]\n')
    result = cli("explain")
    assert result.code == 0 and "policy plugin is not loaded" in result.out
    assert cli("explain", "--json").json()["policy_loaded"] is False


def test_usage_errors(cli):
    assert cli("explain", "--origin", "moon").code == 2
    bad = cli("explain", "--sender", "team:x")
    assert bad.code == 2 and "--sender 'team:x'" in bad.err
    assert cli("explain", "--tag", "elevated").code == 2


def test_invalid_policy_config_exit_1(cli):
    cli.config('[tools]\nprofile = "nonsense"\n')
    result = cli("explain")
    assert result.code == 1 and "unknown profile" in result.err
