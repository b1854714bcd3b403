"""Tools: strict validation (what runs is what the hooks saw), ``**kwargs`` tools, and
registration while other threads call (issue #10 items 5, 10 and 13)."""

from __future__ import annotations

import datetime
import enum
import sys
import threading
import time
from typing import Any

import pytest
from toolhooks import Runtime, ToolCall, hookimpl


class Colour(enum.Enum):
    red = "red"


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(load_entrypoints=False, config={})
    yield runtime
    runtime.close()


# -- item 5: no lax coercion -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"recursive": "true"}, "recursive", "Input should be a valid boolean"),
        ({"recursive": 1}, "recursive", "Input should be a valid boolean"),
        ({"recursive": False, "limit": "1000000"}, "limit", "Input should be a valid integer"),
        ({"recursive": False, "limit": 5.0}, "limit", "Input should be a valid integer"),
        ({"recursive": False, "limit": True}, "limit", "Input should be a valid integer"),
        ({"recursive": False, "ratio": "0.5"}, "ratio", "Input should be a valid number"),
        ({"recursive": False, "ratio": True}, "ratio", "Input should be a valid number"),
        ({"recursive": False, "name": 5}, "name", "Input should be a valid string"),
        ({"recursive": False, "ids": [1, "2"]}, "ids.1", "Input should be a valid integer"),
    ],
)
def test_a_value_of_the_wrong_type_is_blocked_by_toolhooks_naming_the_field(
    rt: Runtime, params: dict[str, Any], field: str, message: str
) -> None:
    ran: list[dict[str, Any]] = []

    @rt.tool
    def delete(
        recursive: bool,
        limit: int = 10,
        ratio: float = 1.0,
        name: str = "",
        ids: list[int] | None = None,
    ) -> str:
        ran.append({"recursive": recursive, "limit": limit})
        return "deleted"

    outcome = rt.call({"name": "delete", "params": params})
    assert (outcome.status, outcome.blocked_by) == ("blocked", "toolhooks")
    assert outcome.reason == f"Invalid params for tool 'delete': field '{field}': {message}"
    assert ran == []


def test_a_guard_that_checks_the_type_sees_exactly_what_runs(rt: Runtime) -> None:
    """A guard testing ``recursive is True`` must not be passed by "true" or 1."""
    ran: list[Any] = []

    class Guard:
        @hookimpl
        def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
            if call.params.get("recursive") is True:
                return {"block": True, "block_reason": "no recursive deletes"}
            return None

    rt.register(Guard())

    @rt.tool
    def delete(path: str, recursive: bool = False) -> str:
        ran.append(recursive)
        return "ok"

    for sneaky in ("true", 1, "1"):
        outcome = rt.call({"name": "delete", "params": {"path": "/", "recursive": sneaky}})
        assert (outcome.status, outcome.blocked_by) == ("blocked", "toolhooks")
        assert "field 'recursive'" in (outcome.reason or "")
    outcome = rt.call({"name": "delete", "params": {"path": "/", "recursive": True}})
    assert (outcome.status, outcome.reason) == ("blocked", "no recursive deletes")
    assert ran == []


def test_an_int_for_a_number_and_json_spellings_are_accepted(rt: Runtime) -> None:
    seen: dict[str, Any] = {}

    @rt.tool
    def plan(
        ratio: float,
        day: datetime.date | None = None,
        colour: Colour | None = None,
        pair: tuple[int, int] | None = None,
    ) -> str:
        seen.update(ratio=ratio, day=day, colour=colour, pair=pair)
        return "planned"

    outcome = rt.call(
        {
            "name": "plan",
            "params": {"ratio": 2, "day": "2026-12-02", "colour": "red", "pair": [1, 2]},
        }
    )
    assert (outcome.status, outcome.content) == ("ok", "planned")
    assert seen == {
        "ratio": 2.0,
        "day": datetime.date(2026, 12, 2),
        "colour": Colour.red,
        "pair": (1, 2),
    }


