"""``toolhooks rules import``: each agent's permission file, shaped like the real ones, as
``[[rules]]``, with every entry it cannot translate named, and bad files refused cleanly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from toolhooks.cli._rules_import import import_rules, render

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

FILES = Path(__file__).parent / "rules_import"
CLAUDE = FILES / "project" / ".claude" / "settings.json"
GEMINI = FILES / "gemini-policy.toml"
CODEX = FILES / "codex-default.rules"


def toolhooks(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolhooks", *args], capture_output=True, text=True, timeout=60
    )


def rules_of(agent: str, path: Path) -> dict[str, dict]:
    text = render(import_rules(agent, path))  # type: ignore[arg-type]
    return {rule["id"]: rule for rule in tomllib.loads(text)["rules"]}


def test_claude_code_settings():
    rules = rules_of("claude-code", CLAUDE)
    assert rules["claude-deny-1"] == {
        "id": "claude-deny-1",
        "tools": ["exec"],
        "decision": "deny",
        "reason": "Claude Code permissions.deny: Bash(rm -rf *)",
        "command": ["rm", "-rf"],
    }
    assert rules["claude-deny-3"]["paths"] == ["~/.ssh/**"]
    assert rules["claude-deny-4"]["paths"] == ["/etc/shadow"]  # //abs is an absolute path
    # /path is relative to the project holding .claude/, never to the file system's root.
    assert rules["claude-ask-2"]["paths"] == [str((FILES / "project").resolve()) + "/src/**"]
    assert rules["claude-ask-2"]["tools"] == ["write", "edit", "apply_patch"]
    assert rules["claude-ask-1"]["command"] == ["git", "push"]
    assert rules["claude-allow-1"]["command"] == ["npm", "run", "test"]
    assert rules["claude-allow-4"] == {
        "id": "claude-allow-4",
        "tools": ["web_fetch"],
        "decision": "allow",
        "reason": "Claude Code permissions.allow: WebFetch(domain:docs.python.org)",
        "hosts": ["docs.python.org"],
    }
    # Whole tools (a bare Read, an MCP tool or server) are no [[rules]] table: a rule needs a
    # condition (issue #39 item 6). They are named, with toolhooks' names for the tools.
    assert {"claude-allow-3", "claude-allow-5", "claude-deny-6"}.isdisjoint(rules)
    skipped = {s.entry: s.why for s in import_rules("claude-code", CLAUDE).skipped}
    assert skipped["Read"].startswith('a whole-tool allow: toolhooks already lets ["read"]')
    assert '["github__get_issue"]' in skipped["mcp__github__get_issue"]
    assert skipped["mcp__slack"] == 'a whole-tool deny: add ["slack__*"] to [tools] deny (the policy fence)'  # fmt: skip


def test_claude_code_names_what_it_cannot_translate():
    skipped = {s.entry: s.why for s in import_rules("claude-code", CLAUDE).skipped}
    assert "any run of text" in skipped["Bash(git * main)"]
    assert "does not govern" in skipped["TodoWrite"]
    assert "unknown Claude Code tool" in skipped["Frobnicate(x)"]
    assert set(skipped) >= {"defaultMode", "additionalDirectories"}


def test_claude_code_exact_command_says_it_became_a_prefix():
    text = render(import_rules("claude-code", CLAUDE))
    block = text[text.index("permissions.allow[1]") - 200 : text.index('id = "claude-allow-2"')]
    assert "matches this command exactly" in block


def test_gemini_policy():
    rules = rules_of("gemini", GEMINI)
    assert set(rules) == {"gemini-1", "gemini-2"}
    # A text prefix: "git push" holds "git push-all" in Gemini CLI, so the last word is a glob.
    assert rules["gemini-1"]["command"] == ["git", "push*"]
    assert rules["gemini-1"]["decision"] == "ask"
    assert rules["gemini-2"]["command"] == ["npm", ["test*", "run*"]]
    skipped = import_rules("gemini", GEMINI).skipped
    assert [s.where for s in skipped] == [
        "gemini-policy.toml:14",
        "gemini-policy.toml:20",
        "gemini-policy.toml:26",
        "gemini-policy.toml:33",
    ]
    assert "commandRegex" in skipped[0].why
    assert "argsPattern" in skipped[1].why
    # A whole MCP tool is no [[rules]] table (a rule needs a condition): named, with its fence.
    assert skipped[2].why == 'a whole-tool deny: add ["github__delete_repo"] to [tools] deny (the policy fence)'  # fmt: skip
    assert "modes" in skipped[3].why


def test_gemini_priorities_are_flagged():
    text = render(import_rules("gemini", GEMINI))
    assert text.count("the highest priority win") == 2


def test_codex_rules():
    rules = rules_of("codex", CODEX)
    assert rules["codex-1"] == {
        "id": "codex-1",
        "tools": ["exec"],
        "decision": "ask",
        "reason": "network git commands need a look",
        "command": ["git", ["push", "fetch"]],
        "match": ["git push origin main", "git fetch"],
        "not_match": ["git status"],
    }
    assert rules["codex-2"]["decision"] == "deny"
    assert rules["codex-3"]["decision"] == "allow"  # Codex's default decision
    skipped = import_rules("codex", CODEX).skipped
    assert [(s.where, s.why) for s in skipped] == [
        ("codex-default.rules:11", "not a prefix_rule(...) call"),
        ("codex-default.rules:12", "pattern is not a literal (a Starlark expression)"),
    ]


def test_the_command_prints_toml_and_lists_what_it_left_out():
    done = toolhooks("rules", "import", "codex", str(CODEX))
    assert done.returncode == 0, done.stderr
    assert tomllib.loads(done.stdout)["rules"][0]["id"] == "codex-1"
    assert "not translated: codex-default.rules:11" in done.stderr


def test_control_characters_stay_escaped(tmp_path: Path):
    rules = tmp_path / "x.rules"
    rules.write_text('prefix_rule(pattern=["rm"], justification="a\\x1b[2Jb\\u202e")\n')
    text = render(import_rules("codex", rules))
    assert "\x1b" not in text and "\u202e" not in text
    assert tomllib.loads(text)["rules"][0]["reason"] == "a\x1b[2Jb\u202e"


@pytest.mark.parametrize(
    ("agent", "content", "message"),
    [
        ("claude-code", "[" * 3000, "not JSON"),
        ("claude-code", "{}", 'no "permissions" object'),
        ("claude-code", '{"permissions": {"deny": "Bash"}}', "permissions.deny is not a list"),
        ("gemini", "[[rule]]\n" + "x = " + "[" * 3000, "not TOML"),
        ("gemini", "title = 1\n", "no [[rule]] tables"),
        ("codex", "prefix_rule(pattern=" + "[" * 3000 + "]" * 3000 + ")", "not a Codex"),
        ("codex", "prefix_rule(\n", "not a Codex"),
    ],
)
def test_bad_files_are_a_clear_error(tmp_path: Path, agent: str, content: str, message: str):
    path = tmp_path / "rules.file"
    path.write_text(content)
    done = toolhooks("rules", "import", agent, str(path))
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_missing_file_and_an_unknown_agent():
    missing = toolhooks("rules", "import", "codex", "/nonexistent/default.rules")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    unknown = toolhooks("rules", "import", "cursor", str(CODEX))
    assert unknown.returncode == 2 and "invalid choice" in unknown.stderr
