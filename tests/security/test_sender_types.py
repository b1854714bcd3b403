"""Issue #21 items 1 and 2: a sender's fields have their types, and a sender given as JSON with
the wrong ones is an invalid call blocked by toolhooks naming the field, never an owner by
accident and never a crash."""

from __future__ import annotations

import json

import pytest
from toolhooks import Runtime, Sender, ToolCall, hookimpl


class SeesSender:
    """Records the sender every call reaches the before chain with."""

    def __init__(self) -> None:
        self.seen: list[Sender | None] = []

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        self.seen.append(call.sender)


def runtime() -> tuple[Runtime, SeesSender]:
    seer = SeesSender()
    rt = Runtime(config={}, load_entrypoints=False, plugins=[seer])

    @rt.tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    return rt, seer


@pytest.mark.parametrize("text", ["false", "False", "no", "0", "", "true"])
def test_is_owner_as_a_string_is_never_an_owner(text):
    rt, seer = runtime()
    outcome = rt.call({"name": "ping", "sender": {"id": "mallory", "is_owner": text}})
    assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
    assert "sender.is_owner" in outcome.reason
    assert seer.seen == []  # no plugin ever saw the sender


@pytest.mark.parametrize("value", [1, 0, None, [], {"x": 1}])
def test_is_owner_must_be_a_json_boolean(value):
    rt, _ = runtime()
    outcome = rt.call({"name": "ping", "sender": {"id": "a", "is_owner": value}})
    assert outcome.status == "blocked" and "sender.is_owner" in outcome.reason


@pytest.mark.parametrize(
    ("sender", "field"),
    [
        ({"id": "a", "name": 123}, "sender.name"),
        ({"id": "a", "name": {"x": 1}}, "sender.name"),
        ({"id": "a", "channel": ["slack"]}, "sender.channel"),
        ({"id": "a", "roles": "admin"}, "sender.roles"),
        ({"id": "a", "roles": ["admin", 7]}, "sender.roles"),
        ({"id": 42}, "sender.id"),
        ({"name": "no id"}, "sender.id"),
    ],
)
def test_each_field_has_its_type(sender, field):
    rt, seer = runtime()
    outcome = rt.call({"name": "ping", "sender": sender})
    assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
    assert field in outcome.reason, outcome.reason
    assert seer.seen == []


def test_a_well_typed_sender_reaches_the_plugins_as_given():
    rt, seer = runtime()
    wire = json.loads(
        '{"id": "o", "name": "Olga", "channel": "slack", "roles": ["admin"], "is_owner": true}'
    )
    assert rt.call({"name": "ping", "sender": wire}).status == "ok"
    assert seer.seen == [
        Sender(id="o", name="Olga", channel="slack", roles=("admin",), is_owner=True)
    ]
    assert rt.call({"name": "ping", "sender": {"id": "g", "is_owner": False}}).status == "ok"
    assert seer.seen[-1] is not None and seer.seen[-1].is_owner is False


def test_the_constructor_checks_too():
    """A plugin or adapter building a Sender in code gets the same rules."""
    with pytest.raises(ValueError, match=r"sender\.is_owner"):
        Sender(id="a", is_owner="false")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"sender\.name"):
        Sender(id="a", name=123)  # type: ignore[arg-type]
    assert Sender(id="a", roles=["x"]).roles == ("x",)  # type: ignore[arg-type]


def test_a_tenant_is_a_string_and_reaches_the_proposed_event():
    """Issue #43: an OAuth token's tenant claim names the sender's organisation."""
    with pytest.raises(ValueError, match=r"sender\.tenant"):
        Sender(id="a", tenant=["acme"])  # type: ignore[arg-type]
    from toolhooks.testing import EventRecorder

    recorder = EventRecorder()
    rt, seer = runtime()
    rt.register(recorder)
    assert rt.call({"name": "ping", "sender": {"id": "t", "tenant": "acme"}}).status == "ok"
    assert seer.seen == [Sender(id="t", tenant="acme")]
    (proposed,) = recorder.of("tool.proposed")
    assert proposed.data["sender_detail"] == {"tenant": "acme"}
    outcome = rt.call({"name": "ping", "sender": {"id": "t", "tenant": 7}})
    assert outcome.status == "blocked" and "sender.tenant" in outcome.content