def test_a_hook_rewrite_to_the_wrong_type_is_blocked_too(rt: Runtime) -> None:
    class Rewriter:
        @hookimpl
        def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
            return {"params": {"count": "3"}}

    rt.register(Rewriter())
    rt.add_tool(lambda count: count * 2, name="double")
    outcome = rt.call({"name": "double", "params": {"count": 3}})
    # An unannotated parameter takes any JSON value: "3" is a string and stays one.
    assert (outcome.status, outcome.value) == ("ok", "33")

    @rt.tool
    def triple(count: int) -> int:
        return count * 3

    outcome = rt.call({"name": "triple", "params": {"count": 3}})
    assert (outcome.status, outcome.blocked_by) == ("blocked", "toolhooks")
    assert outcome.reason == (
        "Invalid params for tool 'triple': field 'count': Input should be a valid integer"
    )


# -- item 13: **kwargs tools -------------------------------------------------------------------


def test_a_kwargs_tool_keeps_its_declared_schema_and_passes_extra_keys_through(
    rt: Runtime,
) -> None:
    received: dict[str, Any] = {}

    @rt.tool
    def search(query: str, limit: int = 5, **options: Any) -> str:
        received.update(query=query, limit=limit, options=options)
        return "found"

    (spec,) = rt.tool_specs()
    assert spec.parameters["additionalProperties"] is True
    assert spec.parameters["required"] == ["query"]
    assert spec.parameters["properties"]["limit"] == {
        "default": 5,
        "title": "Limit",
        "type": "integer",
    }
    assert "options" not in spec.parameters["properties"]

    outcome = rt.call(
        {"name": "search", "params": {"query": "q", "lang": "en", "filters": {"year": [2024]}}}
    )
    assert (outcome.status, outcome.content) == ("ok", "found")
    assert received == {
        "query": "q",
        "limit": 5,
        "options": {"lang": "en", "filters": {"year": [2024]}},
    }
    assert outcome.params == {"query": "q", "lang": "en", "filters": {"year": [2024]}}

    # Declared parameters are still validated strictly.
    outcome = rt.call({"name": "search", "params": {"query": "q", "limit": "9", "x": 1}})
    assert (outcome.status, outcome.blocked_by) == ("blocked", "toolhooks")
    assert "field 'limit': Input should be a valid integer" in (outcome.reason or "")


def test_a_tool_with_only_kwargs_takes_any_keys(rt: Runtime) -> None:
    @rt.tool
    def anything(**params: Any) -> str:
        return ",".join(f"{k}={v}" for k, v in sorted(params.items()))

    (spec,) = rt.tool_specs()
    assert spec.parameters["additionalProperties"] is True
    outcome = rt.call({"name": "anything", "params": {"b": 2, "a": "x"}})
    assert (outcome.status, outcome.content) == ("ok", "a=x,b=2")


def test_a_tool_with_star_args_is_still_rejected(rt: Runtime) -> None:
    def spread(*values: int) -> int:
        return sum(values)

    with pytest.raises(ValueError, match=r"tool 'spread': \*args cannot be described"):
        rt.add_tool(spread)


# -- item 10: add_tool while other threads call ------------------------------------------------


def test_adding_tools_never_makes_a_concurrent_call_miss_a_registered_tool(
    rt: Runtime,
) -> None:
    @rt.tool
    def ping() -> str:
        return "pong"

    stop = threading.Event()
    missed: list[str] = []
    calls = [0]

    def caller() -> None:
        while not stop.is_set():
            outcome = rt.call({"name": "ping"})
            calls[0] += 1
            if outcome.status != "ok":
                missed.append(outcome.reason or outcome.status)

    def adder() -> None:
        for index in range(3000):
            rt.add_tool(lambda: "x", name=f"tool_{index}")

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=caller) for _ in range(2)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        while calls[0] < 50 and time.monotonic() < deadline:
            time.sleep(0.001)
        adder()
        stop.set()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert calls[0] >= 50
    assert missed == []
