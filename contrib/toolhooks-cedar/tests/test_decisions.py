"""The decision mapping: forbid blocks (with its @reason / @id), @decision("ask") asks, Allow is no
opinion, default = "deny", strictest wins, and an evaluation error fails closed naming the policy."""

from __future__ import annotations

from typing import Any

from toolhooks.testing import EventRecorder

FINANCE = {"id": "fin", "roles": ["finance"]}
BOB = {"id": "bob", "name": "Bob"}

PAYMENTS = """\
@id("big-payments")
@reason("Payments over 500 need the finance role")
forbid (principal, action == Action::"pay", resource)
when { context.input.amount.greaterThan(decimal("500.0")) }
unless { principal in Role::"finance" };
"""


def test_a_forbid_blocks_with_its_reason_and_id(project: Any, call: Any) -> None:
    project.policy(PAYMENTS)
    rt = project.runtime()
    out = call(rt, "pay", sender=BOB, amount=600, to="DE89")
    assert out.status == "blocked"
    assert out.blocked_by == "cedar"
    assert "'big-payments'" in out.reason
    assert "Payments over 500 need the finance role" in out.reason
    assert "policies/main.cedar:1" in out.reason


def test_the_role_and_a_small_amount_run(project: Any, call: Any) -> None:
    project.policy(PAYMENTS)
    rt = project.runtime()
    assert call(rt, "pay", sender=FINANCE, amount=600, to="DE89").status == "ok"
    assert call(rt, "pay", sender=BOB, amount=20.5, to="DE89").status == "ok"
    assert call(rt, "pay", amount=500, to="DE89").status == "ok"


def test_a_forbid_without_reason_is_named_by_its_id_or_place(project: Any, call: Any) -> None:
    project.policy(
        'forbid (principal, action == Action::"restart", resource);\n'
        '@id("no-fetch")\nforbid (principal, action == Action::"fetch", resource);\n'
    )
    rt = project.runtime()
    assert "policies/main.cedar:1" in call(rt, "restart", service="db", env="prod").reason
    assert "'no-fetch'" in call(rt, "fetch", url="https://x.example").reason


def test_ask_forbid_asks_with_frozen_params(project: Any) -> None:
    project.policy(
        '@id("ask-restart")\n@reason("Restarting production needs a person")\n@decision("ask")\n'
        'forbid (principal, action == Action::"restart", resource)\n'
        'when { context.input.env == "prod" };\n'
    )
    asked: list[Any] = []

    def approver(pending: Any) -> str:
        asked.append(pending)
        return "allow-once"

    rt_with = project.runtime(approver=approver)
    out = rt_with.call(
        {"name": "restart", "params": {"service": "db", "env": "prod"}}, execute=lambda p: "ok"
    )
    assert out.status == "ok"
    assert len(asked) == 1
    assert asked[0].plugin == "cedar"
    assert asked[0].request.title == "Restarting production needs a person"
    assert "ask-restart" in asked[0].request.description
    assert asked[0].request.allowed_decisions == ("allow-once", "deny")
    assert (
        rt_with.call(
            {"name": "restart", "params": {"service": "db", "env": "dev"}}, execute=lambda p: "ok"
        ).status
        == "ok"
    )
    assert len(asked) == 1


def test_without_approver_an_ask_is_denied(project: Any, call: Any) -> None:
    project.policy('@decision("ask")\nforbid (principal, action == Action::"fetch", resource);\n')
    out = call(project.runtime(), "fetch", url="https://x.example")
    assert out.status == "denied"


def test_a_plain_forbid_wins_over_an_ask(project: Any, call: Any) -> None:
    project.policy(
        '@id("ask")\n@decision("ask")\nforbid (principal, action == Action::"fetch", resource);\n'
        '@id("never")\nforbid (principal, action == Action::"fetch", resource)\n'
        'when { context.input.url like "*evil*" };\n'
    )
    rt = project.runtime()
    out = call(rt, "fetch", url="https://evil.example")
    assert out.status == "blocked"
    assert "'never'" in out.reason


def test_allow_is_no_opinion_and_other_plugins_still_block(project: Any, call: Any) -> None:
    project.policy("permit (principal, action, resource);\n")
    rt = project.runtime()
    rt.config.data.setdefault("tools", {})
    out = call(rt, "pay", amount=1, to="x")
    assert out.status == "ok"
    recorder = EventRecorder()
    rt.register(recorder, name="recorder")
    call(rt, "pay", amount=1, to="x")
    quiet = [e for e in recorder.events if e.event == "hook.decision" and e.plugin == "cedar"]
    assert quiet == []


def test_default_deny_blocks_what_no_permit_allows(project: Any, call: Any) -> None:
    project.policy('permit (principal in Role::"ops", action == Action::"restart", resource);\n')
    rt = project.runtime(default="deny")
    out = call(rt, "restart", sender=BOB, service="db", env="prod")
    assert out.status == "blocked"
    assert 'default = "deny"' in out.reason
    ops = {"id": "olga", "roles": ["ops"]}
    assert call(rt, "restart", sender=ops, service="db", env="prod").status == "ok"
    assert call(rt, "pay", sender=ops, amount=1, to="x").status == "blocked"


def test_default_deny_blocks_even_when_an_ask_also_matched(project: Any, call: Any) -> None:
    project.policy(
        'permit (principal in Role::"ops", action, resource);\n'
        '@decision("ask")\nforbid (principal, action == Action::"restart", resource);\n'
    )
    rt = project.runtime(default="deny")
    out = call(rt, "restart", sender=BOB, service="db", env="prod")
    assert out.status == "blocked"
    assert "would also ask" in out.reason
    # with a permit, the ask stands (no approver here: denied, not blocked)
    out = call(rt, "restart", sender={"id": "o", "roles": ["ops"]}, service="db", env="prod")
    assert out.status == "denied"


def test_an_evaluation_error_fails_closed_naming_the_policy(project: Any, call: Any) -> None:
    # Valid for the schema, but the record lookup fails at run time for a call without memo.
    project.policy(
        "permit (principal, action, resource);\n"
        '@id("memo-check")\nforbid (principal, action == Action::"pay", resource)\n'
        'when { context.input has memo && context.input.memo like "*x*" } ;\n'
        '@id("broken")\nforbid (principal, action == Action::"fetch", resource)\n'
        "when { context.input.url.isEmpty() };\n",
    )
    rt = project.runtime(schema="none")
    out = call(rt, "fetch", url="https://a.example")
    assert out.status == "blocked"
    assert "'broken'" in out.reason
    assert "fail closed" in out.reason


def test_an_erroring_permit_also_blocks(project: Any, call: Any) -> None:
    project.policy(
        '@id("bad-permit")\npermit (principal, action, resource) when { context.input.nope == 1 };\n'
    )
    rt = project.runtime(schema="none")
    out = call(rt, "fetch", url="https://a.example")
    assert out.status == "blocked"
    assert "'bad-permit'" in out.reason


def test_the_event_names_the_policy(project: Any, call: Any) -> None:
    project.policy(PAYMENTS)
    rt = project.runtime()
    recorder = EventRecorder()
    rt.register(recorder, name="recorder")
    call(rt, "pay", sender=BOB, amount=600, to="DE89")
    (event,) = [e for e in recorder.events if e.event == "cedar.matched"]
    assert event.data["policy"] == "big-payments"
    assert event.data["file"] == "policies/main.cedar"
    assert event.data["line"] == 1
    assert event.data["decision"] == "block"
