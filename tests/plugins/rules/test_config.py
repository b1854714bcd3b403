"""[[rules]] and [plugins.rules]: a bad rule is a ConfigError naming the rule, the key, the file
and the line; the plugin is off (not even imported) until a rule exists; examples are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolhooks import ConfigError, Runtime


def load(tmp_path: Path, text: str) -> Runtime:
    config = tmp_path / "toolhooks.toml"
    config.write_text(text)
    return Runtime(config=config)


def error(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text).close()
    return caught.value


RULE = '[[rules]]\nid = "first"\ncommand = ["ls"]\ndecision = "allow"\n\n'


def test_no_rules_means_the_plugin_is_not_loaded(tmp_path: Path):
    with Runtime(config={}) as rt:
        skipped = {p.name: p.reason for p in rt.plugins(include_disabled=True) if not p.enabled}
        assert skipped["rules"] == "off until the config has a [[rules]] entry"
        assert "rules" not in [h.plugin for h in rt.handlers("before_tool_call", "exec")]
    with load(tmp_path, RULE) as rt:
        chain = [h.plugin for h in rt.handlers("before_tool_call", "exec")]
        assert chain.index("rules") == chain.index("policy") + 2  # after policy, loop_detection
        assert chain[chain.index("rules") - 1] == "loop_detection"


def test_an_unknown_key_names_the_rule_the_key_the_file_and_the_line(tmp_path: Path):
    found = error(
        tmp_path,
        RULE + '[[rules]]\nid = "second"\ncommand = ["rm"]\nflgs = ["-r"]\ndecision = "deny"\n',
    )
    assert found.line == 9 and found.file == str(tmp_path / "toolhooks.toml")
    assert "rule 'second'" in str(found) and "'flgs'" in str(found) and "'flags'" in str(found)


def test_a_bad_value_names_its_key_and_line(tmp_path: Path):
    found = error(
        tmp_path,
        RULE + '[[rules]]\nid = "x"\ncommand = ["rm"]\nflags = ["-rf"]\ndecision = "deny"\n',
    )
    assert found.line == 9 and "rule 'x'" in str(found) and "'-r', '-f'" in str(found)
    found = error(tmp_path, '[[rules]]\nid = "d"\ncommand = ["rm"]\ndecision = "block"\n')
    assert found.line == 4 and "decision" in str(found)
    found = error(tmp_path, '[[rules]]\nid = "d"\ncommand = ["rm"]\n')
    assert "rule 'd'" in str(found) and "needs a decision" in str(found)


def test_an_unknown_key_in_unless_is_named(tmp_path: Path):
    found = error(
        tmp_path,
        '[[rules]]\nid = "u"\ncommand = ["rm"]\ndecision = "deny"\n'
        'unless = { pathz = ["build/**"] }\n',
    )
    assert "unless.pathz" in str(found) and "'paths'" in str(found) and found.line == 5


def test_ids_are_unique_and_a_rule_needs_a_condition(tmp_path: Path):
    found = error(tmp_path, RULE + RULE)
    assert "'first' is taken by rules[0]" in str(found) and found.line == 7
    found = error(tmp_path, '[[rules]]\nid = "all"\ndecision = "deny"\n')
    assert "rule 'all'" in str(found) and "needs a condition" in str(found)
    found = error(tmp_path, '[[rules]]\ncommand = ["ls"]\ndecision = "deny"\n')
    assert "rules[0]" in str(found) and "id" in str(found)


def test_rules_must_be_an_array_of_tables(tmp_path: Path):
    found = error(tmp_path, '[rules]\nid = "x"\n')
    assert "[[rules]]" in str(found)
    with pytest.raises(ConfigError, match="a rule must be a table"):
        Runtime(config={"rules": ["rm -rf /"]})


def test_an_unknown_group_is_named(tmp_path: Path):
    found = error(
        tmp_path,
        '[[rules]]\nid = "g"\ntools = ["group:nope"]\nparams = { a = "b" }\ndecision = "deny"\n',
    )
    assert "unknown group 'group:nope'" in str(found) and found.line == 3


def test_a_failing_example_names_the_rule_and_the_example(tmp_path: Path):
    text = (
        '[[rules]]\nid = "to-ops"\ntools = ["message"]\nparams = { to = "ops@*" }\n'
        'decision = "ask"\nmatch = [{ to = "dev@example.com" }]\n'
    )
    found = error(tmp_path, text)
    assert "rule 'to-ops'" in str(found) and "dev@example.com" in str(found)
    assert "does not match" in str(found) and found.line == 6
    text = text.replace("match = ", "not_match = ").replace("dev@", "ops@")
    found = error(tmp_path, text)
    assert "not_match" in str(found) and "the rule matches it" in str(found)


def test_plugin_settings_are_checked(tmp_path: Path):
    found = error(tmp_path, RULE + '[plugins.rules]\nunmatched = "maybe"\n')
    assert "unmatched" in str(found) and found.line == 7
    found = error(tmp_path, RULE + '[plugins.rules]\nopaq = "deny"\n')
    assert "'opaque'" in str(found)


def test_rules_in_pyproject_are_located_too(tmp_path: Path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "x"\n\n[[tool.toolhooks.rules]]\nid = "p"\n'
        'command = ["rm"]\ndecision = "nope"\n'
    )
    with pytest.raises(ConfigError) as caught:
        Runtime(config=pyproject)
    assert caught.value.line == 7 and "rule 'p'" in str(caught.value)
