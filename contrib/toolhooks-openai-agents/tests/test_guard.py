"""Guarding FunctionTools: what the tool receives, what the model reads, what is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from agents import (
    Agent,
    FunctionTool,
    ModelBehaviorError,
    RunConfig,
    Runner,
    ToolOutputImage,
    WebSearchTool,
    function_tool,
)
from agents.items import ToolCallOutputItem
from agents.result import RunResult
from agents.testing import ScriptedModel, assistant_message, function_call
from toolhooks import Runtime, ToolCall, ToolResult, hookimpl
from toolhooks.testing import EventRecorder
from toolhooks_openai_agents import guard_agent, guard_run_config, guard_tool, guard_tools

CONFIG = RunConfig(tracing_disabled=True)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def runtime(*plugins: Any, **kwargs: Any) -> tuple[Runtime, EventRecorder]:
    recorder = EventRecorder()
    return Runtime(plugins=[*plugins, recorder], load_entrypoints=False, **kwargs), recorder


def run(
    loop: asyncio.AbstractEventLoop, agent: Agent[Any], config: RunConfig = CONFIG
) -> RunResult:
    return loop.run_until_complete(Runner.run(agent, "go", run_config=config))


def scripted(*calls: tuple[str, Any]) -> ScriptedModel:
    steps: list[Any] = [
        [function_call(name, args, call_id=f"call_{i}")] for i, (name, args) in enumerate(calls)
    ]
    return ScriptedModel([*steps, [assistant_message("done")]])


def outputs(result: RunResult) -> list[ToolCallOutputItem]:
    return [item for item in result.new_items if isinstance(item, ToolCallOutputItem)]


def greet(name: str) -> str:
    """Greet someone."""
    return f"hello {name}"


class Recorder:
    """Keeps every call the before chain sees."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> None:
        self.calls.append(call)


# -- what the tool receives and what the model reads ---------------------------------------------


def test_a_rewrite_reaches_the_tool_as_its_json_arguments(loop: asyncio.AbstractEventLoop) -> None:
    received: list[str] = []

    async def invoke(ctx: Any, arguments: str) -> str:
        received.append(arguments)
        return "ok"

    raw = FunctionTool(
        name="greet",
        description="Greet someone.",
        params_json_schema={
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": False,
        },
        on_invoke_tool=invoke,
    )

    class Polite:
        @hookimpl
        def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
            return {"params": {"name": f"dear {call.params['name']}"}}

    rt, _ = runtime(Polite())
    agent = Agent(name="a", model=scripted(("greet", {"name": "Ada"})), tools=[guard_tool(rt, raw)])
    run(loop, agent)
    assert received == ['{"name":"dear Ada"}']


def test_an_exception_reaches_toolhooks_even_with_the_tools_own_failure_formatter(
    loop: asyncio.AbstractEventLoop,
) -> None:
    def hidden_error(ctx: Any, error: Exception) -> str:
        return "something went wrong"

    @function_tool(failure_error_function=hidden_error)
    def explode(reason: str) -> str:
        """Fail on purpose."""
        raise ValueError(f"broken: {reason}")

    rt, events = runtime()
    agent = Agent(name="a", model=scripted(("explode", {"reason": "x"})), tools=[explode])
    result = run(loop, guard_agent(rt, agent))
    [output] = outputs(result)
    assert output.output == "Tool 'explode' failed: ValueError: broken: x"
    assert output.custom_data == {"toolhooks": {"status": "error"}}
    [finished] = events.of("tool.finished")
    assert finished.data["status"] == "error"


def test_arguments_that_are_not_json_are_an_invalid_call_not_a_crash(
    loop: asyncio.AbstractEventLoop,
) -> None:
    # The SDK asks for approval itself, without the predicate, for arguments it cannot parse;
    # once approved, toolhooks records the call as invalid and the model reads why.
    rt, events = runtime()
    agent = guard_agent(
        rt, Agent(name="a", model=scripted(("greet", "{not json")), tools=[function_tool(greet)])
    )
    paused = run(loop, agent)
    [item] = paused.interruptions
    state = paused.to_state()
    state.approve(item)
    result = loop.run_until_complete(Runner.run(agent, state, run_config=CONFIG))
    [output] = outputs(result)
    assert output.output.startswith("Invalid tool call: ")
    assert result.final_output == "done"
    assert events.names() == ["tool.blocked", "tool.injected"]


def test_sender_agent_and_session_go_on_every_call(loop: asyncio.AbstractEventLoop) -> None:
    seen = Recorder()
    rt, _ = runtime(seen)
    agent = Agent(name="helper", model=scripted(("greet", {"name": "Ada"})), tools=[greet])
    run(loop, guard_agent(rt, agent, sender={"id": "u1", "roles": ["admin"]}, session_id="s9"))
    [call] = seen.calls
    assert (call.id, call.agent_id, call.session_id) == ("call_0", "helper", "s9")
    assert call.sender is not None and (call.sender.id, call.sender.roles) == ("u1", ("admin",))


def test_a_structured_output_survives_only_when_nothing_changed_it(
    loop: asyncio.AbstractEventLoop,
) -> None:
    @function_tool
    def snapshot(area: str) -> ToolOutputImage:
        """Take a picture."""
        return ToolOutputImage(image_url=f"https://example.test/{area}.png")

    class Note:
        @hookimpl
        def after_tool_call(self, result: ToolResult) -> dict[str, Any]:
            return {"content": "picture withheld"}

    rt, _ = runtime()
    agent = Agent(name="a", model=scripted(("snapshot", {"area": "desk"})), tools=[snapshot])
    [kept] = outputs(run(loop, guard_agent(rt, agent)))
    assert kept.output == ToolOutputImage(image_url="https://example.test/desk.png")

    rt, _ = runtime(Note())
    agent = Agent(name="a", model=scripted(("snapshot", {"area": "desk"})), tools=[snapshot])
    [changed] = outputs(run(loop, guard_agent(rt, agent)))
    assert changed.output == "picture withheld"


