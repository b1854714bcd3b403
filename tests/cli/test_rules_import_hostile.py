"""Issue #39 item 6: ``toolhooks rules import`` under hostile input. Nothing from the agent's file
(an entry, a key, the file's own name) ever becomes live TOML; whole-tool entries are named,
never printed as a table that does not load; and the printed text always loads into a runtime
that decides what the entries meant."""

from __future__ import annotations

import json
import shlex
import string
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolhooks.cli._rules_import import import_rules, render
from toolhooks.config._settings import load_config
from toolhooks.kit import toml_value
from toolhooks.runtime._runtime import Runtime

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

INJECTED = '\n[plugins.rules]\nopaque = "allow"\n'
RULE_KEYS = {"id", "tools", "decision", "reason", "command", "paths", "hosts", "match", "not_match"}


def printed(agent: str, path: Path) -> str:
    return render(import_rules(agent, path))  # type: ignore[arg-type]


def live(text: str) -> dict[str, Any]:
    """What the printed text is as TOML: only ``[[rules]]`` tables, each with a rule's keys."""
    document = tomllib.loads(text)
    assert set(document) <= {"rules"}, document
    for rule in document.get("rules", []):
        assert set(rule) <= RULE_KEYS, rule
    return document


def runtime_of(folder: Path, text: str) -> Runtime:
    config = folder / "toolhooks.toml"
    config.write_text(text)
    return Runtime(config=load_config(config))


def decided(rt: Runtime, command: str) -> str:
    return str(rt.decide({"name": "exec", "params": {"command": command}}).status)


def claude(folder: Path, permissions: dict[str, Any], name: str = "settings.json") -> Path:
    path = folder / name
    path.write_text(json.dumps({"permissions": permissions}))
    return path


# -- the attacks the issue names -----------------------------------------------------------------


def test_a_newline_in_a_permissions_key_is_no_live_toml(tmp_path: Path):
    path = claude(tmp_path, {"deny": ["Bash(rm -rf)"], "x" + INJECTED: ["y"]})
    text = printed("claude-code", path)
    assert "[plugins.rules]" not in text.replace("\\u000A[plugins.rules]", "")
    live(text)
    with runtime_of(tmp_path, text) as rt:
        assert decided(rt, "rm -rf build") == "blocked"


def test_a_newline_in_the_files_name_is_no_live_toml(tmp_path: Path):
    path = claude(tmp_path, {"deny": ["Bash(rm -rf)"]}, name="s" + INJECTED + ".json")
    text = printed("claude-code", path)
    live(text)
    with runtime_of(tmp_path, text) as rt:
        assert decided(rt, "rm -rf build") == "blocked"


def test_a_newline_in_an_entry_stays_inside_its_string(tmp_path: Path):
    entries = ["Bash(ls" + INJECTED + ")", "Read(x" + INJECTED + ")", "Bash" + INJECTED]
    text = printed("claude-code", claude(tmp_path, {"allow": entries}))
    document = live(text)
    assert document["rules"][0]["reason"].endswith(INJECTED + ")")


def test_the_command_line_names_left_out_entries_on_one_escaped_line_each(tmp_path: Path):
    import subprocess

    path = claude(tmp_path, {"allow": ["Bash"], "k\x1b[2J" + INJECTED: 1})
    done = subprocess.run(
        [sys.executable, "-m", "toolhooks", "rules", "import", "claude-code", str(path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and all(line.startswith("not translated: ") for line in lines)
    assert "\x1b" not in done.stderr
    live(done.stdout)


# -- whole-tool entries ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "tools"),
    [("Bash", '["exec"]'), ("WebFetch", '["web_fetch"]'), ("mcp__x", '["x__*"]'),
     ("mcp__x__y", '["x__y"]'), ("Read", '["read"]'), ("Bash(*)", '["exec"]')],
)  # fmt: skip
@pytest.mark.parametrize("key", ["allow", "ask", "deny"])
def test_a_whole_tool_entry_is_named_with_its_fence_never_a_table_that_fails(
    tmp_path: Path, entry: str, tools: str, key: str
):
    imported = import_rules("claude-code", claude(tmp_path, {key: [entry]}))
    assert imported.rules == ()
    [skip] = imported.skipped
    assert skip.why.startswith(f"a whole-tool {key}") and tools in skip.why
    if key == "deny":
        assert f"add {tools} to [tools] deny" in skip.why
    runtime_of(tmp_path, render(imported)).close()


def test_a_whole_tool_gemini_rule_is_named(tmp_path: Path):
    path = tmp_path / "policy.toml"
    path.write_text('[[rule]]\ntoolName = "web_fetch"\ndecision = "deny"\n')
    imported = import_rules("gemini", path)
    assert imported.rules == ()
    assert imported.skipped[0].why == 'a whole-tool deny: add ["web_fetch"] to [tools] deny (the policy fence)'  # fmt: skip


# -- hostile entries, generated -------------------------------------------------------------------

HOSTILE_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="\"'\\[]{}()=#\n\r\t *:/~.,\u2028\u202e\x00\x1b\x7f", max_size=40),
    st.builds(lambda n, c: c * n, st.integers(1000, 200_000), st.sampled_from('x\n"[')),
)
TOOLS = st.sampled_from(["Bash", "Read", "Edit", "Write", "WebFetch", "mcp__srv", "mcp__srv__t", "Grep", "Nope"])  # fmt: skip
ENTRY = st.one_of(HOSTILE_TEXT, st.builds(lambda t, s: f"{t}({s})", TOOLS, HOSTILE_TEXT), TOOLS)
WORD = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=8)
RESERVED = frozenset(
    [
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "case",
        "esac",
        "for",
        "select",
        "while",
        "until",
        "do",
        "done",
        "in",
        "function",
        "time",
        "coproc",
    ]
)
"""Shell reserved words: first in a command they are grammar, not a program, so a script of one
(``if``) does not parse, is opaque and asks (fail closed); a rule on a program cannot mean it."""
MEANT = st.lists(WORD, min_size=1, max_size=3).filter(lambda words: words[0] not in RESERVED)
"""Commands made of plain words: the entries whose meaning the test checks after loading."""

