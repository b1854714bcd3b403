"""Bad input gets a clear error or a fail-closed decision, never a traceback and never an allow:
policies that do not parse, a missing or broken file, a huge or deeply nested call, and examples
that are wrong or do not hold."""

from __future__ import annotations

from typing import Any

import pytest
from toolhooks import ConfigError

PERMIT_ALL = "permit (principal, action, resource);\n"


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": value}
    return value


def nested_list(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"url": "u", "deep": nested(40)}, "nested deeper than 32"),
        ({"url": "u", "many": list(range(25_000))}, "more than 20,000 values"),
        ({"url": "u", "deep": nested_list(35)}, "nested deeper than 32"),
    ],
)
def test_a_huge_or_deeply_nested_call_is_blocked_even_under_a_permit_all(
    project: Any, params: dict[str, Any], said: str
) -> None:
    project.policy(PERMIT_ALL)
    rt = project.runtime(schema="none")
    out = rt.call({"name": "fetch", "params": params}, execute=lambda p: "ran")
    assert out.status == "blocked"
    assert out.blocked_by == "cedar"
    assert said in out.reason


def test_a_large_but_bounded_call_is_decided(project: Any, call: Any) -> None:
    project.policy(
        '@id("long")\nforbid (principal, action == Action::"fetch", resource)\n'
        'when { context.input.url like "*needle*" };\n'
    )
    rt = project.runtime()
    assert call(rt, "fetch", url="x" * 2_000_000 + "needle").status == "blocked"
    assert call(rt, "fetch", url="x" * 2_000_000).status == "ok"


@pytest.mark.parametrize(
    "text",
    [
        "permit (principal, action, resource",
        "forbid (principal, action == Action::, resource);",
        'permit (principal, action, resource) when { "unterminated };',
        "\x00\x01 not cedar at all ;;;",
        '@id("a")\n@id("b")\npermit (principal, action, resource);',
    ],
)
def test_a_policy_that_does_not_parse_is_a_clear_config_error(project: Any, text: str) -> None:
    project.policy(text)
    with pytest.raises(ConfigError) as caught:
        project.runtime()
    assert caught.value.file == "policies/main.cedar"
    assert "does not parse" in str(caught.value)


def test_a_policy_file_that_is_not_utf8_is_a_config_error(project: Any) -> None:
    (project.root / "policies").mkdir()
    (project.root / "policies" / "main.cedar").write_bytes(b"permit \xff\xfe;")
    with pytest.raises(ConfigError, match="not UTF-8"):
        project.runtime()


def test_a_deleted_policy_file_keeps_the_last_good_set(project: Any, call: Any) -> None:
    path = project.policy('forbid (principal, action == Action::"fetch", resource);\n')
    rt = project.runtime(reload_interval_s=0.01)
    assert call(rt, "fetch", url="u").status == "blocked"
    path.unlink()
    import time

    time.sleep(0.05)
    assert call(rt, "fetch", url="u").status == "blocked"


@pytest.mark.parametrize(
    ("example", "said"),
    [
        ("// match: {not json", "an example is one line of JSON"),
        ("// match: 42", "a JSON string or object"),
        ('// match: {"name": "fetch", "colour": 1}', "example keys colour are not known"),
        ('// match: {"name": "fetch", "now": "friday"}', "not an ISO date"),
        (
            '// match: {"name": "fetch", "params": {"url": "https://fine.example"}}',
            "does not apply",
        ),
        (
            '// not_match: {"name": "fetch", "params": {"url": "https://evil.example"}}',
            "applies to",
        ),
    ],
)
def test_a_wrong_or_failing_example_names_its_line(project: Any, example: str, said: str) -> None:
    project.policy(
        '@id("evil")\n'
        f"{example}\n"
        'forbid (principal, action == Action::"fetch", resource)\n'
        'when { context.input.url like "*evil*" };\n'
    )
    with pytest.raises(ConfigError) as caught:
        project.runtime()
    assert caught.value.line == 2
    assert "policy 'evil'" in str(caught.value)
    assert said in str(caught.value)


def test_examples_pin_the_sender_time_and_history(project: Any) -> None:
    project.policy(
        '@id("freeze")\n'
        '// match: {"name": "restart", "params": {"service": "a", "env": "prod"}, "now": "2026-12-04T17:30"}\n'
        '// not_match: {"name": "restart", "params": {"service": "a", "env": "prod"}, "now": "2026-12-04T15:30"}\n'
        '// not_match: {"name": "restart", "params": {"service": "a", "env": "prod"}, "now": "2026-12-04T17:30", "sender": {"id": "o", "roles": ["oncall"]}}\n'
        'forbid (principal, action == Action::"restart", resource)\n'
        "when { context.now.weekday == 5 && context.now.hour >= 16 }\n"
        'unless { principal in Role::"oncall" };\n'
        '@id("web")\n'
        '// match: {"params": {"amount": 5, "to": "DE89"}, "from": {"to": ["web"]}}\n'
        '// match: {"params": {"amount": 5, "to": "DE89"}, "labels": ["web"], "calls": 3}\n'
        '// not_match: {"params": {"amount": 5, "to": "DE89"}}\n'
        'forbid (principal, action == Action::"pay", resource)\n'
        'when { context.from.to.contains("web") || (context.session.labels.contains("web") '
        "&& context.session.calls > 2) };\n"
    )
    rt = project.runtime()
    assert len(rt.get_plugin("cedar").data.policies) == 2
