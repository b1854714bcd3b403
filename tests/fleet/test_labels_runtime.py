"""Labels in the hook API (``AfterToolCallResult.labels``, ``ToolResult.labels``) and the
runtime's label store and trusted input (``rt.label_store``, ``rt.trust``, ``rt.atrust``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from toolhooks import AfterToolCallResult, Runtime, ToolCall, ToolResult, hookimpl
from toolhooks.stores import MemoryLabelStore, RedisLabelStore, SQLiteLabelStore
from toolhooks.testing import EventRecorder


class Scanner:
    """A third-party scanner: labels results that hold a key."""

    name = "scanner"

    @hookimpl
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> AfterToolCallResult | None:
        if "KEY=" in result.content:
            return AfterToolCallResult(labels=("secret",))
        return None


class Outside:
    name = "outside"

    @hookimpl(priority=5)
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> dict[str, Any]:
        return {"labels": ["outside", "secret"]}


class Seen:
    """The last after hook: what it reads in ``result.labels``."""

    name = "seen"

    def __init__(self) -> None:
        self.labels: list[frozenset[str]] = []

    @hookimpl(priority=-20_000)
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> None:
        self.labels.append(result.labels)


def _runtime(*plugins: Any) -> Runtime:
    rt = Runtime(plugins=plugins, config={}, load_entrypoints=False)
    rt.add_tool(lambda: "KEY=sk-live-abcdef123456", name="read_env")
    rt.add_tool(lambda: "nothing here", name="read_page")
    return rt


def test_labels_given_by_handlers_add_up_and_later_handlers_see_them() -> None:
    seen, recorder = Seen(), EventRecorder()
    rt = _runtime(Scanner(), Outside(), seen, recorder)
    assert rt.call({"name": "read_env", "session_id": "s"}).status == "ok"
    assert rt.call({"name": "read_page", "session_id": "s"}).status == "ok"
    assert seen.labels == [frozenset({"secret", "outside"}), frozenset({"outside", "secret"})]
    given = [
        (e.plugin, e.data["labels"])
        for e in recorder.events
        if e.event == "hook.decision" and e.data.get("hook") == "after_tool_call"
    ]
    assert ("outside", ["outside", "secret"]) in given
    assert ("scanner", ["secret"]) in given


@pytest.mark.parametrize(
    ("returned", "error"),
    [
        ({"labels": [""]}, "non-empty string"),
        ({"labels": [3]}, "non-empty string"),
        ({"labels": 3}, "must be a list of strings"),
        ({"labels": ["x" * 129]}, "at most 128"),
    ],
)
def test_bad_labels_are_a_failed_handler(returned: dict[str, Any], error: str) -> None:
    class Bad:
        name = "bad"

        @hookimpl
        def after_tool_call(self) -> dict[str, Any]:
            return returned

    recorder = EventRecorder()
    seen = Seen()
    rt = _runtime(Bad(), seen, recorder)
    assert rt.call({"name": "read_page", "session_id": "s"}).status == "ok"
    failures = recorder.of("hook.error")
    assert failures and error in str(failures[0].data)
    assert seen.labels == [frozenset()]


def test_a_lone_string_is_one_label() -> None:
    class One:
        name = "one"

        @hookimpl
        def after_tool_call(self) -> dict[str, Any]:
            return {"labels": "outside"}

    seen = Seen()
    _runtime(One(), seen).call({"name": "read_page", "session_id": "s"})
    assert seen.labels == [frozenset({"outside"})]


def test_trust_keeps_the_users_tokens_for_the_session() -> None:
    rt = _runtime()
    assert isinstance(rt.label_store, MemoryLabelStore)
    rt.label_store.record("s", ["outside"], {"alice@example.com", "mallory@evil.example"})
    rt.trust("s", "Please send the report to alice@example.com")
    found = rt.label_store.provenance("s", {"alice@example.com"}, ["outside"])
    assert found is None
    found = rt.label_store.provenance("s", {"mallory@evil.example"}, ["outside"])
    assert found is not None
    asyncio.run(rt.atrust("s", "and to mallory@evil.example too"))
    assert rt.label_store.provenance("s", {"mallory@evil.example"}, ["outside"]) is None
    with pytest.raises(ValueError, match="session id"):
        rt.trust("", "text")
    with pytest.raises(TypeError, match="user's text"):
        rt.trust("s", ["not", "text"])  # type: ignore[arg-type]


def test_the_label_store_follows_the_state_url(state_table: dict[str, object]) -> None:
    rt = Runtime(config={"state": state_table}, load_entrypoints=False)
    assert isinstance(rt.label_store, RedisLabelStore)
    rt.trust("s", "send to alice@example.com")
    asyncio.run(rt.atrust("s", "and bob@example.org"))
    rt.label_store.record("s", ["outside"], {"alice@example.com", "bob@example.org"})
    other = Runtime(config={"state": state_table}, load_entrypoints=False)
    assert other.label_store.provenance("s", {"bob@example.org"}, ["outside"]) is None


def test_a_bridge_sets_its_own_store(tmp_path: Any) -> None:
    rt = _runtime()
    rt.label_store = SQLiteLabelStore(tmp_path / "labels.db")
    rt.trust("s", "alice@example.com")
    again = _runtime()
    again.label_store = SQLiteLabelStore(tmp_path / "labels.db")
    again.label_store.record("s", ["outside"], {"alice@example.com"})
    assert again.label_store.provenance("s", {"alice@example.com"}, ["outside"]) is None
    rt.label_store.close()
    again.label_store.close()