def test_the_tools_own_custom_data_is_kept_beside_the_status(
    loop: asyncio.AbstractEventLoop,
) -> None:
    tool = function_tool(greet, custom_data_extractor=lambda data: {"mine": data.output})
    rt, _ = runtime()
    agent = Agent(name="a", model=scripted(("greet", {"name": "Ada"})), tools=[tool])
    [output] = outputs(run(loop, guard_agent(rt, agent)))
    assert output.custom_data == {"mine": "hello Ada", "toolhooks": {"status": "ok"}}


# -- hiding ----------------------------------------------------------------------------------------


class HideGreet:
    @hookimpl
    def tool_visible(self, tool: Any) -> bool | None:
        return False if tool.name == "greet" else None


def test_a_hidden_tool_is_not_offered_and_a_call_to_it_is_a_recorded_output(
    loop: asyncio.AbstractEventLoop,
) -> None:
    rt, events = runtime(HideGreet())
    model = scripted(("greet", {"name": "Ada"}))
    agent = Agent(name="a", model=model, tools=[greet])
    result = run(loop, guard_agent(rt, agent), guard_run_config(rt, CONFIG))
    assert all(not call.tools for call in model.calls)
    [output] = outputs(result)
    assert "greet" in output.output and result.final_output == "done"
    [blocked] = events.of("tool.blocked")
    assert blocked.call_id == "call_0"
    assert events.of("tool.injected")[0].call_id == "call_0"


def test_without_guard_run_config_the_sdk_itself_ends_the_run(
    loop: asyncio.AbstractEventLoop,
) -> None:
    rt, _ = runtime(HideGreet())
    agent = Agent(name="a", model=scripted(("greet", {"name": "Ada"})), tools=[greet])
    with pytest.raises(ModelBehaviorError, match="greet"):
        run(loop, guard_agent(rt, agent))


def test_the_tools_own_is_enabled_still_hides_it(loop: asyncio.AbstractEventLoop) -> None:
    rt, _ = runtime()
    model = scripted()
    shown = function_tool(greet, name_override="shown")
    off = function_tool(greet, name_override="off", is_enabled=False)
    by_context = function_tool(greet, name_override="by_context", is_enabled=lambda ctx, a: False)
    run(loop, Agent(name="a", model=model, tools=guard_tools(rt, [shown, off, by_context])))
    assert [tool.name for tool in model.calls[0].tools] == ["shown"]


# -- what cannot be guarded ---------------------------------------------------------------------


def test_tools_that_run_elsewhere_are_refused_by_name() -> None:
    rt, _ = runtime()
    with pytest.raises(TypeError, match="WebSearchTool"):
        guard_tools(rt, [greet, WebSearchTool()])
    helper = Agent(name="helper", instructions="help")
    with pytest.raises(TypeError, match="nested agent"):
        guard_tool(rt, helper.as_tool(tool_name="helper", tool_description="Ask the helper."))


def test_guarding_registers_the_tool_with_its_schema_and_tags() -> None:
    rt, _ = runtime()
    guard_tool(rt, greet, tags=["read_only"])
    [spec] = rt.tool_specs()
    assert (spec.name, spec.tags) == ("greet", frozenset({"read_only"}))
    assert spec.parameters["required"] == ["name"]


def test_a_streamed_run_goes_through_the_same_pipeline(loop: asyncio.AbstractEventLoop) -> None:
    class Polite:
        @hookimpl
        def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
            return {"params": {"name": f"dear {call.params['name']}"}}

    rt, events = runtime(Polite())
    agent = Agent(name="a", model=scripted(("greet", {"name": "Ada"})), tools=[greet])

    async def drain() -> list[Any]:
        streamed = Runner.run_streamed(guard_agent(rt, agent), "go", run_config=CONFIG)
        async for _event in streamed.stream_events():
            pass
        return [i.output for i in streamed.new_items if isinstance(i, ToolCallOutputItem)]

    [output] = loop.run_until_complete(drain())
    assert output == "hello dear Ada"
    assert events.names().count("tool.injected") == 1


def test_the_users_input_is_the_sessions_trusted_input(loop: asyncio.AbstractEventLoop) -> None:
    @function_tool
    def pay(iban: str) -> str:
        """Pay."""
        return "paid"

    rt, _ = runtime()
    agent = Agent(name="payer", tools=[pay], model=scripted())
    guarded = guard_agent(rt, agent, session_id="s7")
    loop.run_until_complete(
        Runner.run(guarded, "Pay GB29NWBK60161331926819 please", run_config=CONFIG)
    )
    rt.label_store.record("s7", ["outside"], {"gb29nwbk60161331926819", "de8937040044"})
    assert rt.label_store.provenance("s7", {"gb29nwbk60161331926819"}, ["outside"]) is None
    assert rt.label_store.provenance("s7", {"de8937040044"}, ["outside"]) is not None
    # Without a session id nothing is trusted (and the agent keeps its own guardrails only).
    assert guard_agent(rt, agent).input_guardrails == agent.input_guardrails