SLOW = settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SLOW
@given(
    hostile=st.dictionaries(st.sampled_from(["allow", "ask", "deny"]), st.lists(ENTRY, max_size=6)),
    keys=st.lists(HOSTILE_TEXT, max_size=3),
    denied=MEANT,
    allowed=MEANT,
)
def test_the_printed_claude_code_rules_always_load_and_mean_what_they_said(
    tmp_path_factory: pytest.TempPathFactory,
    hostile: dict[str, list[str]],
    keys: list[str],
    denied: list[str],
    allowed: list[str],
):
    folder = tmp_path_factory.mktemp("claude")
    permissions: dict[str, Any] = {key: [] for key in ("allow", "ask", "deny")}
    for key, entries in hostile.items():
        permissions[key].extend(entries)
    for key in keys:
        permissions.setdefault(key, "a mode")
    permissions["deny"].append(f"Bash({' '.join(denied)}:*)")
    permissions["allow"].append(f"Bash({' '.join(allowed)}:*)")
    text = printed("claude-code", claude(folder, permissions))
    live(text)
    with runtime_of(folder, text) as rt:
        # Deny wins over allow in both: the denied command is denied whatever else loaded.
        assert decided(rt, shlex.join(denied)) == "blocked"


GEMINI_KEY = st.one_of(st.sampled_from(["toolName", "commandPrefix", "decision"]), HOSTILE_TEXT)


@SLOW
@given(
    tables=st.lists(st.dictionaries(GEMINI_KEY, HOSTILE_TEXT, max_size=4), max_size=4),
    denied=MEANT,
)
def test_the_printed_gemini_rules_always_load_and_mean_what_they_said(
    tmp_path_factory: pytest.TempPathFactory, tables: list[dict[str, str]], denied: list[str]
):
    folder = tmp_path_factory.mktemp("gemini")
    lines = []
    for table in tables:
        lines.append("[[rule]]")
        lines.extend(f"{toml_value(key)} = {toml_value(value)}" for key, value in table.items())
    lines += ["[[rule]]", 'toolName = "run_shell_command"', 'decision = "deny"']
    lines.append(f"commandPrefix = {toml_value(' '.join(denied) + ' ')}")
    path = folder / "policy.toml"
    path.write_text("\n".join(lines) + "\n")
    text = printed("gemini", path)
    live(text)
    with runtime_of(folder, text) as rt:
        assert decided(rt, shlex.join(denied)) == "blocked"


@SLOW
@given(words=st.lists(HOSTILE_TEXT, min_size=1, max_size=3), why=HOSTILE_TEXT, denied=MEANT)
def test_the_printed_codex_rules_always_load_and_mean_what_they_said(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], why: str, denied: list[str]
):
    folder = tmp_path_factory.mktemp("codex")
    path = folder / "default.rules"
    path.write_text(
        f"prefix_rule(pattern={words!r}, decision='allow', justification={why!r})\n"
        f"prefix_rule(pattern={denied!r}, decision='forbidden')\n"
    )
    text = printed("codex", path)
    live(text)
    with runtime_of(folder, text) as rt:
        assert decided(rt, shlex.join(denied)) == "blocked"
