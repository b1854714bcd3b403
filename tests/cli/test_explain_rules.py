"""Issue #34 item 4: ``toolhooks explain --call JSON`` shows what the rules plugin sees in a call
(its commands, paths and hosts) and what each rule made of it, escaped for the terminal."""

from __future__ import annotations

import json

CONFIG = """\
[[rules]]
id = "no-recursive-delete"
tools = ["exec"]
command = ["rm"]
flags = ["-r"]
unless = { paths = ["build/**"] }
decision = "deny"
reason = "Recursive deletes are for build/ only"

[[rules]]
id = "egress"
tools = ["exec"]
command = ["curl"]
hosts = ["*"]
unless = { hosts = ["github.com"] }
decision = "ask"
reason = "Outside the allow list"
"""


def test_the_rules_view_names_commands_paths_hosts_and_each_rule(cli):
    config = cli.cwd / "toolhooks.toml"
    config.write_text(CONFIG)
    call = {"name": "exec", "params": {"command": "sudo rm -rf src && curl https://x.example"}}
    result = cli("explain", "--config", str(config), "--call", json.dumps(call))
    assert result.code == 0, result.err
    out = result.out
    assert "call exec: blocked by rules" in out
    assert "Blocked by rule 'no-recursive-delete'" in out
    assert "rm -rf src via sudo" in out
    assert f"{cli.cwd / 'src'}" in out and "x.example" in out
    assert "egress" in out and "matched" in out
    assert "rules decision: deny (rule no-recursive-delete" in out
    found = json.loads(cli("explain", "--config", str(config), "--json", "--call",
                           json.dumps(call)).out)  # fmt: skip
    rules = found["rules"]
    assert rules["decision"] == "deny" and rules["by"]["rule"] == "no-recursive-delete"
    assert [c["program"] for c in rules["commands"]].count("rm") == 1
    assert "x.example" in rules["hosts"]
    verdicts = {(v["rule"], v["verdict"]) for v in rules["verdicts"]}
    assert ("no-recursive-delete", "matched") in verdicts and ("egress", "matched") in verdicts


def test_a_call_no_rule_covers_and_no_rules_at_all(cli):
    config = cli.cwd / "toolhooks.toml"
    config.write_text(CONFIG)
    result = cli("explain", "--config", str(config), "--call", '{"name": "read", "params": {}}')
    assert result.code == 0 and "rules decision: none (no rule covers this call)" in result.out
    config.write_text('[tools]\nprofile = "coding"\n')
    result = cli("explain", "--config", str(config), "--call", '{"name": "read", "params": {}}')
    assert result.code == 0 and "rules:" not in result.out


def test_caller_text_is_escaped(cli):
    config = cli.cwd / "toolhooks.toml"
    config.write_text(CONFIG)
    evil = "rm -rf /\x1b]0;owned\x07\x1b[2J"
    call = json.dumps({"name": "exec", "params": {"command": evil}})
    result = cli("explain", "--config", str(config), "--call", call)
    assert "\x1b" not in result.out and "\x07" not in result.out
    assert ("\\x1b" in result.out or "\\u001b" in result.out) and "no-recursive" in result.out
