"""Arguments cross into toolhooks as JSON values and come back through PydanticAI's validator."""

from __future__ import annotations

import datetime
import enum
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, BaseModel, Field
from pydantic_ai import Agent
from toolhooks import Runtime, ToolCall, hookimpl
from toolhooks.testing import EventRecorder
from toolhooks.testing.scenarios import ToolMessage
from toolhooks_pydantic_ai import ToolhooksCapability, json_params
from toolhooks_pydantic_ai._params import ArgumentsUnreadable

ScriptFactory = Callable[[list[dict[str, Any]]], Any]
Reader = Callable[[list[Any]], tuple[ToolMessage, ...]]


class Colour(enum.Enum):
    RED = "red"


class Slot(BaseModel):
    room: str = Field(alias="roomName")
    start: datetime.datetime


class Recorder:
    """Keeps the params every before_tool_call saw, and optionally rewrites them."""

    name = "recorder"

    def __init__(self, rewrite: dict[str, Any] | None = None) -> None:
        self.seen: list[dict[str, Any]] = []
        self.calls: list[ToolCall] = []
        self.rewrite = rewrite

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> dict[str, Any] | None:
        self.seen.append(dict(call.params))
        self.calls.append(call)
        return {"params": self.rewrite} if self.rewrite else None


def booking_agent(script: Any, capability: ToolhooksCapability, got: list[dict[str, Any]]) -> Agent:
    agent = Agent(script.model, capabilities=[capability])

    @agent.tool_plain
    def book(day: datetime.date, slot: Slot, colour: Colour, tags: tuple[str, ...]) -> str:
        """Book a room."""
        got.append({"day": day, "slot": slot, "colour": colour, "tags": tags})
        return f"booked {slot.room} on {day.isoformat()}"

    return agent


PROPOSAL = {
    "name": "book",
    "params": {
        "day": "2026-12-03",
        "slot": {"roomName": "Ada", "start": "2026-12-03T09:30:00"},
        "colour": "red",
        "tags": ["team"],
    },
}


def test_hooks_see_json_values_and_the_tool_gets_pydantic_ais_own_objects(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = Recorder()
    rt = Runtime(plugins=[recorder], config={}, load_entrypoints=False)
    got: list[dict[str, Any]] = []
    agent = booking_agent(script([PROPOSAL]), ToolhooksCapability(rt), got)
    result = agent.run_sync("book it")
    rt.close()
    assert recorder.seen == [
        {
            "day": "2026-12-03",
            "slot": {"roomName": "Ada", "start": "2026-12-03T09:30:00"},
            "colour": "red",
            "tags": ["team"],
        }
    ]
    assert got == [
        {
            "day": datetime.date(2026, 12, 3),
            "slot": Slot(roomName="Ada", start=datetime.datetime(2026, 12, 3, 9, 30)),
            "colour": Colour.RED,
            "tags": ("team",),
        }
    ]
    assert [m.content for m in read_messages(result.all_messages())] == ["booked Ada on 2026-12-03"]


def test_a_rewrite_is_validated_again_by_pydantic_ai_into_the_tools_types(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = Recorder(rewrite={"day": "2027-01-04"})
    rt = Runtime(plugins=[recorder], config={}, load_entrypoints=False)
    got: list[dict[str, Any]] = []
    agent = booking_agent(script([PROPOSAL]), ToolhooksCapability(rt), got)
    result = agent.run_sync("book it")
    rt.close()
    assert got[0]["day"] == datetime.date(2027, 1, 4)
    assert got[0]["slot"] == Slot(roomName="Ada", start=datetime.datetime(2026, 12, 3, 9, 30))
    assert [m.content for m in read_messages(result.all_messages())] == ["booked Ada on 2027-01-04"]


def test_a_rewrite_that_does_not_fit_the_tool_never_runs_and_names_the_field(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = Recorder(rewrite={"day": "next tuesday"})
    rt = Runtime(plugins=[recorder], config={}, load_entrypoints=False)
    got: list[dict[str, Any]] = []
    agent = booking_agent(script([PROPOSAL]), ToolhooksCapability(rt), got)
    result = agent.run_sync("book it")
    rt.close()
    assert got == []
    [message] = read_messages(result.all_messages())
    assert message.is_error is True
    assert message.content.startswith(
        '{"error":"the params toolhooks decided on do not fit tool \'book\' (day: Input should be'
    )


def test_json_params_dumps_by_alias_and_refuses_what_has_no_json_form() -> None:
    assert json_params({"slot": Slot(roomName="B", start=datetime.datetime(2026, 1, 2))}) == {
        "slot": {"roomName": "B", "start": "2026-01-02T00:00:00"}
    }
    with pytest.raises(ArgumentsUnreadable, match="Unable to serialize unknown type"):
        json_params({"handle": object()})


def test_a_rewrite_is_read_strictly_so_a_string_is_never_coerced_into_a_flag(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = Recorder(rewrite={"force": "true"})
    rt = Runtime(plugins=[recorder], config={}, load_entrypoints=False)
    ran: list[bool] = []
    agent = Agent(
        script([{"name": "push", "params": {"force": False}}]).model,
        capabilities=[ToolhooksCapability(rt)],
    )

    @agent.tool_plain
    def push(force: bool) -> str:
        """Push the branch."""
        ran.append(force)
        return "pushed"

    result = agent.run_sync("push")
    rt.close()
    assert ran == []
    [message] = read_messages(result.all_messages())
    assert message.is_error is True
    assert "(force: Input should be a valid boolean)" in message.content


class Opaque:
    """A value with no JSON form, as an after validator may hand a tool."""


def test_arguments_with_no_json_form_are_refused_by_the_runtime_and_recorded(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = EventRecorder()
    rt = Runtime(plugins=[recorder], config={}, load_entrypoints=False)
    ran: list[Any] = []
    agent = Agent(
        script([{"name": "open_handle", "params": {"name": "db"}}]).model,
        capabilities=[ToolhooksCapability(rt)],
    )

    @agent.tool_plain
    def open_handle(name: Annotated[str, AfterValidator(lambda _: Opaque())]) -> str:
        """Open a handle."""
        ran.append(name)
        return "opened"

    result = agent.run_sync("go")
    rt.close()
    assert ran == []
    [message] = read_messages(result.all_messages())
    assert message.is_error is True
    assert "Invalid tool call:" in message.content
    assert recorder.names()[-1] == "tool.injected"
    assert recorder.of("tool.injected")[0].data["status"] == "blocked"
