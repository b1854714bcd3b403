"""Loading: validation against the schema (errors name file, line and policy), globs, entities,
examples checked at load, a tool registered later, and hot reload that keeps the last good set."""

from __future__ import annotations

import os
import re
import time
from typing import Any

import pytest
from toolhooks import ConfigError, Runtime, ToolSpec
from toolhooks.testing import EventRecorder

AMOUNT = """\
// a payment policy
@id("big")
forbid (principal, action == Action::"pay", resource)
when { context.input.amount.greaterThan(decimal("500.0")) };
"""


def test_a_typo_in_a_param_is_a_config_error_naming_file_line_and_policy(project: Any) -> None:
    project.policy(AMOUNT)
    project.policy(
        '\n\n@id("typo")\nforbid (principal, action == Action::"pay", resource)\n'
        'when { context.input.amout.greaterThan(decimal("1.0")) };\n',
        name="policies/typo.cedar",
    )
    with pytest.raises(ConfigError) as caught:
        project.runtime()
    text = str(caught.value)
    assert text.startswith("policies/typo.cedar:3: policy 'typo'")
    assert "input.amout" in text
    assert caught.value.line == 3


def test_a_policy_that_does_not_parse_is_named_by_its_line(project: Any) -> None:
    project.policy(AMOUNT + "\npermit (principal, action, resource) when { context.x > };\n")
    with pytest.raises(ConfigError) as caught:
        project.runtime()
    assert str(caught.value).startswith("policies/main.cedar:6: Cedar policy does not parse")
    assert "permit (principal" in str(caught.value)


def test_a_glob_matching_nothing_is_a_config_error(project: Any) -> None:
    project.policy(AMOUNT)
    with pytest.raises(ConfigError, match=re.escape("'nothing/*.cedar' matches no file")):
        project.runtime(policies=["policies/*.cedar", "nothing/*.cedar"])


def test_a_missing_entities_file_is_a_config_error(project: Any) -> None:
    project.policy(AMOUNT)
    with pytest.raises(ConfigError, match=re.escape("'people.json' is not a file")):
        project.runtime(entities="people.json")


def test_entities_that_do_not_match_the_schema_are_a_config_error(project: Any) -> None:
    project.policy(AMOUNT)
    project.entities([{"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": []}])
    (project.root / "schema.cedarschema").write_text(
        "entity Role; entity Agent; entity User in [Role] = { is_owner: Bool };\n"
        'action "pay" appliesTo { principal: [User], resource: [Agent], context: {\n'
        "  input: { amount: __cedar::decimal } } };\n"
    )
    project.entities(
        [{"uid": {"type": "User", "id": "a"}, "attrs": {"is_owner": "yes"}, "parents": []}]
    )
    with pytest.raises(ConfigError, match="entities do not match the Cedar schema") as caught:
        project.runtime(entities="entities.json", schema="schema.cedarschema")
    assert caught.value.file == "entities.json"


def test_an_entities_file_that_is_not_json_names_the_line(project: Any) -> None:
    project.policy(AMOUNT)
    (project.root / "entities.json").write_text('[\n{"uid": \n')
    with pytest.raises(ConfigError) as caught:
        project.runtime(entities="entities.json")
    assert caught.value.file == "entities.json"
    assert caught.value.line is not None


def test_a_schema_file_is_used(project: Any) -> None:
    project.policy(AMOUNT)
    (project.root / "schema.cedarschema").write_text(
        "entity Role; entity Agent; entity User in [Role];\n"
        'action "pay" appliesTo { principal: [User], resource: [Agent], context: {\n'
        "  input: { amount: __cedar::decimal } } };\n"
    )
    rt = project.runtime(tools=False, schema="schema.cedarschema")
    assert rt.get_plugin("cedar").data.schema is None


def test_schema_none_does_not_validate(project: Any) -> None:
    project.policy(
        'forbid (principal, action == Action::"pay", resource) when { context.input.nope };\n'
    )
    project.runtime(schema="none")  # no error


def test_a_template_is_refused(project: Any) -> None:
    project.policy("permit (principal == ?principal, action, resource);\n")
    with pytest.raises(ConfigError, match="template"):
        project.runtime()


def test_an_unknown_decision_annotation_is_refused(project: Any) -> None:
    project.policy('@decision("maybe")\nforbid (principal, action, resource);\n')
    with pytest.raises(ConfigError, match=r"policies/main.cedar:1: .*@decision\('maybe'\)"):
        project.runtime()
    project.policy('@decision("ask")\npermit (principal, action, resource);\n')
    with pytest.raises(ConfigError, match="goes on a forbid"):
        project.runtime()


