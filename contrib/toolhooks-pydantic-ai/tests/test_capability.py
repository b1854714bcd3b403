"""The capability's own behaviour beyond the shared scenarios: scope, results, steering exceptions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.exceptions import ModelRetry, ToolFailed
from pydantic_ai.messages import ModelRequest, ToolReturnPart
from toolhooks import Runtime, ToolCall, ToolSpec, hookimpl
from toolhooks.testing import EventRecorder
from toolhooks.testing.scenarios import ToolMessage

ScriptFactory = Callable[[list[dict[str, Any]]], Any]
Reader = Callable[[list[Any]], tuple[ToolMessage, ...]]

from toolhooks_pydantic_ai import ToolhooksCapability  # noqa: E402


class Calls:
    """Keeps every ToolCall the before chain saw."""

    name = "calls"

    def __init__(self) -> None:
        self.seen: list[ToolCall] = []

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        self.seen.append(call)


class Noter:
    name = "noter"

    @hookimpl
    def after_tool_call(self) -> dict[str, str]:
        return {"note": "NOTE: checked by toolhooks"}


def tool_returns(messages: list[Any]) -> list[ToolReturnPart]:
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


def events_by_call(recorder: EventRecorder) -> dict[str | None, list[str]]:
    by_call: dict[str | None, list[str]] = {}
    for event in recorder.events:
        by_call.setdefault(event.call_id, []).append(event.event)
    return by_call


def test_the_call_carries_the_tool_call_id_run_conversation_sender_and_agent(
    script: ScriptFactory,
) -> None:
    calls = Calls()
    rt = Runtime(plugins=[calls], config={}, load_entrypoints=False)
    capability = ToolhooksCapability(
        rt, sender=lambda ctx: {"id": f"user-{ctx.deps}", "roles": ["dev"]}, agent_id="triage"
    )
    agent = Agent(
        script([{"name": "ping", "params": {}}]).model, deps_type=int, capabilities=[capability]
    )

    @agent.tool_plain
    def ping() -> str:
        """Ping."""
        return "pong"

    result = agent.run_sync("go", deps=7)
    rt.close()
    [call] = calls.seen
    assert call.id == "call_0"
    assert call.run_id == result.run_id
    assert call.session_id == result.conversation_id
    assert call.session_id is not None
    assert call.agent_id == "triage"
    assert call.sender is not None
    assert (call.sender.id, call.sender.roles) == ("user-7", ("dev",))


def test_a_fixed_session_id_replaces_the_conversation(script: ScriptFactory) -> None:
    calls = Calls()
    rt = Runtime(plugins=[calls], config={}, load_entrypoints=False)
    capability = ToolhooksCapability(rt, session_id="ticket-42")
    agent = Agent(script([{"name": "ping", "params": {}}]).model, capabilities=[capability])

    @agent.tool_plain
    def ping() -> str:
        """Ping."""
        return "pong"

    agent.run_sync("go")
    rt.close()
    assert [call.session_id for call in calls.seen] == ["ticket-42"]


def test_a_value_no_hook_touched_is_rendered_by_pydantic_ai_itself(
    script: ScriptFactory, read_messages: Reader
) -> None:
    rt = Runtime(config={}, load_entrypoints=False)
    agent = Agent(
        script([{"name": "stats", "params": {}}]).model, capabilities=[ToolhooksCapability(rt)]
    )

    @agent.tool_plain
    def stats() -> dict[str, int]:
        """Count things."""
        return {"files": 3}

    result = agent.run_sync("go")
    rt.close()
    assert [part.content for part in tool_returns(result.all_messages())] == [{"files": 3}]


def test_once_a_hook_adds_a_note_the_model_gets_toolhooks_text(
    script: ScriptFactory, read_messages: Reader
) -> None:
    rt = Runtime(plugins=[Noter()], config={}, load_entrypoints=False)
    agent = Agent(
        script([{"name": "stats", "params": {}}]).model, capabilities=[ToolhooksCapability(rt)]
    )

    @agent.tool_plain
    def stats() -> dict[str, int]:
        """Count things."""
        return {"files": 3}

    result = agent.run_sync("go")
    rt.close()
    [message] = read_messages(result.all_messages())
    assert message.content == '{"files": 3}\n\nNOTE: checked by toolhooks'
    assert message.is_error is False


def test_a_tools_own_tool_failed_is_a_toolhooks_error_with_exactly_its_message(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = EventRecorder()
    rt = Runtime(plugins=[recorder], config={}, load_entrypoints=False)
    agent = Agent(
        script([{"name": "fetch", "params": {"url": "x"}}]).model,
        capabilities=[ToolhooksCapability(rt)],
    )

    @agent.tool_plain
    def fetch(url: str) -> str:
        """Fetch a URL."""
        raise ToolFailed(f"{url} is gone for good")

    result = agent.run_sync("go")
    rt.close()
    [message] = read_messages(result.all_messages())
    assert message.is_error is True
    assert message.content == '{"error":"x is gone for good"}'
    [injected] = recorder.of("tool.injected")
    assert injected.data["status"] == "error"


def test_model_retry_from_a_tool_passes_through_and_is_recorded(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = EventRecorder()
    rt = Runtime(plugins=[recorder], config={}, load_entrypoints=False)
    proposals = [
        {"name": "lookup", "params": {"key": "Ab"}},
        {"name": "lookup", "params": {"key": "ab"}},
    ]
    agent = Agent(script(proposals).model, capabilities=[ToolhooksCapability(rt)])

    @agent.tool_plain(retries=2)
    def lookup(key: str) -> str:
        """Look a key up."""
        if key != key.lower():
            raise ModelRetry("keys are lower case")
        return f"{key}: found"

    result = agent.run_sync("go")
    rt.close()
    parts = tool_returns(result.all_messages())
    # PydanticAI's own retry prompt, not a failed result: the exception reached it unchanged.
    assert [part.outcome for part in parts] == ["retried", "success"]
    assert "keys are lower case" in parts[0].model_response_str()
    assert parts[1].content == "ab: found"
    by_call = events_by_call(recorder)
    assert sorted(by_call) == ["call_0", "call_1"]
    for names in by_call.values():
        assert names.count("tool.proposed") == names.count("tool.injected") == 1
        assert names[-1] == "tool.injected"


def test_hide_tools_false_offers_every_tool(script: ScriptFactory) -> None:
    class HideAll:
        name = "hide_all"

        @hookimpl
        def tool_visible(self) -> bool:
            return False

    rt = Runtime(plugins=[HideAll()], config={}, load_entrypoints=False)
    made = script([])
    agent = Agent(made.model, capabilities=[ToolhooksCapability(rt, hide_tools=False)])

    @agent.tool
    def ping(ctx: RunContext[None]) -> str:
        """Ping."""
        return "pong"

    agent.run_sync("go")
    rt.close()
    assert made.offered == [frozenset({"ping"})]


class HideDeletes:
    name = "hide_deletes"

    @hookimpl
    def tool_visible(self, tool: ToolSpec) -> bool | None:
        return False if tool.name == "delete_branch" else None


def test_a_model_that_keeps_calling_a_hidden_tool_gets_a_block_each_time(
    script: ScriptFactory, read_messages: Reader
) -> None:
    recorder = EventRecorder()
    rt = Runtime(plugins=[HideDeletes(), recorder], config={}, load_entrypoints=False)
    made = script([{"name": "delete_branch", "params": {"name": "main"}}] * 3)
    agent = Agent(made.model, capabilities=[ToolhooksCapability(rt)])
    ran: list[str] = []

    @agent.tool_plain
    def delete_branch(name: str) -> str:
        """Delete a git branch."""
        ran.append(name)
        return f"deleted {name}"

    result = agent.run_sync("go")  # PydanticAI would end the run at its retry limit
    rt.close()
    assert result.output == "done"
    assert ran == []
    assert all(offered == frozenset() for offered in made.offered)
    messages = read_messages(result.all_messages())
    assert [m.is_error for m in messages] == [True] * 3
    assert all("hidden by plugin hide_deletes" in m.content for m in messages)
    assert [event.data["by"] for event in recorder.of("tool.blocked")] == ["hide_deletes"] * 3


class HideSideEffects:
    """Hides tools tagged side_effect, and keeps the specs it was shown."""

    name = "hide_side_effects"

    def __init__(self) -> None:
        self.shown: dict[str, ToolSpec] = {}

    @hookimpl
    def tool_visible(self, tool: ToolSpec) -> bool | None:
        self.shown[tool.name] = tool
        return False if "side_effect" in tool.tags else None


def test_tools_reach_tool_visible_with_description_schema_and_tags_from_metadata(
    script: ScriptFactory,
) -> None:
    hider = HideSideEffects()
    rt = Runtime(plugins=[hider], config={}, load_entrypoints=False)
    made = script([])
    agent = Agent(made.model, capabilities=[ToolhooksCapability(rt)])

    @agent.tool_plain(metadata={"toolhooks": {"tags": ["side_effect"]}})
    def send_mail(to: str) -> str:
        """Send a mail."""
        return f"sent to {to}"

    @agent.tool_plain
    def read_inbox(limit: int = 10) -> str:
        """Read the inbox."""
        return "empty"

    agent.run_sync("go")
    rt.close()
    assert made.offered == [frozenset({"read_inbox"})]
    mail = hider.shown["send_mail"]
    assert (mail.description, mail.tags) == ("Send a mail.", frozenset({"side_effect"}))
    assert mail.parameters["properties"]["to"]["type"] == "string"
    assert {spec.name for spec in rt.tool_specs()} == {"send_mail", "read_inbox"}


def test_the_user_prompt_is_the_sessions_trusted_input(script: ScriptFactory) -> None:
    rt = Runtime(config={}, load_entrypoints=False)
    capability = ToolhooksCapability(rt, session_id="ticket-7")
    agent = Agent(script([{"name": "ping", "params": {}}]).model, capabilities=[capability])

    @agent.tool_plain
    def ping() -> str:
        """Ping."""
        return "pong"

    agent.run_sync("Pay GB29NWBK60161331926819 please")
    rt.label_store.record("ticket-7", ["outside"], {"gb29nwbk60161331926819", "de8937040044"})
    assert rt.label_store.provenance("ticket-7", {"gb29nwbk60161331926819"}, ["outside"]) is None
    assert rt.label_store.provenance("ticket-7", {"de8937040044"}, ["outside"]) is not None
    rt.close()
