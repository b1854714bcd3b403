"""Issue #39's contract fixes, one test each: an unless table is read over the items that made
the rule hold; dotted params descend into lists; a path param at any depth of lists; file://
URLs in a file tool's params are paths; a block reason names the item that matched; explain
shows paths and hosts no rule needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from toolhooks import Runtime

SECRETS = {
    "id": "no-secrets",
    "paths": [".env*"],
    "unless": {"paths": [".env.example"]},
    "decision": "deny",
}
EGRESS = {
    "id": "egress",
    "tools": ["exec"],
    "command": ["curl"],
    "hosts": ["*"],
    "unless": {"hosts": ["github.com"]},
    "decision": "deny",
}


def decide(rules: list[dict[str, Any]], name: str, **params: Any) -> tuple[str, str]:
    with Runtime(config={"rules": rules, "plugins": {"only": ["rules"]}}) as rt:
        outcome = rt.decide({"name": name, "params": params})
    return outcome.status, outcome.reason or ""


def test_unless_is_read_over_the_items_that_made_the_rule_hold(project: Path):
    # KEY is a path too (grep's pattern is a word like any other): it did not make the rule hold
    assert decide([SECRETS], "exec", command="grep KEY .env.example")[0] == "allowed"
    assert decide([SECRETS], "exec", command="cat .env.example src/a.py")[0] == "allowed"
    assert decide([SECRETS], "exec", command="cat .env.example .env")[0] == "blocked"
    assert decide([SECRETS], "read", file_path=".env.example")[0] == "allowed"
    # every host that made the rule hold must be listed: the allow-listed one excepts nothing
    both = "curl https://github.com https://evil.example"
    assert decide([EGRESS], "exec", command=both)[0] == "blocked"
    assert decide([EGRESS], "exec", command="curl https://github.com/x")[0] == "allowed"
    # an unknown word is still any path: the rule may hold for it, so the call asks
    assert decide([SECRETS], "exec", command="cat .env.example $X")[0] == "pending"


def test_an_unless_on_another_kind_of_item_is_still_read_over_all_of_them(project: Path):
    rule = {"id": "rm", "command": ["rm"], "flags": ["-r"], "unless": {"paths": ["build/**"]},
            "decision": "deny"}  # fmt: skip
    assert decide([rule], "exec", command="rm -r build/a src")[0] == "blocked"
    assert decide([rule], "exec", command="rm -r build/a build/b")[0] == "allowed"


def test_a_block_reason_names_the_item_that_matched(project: Path):
    status, reason = decide([SECRETS], "exec", command="cat .env.example src/a.py .env")
    assert status == "blocked"
    assert f"path {project / '.env'}" in reason and f"path {project / 'src'}" not in reason
    status, reason = decide(
        [EGRESS], "exec", command="curl https://github.com https://evil.example"
    )
    assert "host evil.example" in reason and "host github.com" not in reason


def test_dotted_params_descend_into_lists():
    rule = {"id": "iban", "tools": ["pay"], "params": {"to.iban": "XX*"}, "decision": "deny"}
    many = [{"iban": "DE00"}, {"iban": "XX99", "name": "m"}]
    assert decide([rule], "pay", to=many)[0] == "blocked"
    assert decide([rule], "pay", to=[{"iban": "DE00"}])[0] == "allowed"
    assert decide([rule], "pay", to=[[{"iban": "XX1"}]])[0] == "blocked"  # lists of lists
    assert decide([rule], "pay", to={"iban": "XX1"})[0] == "blocked"
    assert decide([rule], "pay", to=[{"name": "XX1"}])[0] == "allowed"
    reason = decide([rule], "pay", to=many)[1]
    assert "to.iban=XX99" in reason
    # unless: every element that has the param must match
    allow = {**rule, "params": {"to.iban": "*"}, "unless": {"params": {"to.iban": "DE*"}}}
    assert decide([allow], "pay", to=[{"iban": "DE1"}, {"iban": "DE2"}])[0] == "allowed"
    assert decide([allow], "pay", to=[{"iban": "DE1"}, {"iban": "XX2"}])[0] == "blocked"


def test_a_path_param_at_any_depth_of_lists(project: Path):
    rule = {"id": "no-secrets", "paths": [".env"], "decision": "deny"}
    assert decide([rule], "batch", ops=[[{"path": ".env"}]])[0] == "blocked"
    assert decide([rule], "batch", ops=[[[{"file_path": ".env"}]]])[0] == "blocked"
    assert decide([rule], "batch", ops={"steps": [[{"path": ".env"}]]})[0] == "blocked"
    assert decide([rule], "batch", ops=[[{"path": "src/a.py"}]])[0] == "allowed"


def test_file_urls_in_a_file_tools_params_are_paths(project: Path):
    rule = {"id": "no-secrets", "paths": [".env", "~/.ssh/**"], "decision": "deny"}
    url = f"file://{project / '.env'}"
    assert decide([rule], "read", file_path=url)[0] == "blocked"
    assert decide([rule], "read", uri=url)[0] == "blocked"
    assert decide([rule], "read", sources=["x", f"file://localhost{project}/.env"])[0] == (
        "blocked"
    )
    assert decide([rule], "read", sources=[f"file://{Path.home()}/.ssh/id_rsa"])[0] == "blocked"
    assert decide([rule], "write", uri=f"FILE://{project}/%2Eenv", content="x")[0] == "blocked"
    assert decide([rule], "read", uri=f"file://{project / 'src/a.py'}")[0] == "allowed"
    # not a file tool: a URL in a message is text, not a file read
    assert decide([rule], "message", text=url)[0] == "allowed"


def test_explain_shows_paths_and_hosts_no_rule_needs(project: Path):
    rule = {"id": "rm", "tools": ["exec"], "command": ["rm"], "flags": ["-r"], "decision": "deny"}
    with Runtime(config={"rules": [rule], "plugins": {"only": ["rules"]}}) as rt:
        shown = rt.get_plugin("rules").explain_call(
            {"name": "exec", "params": {"command": "cat .env; curl https://evil.example/x"}}
        )
    assert str(project / ".env") in shown["paths"]
    assert "evil.example" in shown["hosts"]
    (project / "toolhooks.toml").write_text(
        '[plugins]\nonly = ["rules"]\n[[rules]]\nid = "rm"\ntools = ["exec"]\ncommand = ["rm"]\n'
        'flags = ["-r"]\ndecision = "deny"\n'
    )
    call = json.dumps({"name": "read", "params": {"file_path": ".env", "url": "https://x.example"}})
    done = subprocess.run(
        [sys.executable, "-m", "toolhooks", "explain", "--call", call, "--json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    rules = json.loads(done.stdout)["rules"]
    assert rules["paths"] == [str(project / ".env")] and rules["hosts"] == ["x.example"]


def test_unless_args_are_read_over_the_args_that_made_the_rule_hold(project: Path):
    rule = {
        "id": "installs",
        "tools": ["exec"],
        "command": ["npm", "install"],
        "args": ["*"],
        "unless": {"args": ["lodash", "react"]},
        "decision": "ask",
    }
    # `install` is an argument of npm too, but the rule's args are those after its command
    assert decide([rule], "exec", command="npm install lodash")[0] == "allowed"
    assert decide([rule], "exec", command="npm install lodash react")[0] == "allowed"
    assert decide([rule], "exec", command="npm install lodash left-pad")[0] == "pending"
    assert decide([rule], "exec", command="npm install lodash $PKG")[0] == "pending"
    # an unless with args under a rule without args: every argument, as before
    other = {**rule, "args": None, "unless": {"args": ["install", "lodash"]}}
    del other["args"]
    assert decide([other], "exec", command="npm install lodash")[0] == "allowed"
    assert decide([other], "exec", command="npm install left-pad")[0] == "pending"
