"""The hand check of ``[[rules]]`` and ``[plugins.rules]`` (``_tables``) against the pydantic
models it stands in for: on every table it vouches for, the models agree and make the same
record; every table the models refuse, it passes on to them (so their message is the error).
And a process that loads a starter policy imports no pydantic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from toolhooks import ConfigError, Runtime
from toolhooks.plugins.rules import RuleConfig, RulesPlugin, RulesSettings, starter_policy
from toolhooks.plugins.rules._tables import (
    RULE_KEYS,
    RulesOptions,
    checked_options,
    checked_rule,
    options_of,
    rule_of,
)

from .conftest import tomllib

ROOT = Path(__file__).resolve().parents[3]
POLICY_FILES = [
    ROOT / "plugins/rules/policies/deny-list.toml",
    ROOT / "plugins/rules/policies/allow-list.toml",
    ROOT / "core/demo/toolhooks.toml",
    ROOT / "tests/plugins/rules/cases/rules.toml",
    *sorted((ROOT / "bench/policies").glob("*.toml")),
]


def models_say(data: Any) -> Any:
    """The record the models make of rule ``data``, or None when they refuse it."""
    try:
        return rule_of(RuleConfig.model_validate(data))
    except ValidationError:
        return None


def agree(data: Any) -> None:
    checked = checked_rule(data)
    validated = models_say(data)
    if checked is not None:
        assert validated is not None, f"the hand check let through what the models refuse: {data!r}"
        assert checked == validated
    if validated is None:
        assert checked is None


@pytest.mark.parametrize("path", POLICY_FILES, ids=lambda p: p.name)
def test_every_shipped_rule_is_checked_by_hand_as_the_models_read_it(path: Path):
    rules = tomllib.loads(path.read_text(encoding="utf-8"))["rules"]
    assert rules
    for data in rules:
        checked = checked_rule(data)
        assert checked is not None, f"{path.name}: {data.get('id')} goes to the models"
        assert checked == rule_of(RuleConfig.model_validate(data))


TEXTS = st.one_of(
    st.sampled_from(["git", "push", "-r", "--force", "-rf", "-", "--", "*.pem", "a b", "web"]),
    st.sampled_from(["", "x" * 81, "x" * 129, "x" * 401, "x" * 4097, "x" * 4096, "x" * 80]),
    st.sampled_from(["é", "caf\u00e9 ok", "a\ud800b", "a\x1cb", "a\u0085b", "tab\tid", "hosts"]),
    st.text(max_size=6),
)
VALUES = st.recursive(
    st.one_of(
        TEXTS,
        st.sampled_from(["allow", "ask", "deny", "block", "hosts"]),
        st.none(),
        st.booleans(),
        st.integers(-2, 2),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=2).map(tuple),
        st.dictionaries(
            st.one_of(TEXTS, st.sampled_from(["labels", "params", "only"])), inner, max_size=3
        ),
    ),
    max_leaves=6,
)
KEYS = st.sampled_from(sorted(RULE_KEYS | {"from_", "flgs", "enabled"}))


@settings(max_examples=400, deadline=None)
@given(
    rule_id=st.one_of(TEXTS, st.just("r1")),
    decision=st.one_of(st.sampled_from(["deny", "ask", "allow", "nope"]), st.none()),
    others=st.dictionaries(KEYS, VALUES, max_size=4),
)
def test_the_hand_check_never_lets_through_what_the_models_refuse(
    rule_id: Any, decision: Any, others: dict[str, Any]
):
    data = {"id": rule_id, **others}
    if decision is not None:
        data["decision"] = decision
    agree(data)


CONDITION_VALUES = st.one_of(
    st.lists(TEXTS, max_size=3),
    TEXTS,
    st.lists(st.one_of(TEXTS, st.lists(TEXTS, max_size=2)), max_size=3),
    st.dictionaries(TEXTS, st.one_of(TEXTS, st.lists(TEXTS, max_size=2)), max_size=2),
    st.dictionaries(
        st.sampled_from(["labels", "params", "only"]),
        st.one_of(st.lists(TEXTS, max_size=2), TEXTS),
        max_size=3,
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    conditions=st.dictionaries(
        st.sampled_from(
            ["command", "flags", "args", "paths", "hosts", "params", "session", "from"]
        ),
        CONDITION_VALUES,
        min_size=1,
        max_size=3,
    ),
    unless=st.one_of(
        st.none(),
        st.dictionaries(
            st.sampled_from(["paths", "args", "from", "id"]), CONDITION_VALUES, max_size=2
        ),
    ),
    examples=st.lists(st.one_of(TEXTS, st.dictionaries(TEXTS, VALUES, max_size=2)), max_size=2),
)
def test_conditions_close_to_valid_are_read_alike(
    conditions: dict[str, Any], unless: dict[str, Any] | None, examples: list[Any]
):
    data: dict[str, Any] = {"id": "r", "decision": "deny", **conditions, "match": examples}
    if unless is not None:
        data["unless"] = unless
    agree(data)


@pytest.mark.parametrize(
    "table",
    [
        {},
        {"unmatched": "deny"},
        {"opaque": "allow", "protect_own_state": False},
        {"unmatched": "maybe"},
        {"opaq": "deny"},
        {"protect_own_state": "true"},
        {"protect_own_state": 1},
        {"unmatched": None},
    ],
)
def test_the_plugin_table_is_read_alike(table: dict[str, Any]):
    checked = checked_options(table)
    try:
        validated: RulesOptions | None = options_of(RulesSettings.model_validate(table))
    except ValidationError:
        validated = None
    if checked is not None:
        assert checked == validated
    if validated is None:
        assert checked is None
    # what the plugin runs on is what the models say, whichever read it
    if validated is not None:
        assert RulesPlugin(table, rules=[]).config == validated


def test_a_table_the_hand_check_passes_on_still_loads_through_the_models():
    rule = {"id": "t", "args": ("a", "b"), "decision": "deny", "tools": ("exec",)}
    assert checked_rule(rule) is None
    with Runtime(
        config={"rules": [rule], "plugins": {"rules": {"protect_own_state": "false"}}}
    ) as rt:
        plugin = rt.get_plugin("rules")
        assert plugin.config.protect_own_state is False
        assert plugin.rules.rules[0].config.args == ["a", "b"]
        assert rt.call({"name": "exec", "params": {"command": "ls a"}}).blocked_by == "rules"


def test_a_mistake_is_worded_by_the_models(tmp_path: Path):
    config = tmp_path / "toolhooks.toml"
    config.write_text('[[rules]]\nid = "x"\ncommand = ["rm"]\nflags = ["-rf"]\ndecision = "deny"\n')
    with pytest.raises(ConfigError) as caught:
        Runtime(config=config)
    assert "'-rf' is a cluster of short options" in str(caught.value) and caught.value.line == 4


def test_loading_a_starter_policy_imports_no_pydantic(tmp_path: Path):
    (tmp_path / "toolhooks.toml").write_text(starter_policy("deny-list"), encoding="utf-8")
    code = (
        "import sys\n"
        "from toolhooks import Runtime\n"
        "rt = Runtime.from_config('toolhooks.toml')\n"
        "for params in ({'command': 'git push --force'}, {'path': '.env'}):\n"
        "    name = 'exec' if 'command' in params else 'read'\n"
        "    outcome = rt.call({'name': name, 'params': params}, execute=lambda p: 'text')\n"
        "    assert outcome.blocked_by == 'rules', outcome\n"
        "rt.close()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