def test_unknown_keys_and_bad_values_are_config_errors(project: Any) -> None:
    project.policy(AMOUNT)
    with pytest.raises(ConfigError, match="polices"):
        Runtime(config={"plugins": {"cedar": {"policies": ["x"], "polices": ["x"]}}})
    with pytest.raises(ConfigError, match="time zone"):
        project.runtime(timezone="Mars/Olympus")
    with pytest.raises(ConfigError, match="default"):
        project.runtime(default="allow")


def test_a_tool_registered_later_is_validated_the_same_way(project: Any) -> None:
    project.policy(
        '@id("limit")\nforbid (principal, action == Action::"transfer", resource)\n'
        "when { context.input.sum > 100 };\n"
    )
    # No tool "transfer" yet: its input is unknown, so the policy cannot validate.
    with pytest.raises(ConfigError, match="policy 'limit'"):
        project.runtime()
    project.policy('forbid (principal, action == Action::"transfer", resource);\n')
    rt = project.runtime()
    project.policy(
        '@id("limit")\nforbid (principal, action == Action::"transfer", resource)\n'
        "when { context.input.sum > 100 };\n"
    )
    rt.add_tool(
        ToolSpec(
            "transfer",
            "t",
            {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]},
        )
    )
    assert "transfer" in {spec.name for spec in rt.tool_specs()}


def test_a_tool_whose_params_break_a_policy_is_refused_and_not_added(project: Any) -> None:
    project.policy(
        '@id("wire-limit")\nforbid (principal, action == Action::"wire", resource)\n'
        'when { context.input has amount && context.input.amount.greaterThan(decimal("1.0")) };\n',
    )
    rt = project.runtime(tools=False)  # "wire" unknown: its input has no amount yet
    with pytest.raises(ConfigError, match="policy 'wire-limit'"):
        rt.add_tool(
            ToolSpec(
                "wire",
                "w",
                {
                    "type": "object",
                    "properties": {"amount": {"type": "string"}},
                    "required": ["amount"],
                },
            )
        )
    assert "wire" not in {spec.name for spec in rt.tool_specs()}
    good = {"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]}
    rt.add_tool(ToolSpec("wire", "w", good))
    assert "wire" in {spec.name for spec in rt.tool_specs()}


def _touch_later(path: Any, text: str) -> None:
    """Write ``text`` so the file's stamp surely changes (size or mtime)."""
    before = os.stat(path).st_mtime_ns
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before + 10_000_000, before + 10_000_000))


def _wait_for(predicate: Any, deadline_s: float = 10.0) -> Any:
    end = time.monotonic() + deadline_s
    while True:
        found = predicate()
        if found or time.monotonic() > end:
            return found
        time.sleep(0.02)


def test_hot_reload_takes_a_good_edit_and_keeps_the_last_good_set_on_a_bad_one(
    project: Any, call: Any, caplog: pytest.LogCaptureFixture
) -> None:
    path = project.policy(AMOUNT)
    rt = project.runtime(reload_interval_s=0.05)
    recorder = EventRecorder()
    rt.register(recorder, name="recorder")
    assert call(rt, "pay", amount=600, to="x").status == "blocked"
    assert call(rt, "pay", amount=60, to="x").status == "ok"

    _touch_later(path, AMOUNT.replace('"500.0"', '"50.0"'))
    assert _wait_for(lambda: call(rt, "pay", amount=60, to="x").status == "blocked")
    assert "cedar.reloaded" in recorder.names()

    # A broken edit: the last good set (limit 50) stays, and the failure is said once.
    _touch_later(path, AMOUNT.replace("amount", "amout"))
    assert _wait_for(
        lambda: call(rt, "pay", amount=6, to="x") and "cedar.reload_failed" in recorder.names()
    )
    assert call(rt, "pay", amount=60, to="x").status == "blocked"
    assert call(rt, "pay", amount=6, to="x").status == "ok"
    failed = [e for e in recorder.events if e.event == "cedar.reload_failed"]
    assert "input.amout" in failed[0].data["error"]
    assert any("keeping the last good set" in r.getMessage() for r in caplog.records)
    time.sleep(0.1)  # several checks pass: the same broken edit is not reported again
    call(rt, "pay", amount=6, to="x")
    assert len([e for e in recorder.events if e.event == "cedar.reload_failed"]) == 1

    # A new file matching the glob is picked up too.
    project.policy(
        'forbid (principal, action == Action::"fetch", resource);\n', name="policies/b.cedar"
    )
    assert _wait_for(lambda: call(rt, "fetch", url="https://a.example").status == "blocked")


def test_reload_off_keeps_the_loaded_set(project: Any, call: Any) -> None:
    path = project.policy(AMOUNT)
    rt = project.runtime(reload=False, reload_interval_s=0.01)
    _touch_later(path, "")
    time.sleep(0.05)
    assert call(rt, "pay", amount=600, to="x").status == "blocked"
