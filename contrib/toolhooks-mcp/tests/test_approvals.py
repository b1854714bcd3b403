"""Approvals through the MCP client: elicitation in the call (handshake era) and input-required
rounds (2026-07-28), allow / deny / edit, replayed or tampered answers, and clients that cannot ask."""

from __future__ import annotations

import json

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from toolhooks import hookimpl
from toolhooks_mcp import META_KEY, Proxy

WRITE = {"path": "/notes/todo.txt", "content": "buy milk"}


class AskForWrites:
    @hookimpl
    def before_tool_call(self, call):
        if call.name == "files__write_file":
            return {
                "require_approval": {
                    "title": "Write a file",
                    "description": f"Write {len(call.params['content'])} bytes to {call.params['path']}",
                    "allowed_decisions": ["allow-once", "deny", "edit"],
                }
            }
        return None


def answering(*answers, asked=None):
    """An elicitation callback that gives ``answers`` in turn and records what it was shown."""
    queue = list(answers)

    async def on_elicit(context, params):
        if asked is not None:
            asked.append(params)
        return queue.pop(0)

    return on_elicit


def accept(**content):
    return types.ElicitResult(action="accept", content=content)


def proxy_for(config):
    return Proxy(config(only=["AskForWrites"]), plugins=[AskForWrites()])


def test_allow_through_the_client_runs_the_frozen_params(config, log, received, connected, era):
    asked = []

    async def main():
        callback = answering(accept(decision="allow-once"), asked=asked)
        async with connected(proxy_for(config), era, elicitation_callback=callback) as client:
            result = await client.call_tool("files__write_file", WRITE)
            assert not result.is_error, result.content
            assert result.meta[META_KEY]["status"] == "ok"

    anyio.run(main)
    assert [entry["arguments"] for entry in received(log)] == [WRITE]
    (shown,) = asked
    assert (
        "Write 8 bytes to /notes/todo.txt" in shown.message and "files__write_file" in shown.message
    )
    assert shown.requested_schema["properties"]["decision"]["enum"] == [
        "allow-once",
        "deny",
        "edit",
    ]


def test_deny_and_decline_run_nothing(config, log, received, connected, era):
    async def main():
        callback = answering(
            accept(decision="deny", reason="not today"), types.ElicitResult(action="decline")
        )
        async with connected(proxy_for(config), era, elicitation_callback=callback) as client:
            first = await client.call_tool("files__write_file", WRITE)
            second = await client.call_tool("files__write_file", WRITE)
        for result in (first, second):
            assert result.is_error and result.meta[META_KEY]["status"] == "denied"
        assert "not today" in first.content[0].text
        assert "the user declined" in second.content[0].text

    anyio.run(main)
    assert received(log) == []


def test_edit_runs_the_edited_params(config, log, received, connected, era):
    edited = {"path": "/notes/todo.txt", "content": "buy oat milk"}

    async def main():
        callback = answering(accept(decision="edit", params=json.dumps(edited)))
        async with connected(proxy_for(config), era, elicitation_callback=callback) as client:
            result = await client.call_tool("files__write_file", WRITE)
            assert not result.is_error, result.content
            assert result.content[0].text == "wrote 12 bytes to /notes/todo.txt"

    anyio.run(main)
    assert [entry["arguments"] for entry in received(log)] == [edited]


def test_a_client_that_cannot_elicit_is_denied_with_the_reason(
    config, log, received, connected, era
):
    async def main():
        async with connected(proxy_for(config), era) as client:
            result = await client.call_tool("files__write_file", WRITE)
            assert result.is_error and result.meta[META_KEY]["status"] == "denied"
            assert result.content[0].text.endswith(
                "Approval unavailable (the MCP client cannot elicit)"
            )

    anyio.run(main)
    assert received(log) == []


def test_a_replayed_answer_runs_nothing_and_a_tampered_state_is_refused(
    config, log, received, connected
):
    async def main():
        callback = answering(accept(decision="allow-once"))
        async with connected(
            proxy_for(config), "2026-07-28", elicitation_callback=callback
        ) as client:
            session = client.session
            first = await session.call_tool("files__write_file", WRITE, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult)
            (key,) = first.input_requests
            answers = {key: accept(decision="allow-once")}
            done = await session.call_tool(
                "files__write_file", WRITE, input_responses=answers, request_state=first.request_state,
                allow_input_required=True,
            )  # fmt: skip
            assert isinstance(done, types.CallToolResult) and not done.is_error
            replayed = await session.call_tool(
                "files__write_file", WRITE, input_responses=answers, request_state=first.request_state,
                allow_input_required=True,
            )  # fmt: skip
            assert isinstance(replayed, types.CallToolResult) and replayed.is_error
            assert replayed.meta[META_KEY]["status"] != "ok"
            state = first.request_state
            tampered = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
            with pytest.raises(MCPError) as caught:
                await session.call_tool(
                    "files__write_file", WRITE, input_responses=answers, request_state=tampered,
                    allow_input_required=True,
                )  # fmt: skip
            assert caught.value.error.message == "Invalid or expired requestState"
            other = {"path": "/etc/passwd", "content": "x"}
            with pytest.raises(MCPError):  # the state is bound to the arguments it was minted for
                await session.call_tool(
                    "files__write_file", other, input_responses=answers, request_state=state,
                    allow_input_required=True,
                )  # fmt: skip

    anyio.run(main)
    assert [entry["arguments"] for entry in received(log)] == [WRITE]


def test_a_client_that_cannot_elicit_uses_the_configured_route(
    config, log, received, connected, tmp_path
):
    """[approvals] route = "queue": the call waits for a decision another process writes."""
    import time

    from toolhooks import SQLiteStore

    db = tmp_path / "approvals.db"
    settings = config(only=["AskForWrites"])
    settings["approvals"] = {"route": "queue", "db": str(db), "poll_interval_s": 0.05}
    decided = []

    def decide_when_asked():
        store = SQLiteStore(db)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:  # poll for the request, like an operator would
                rows = store.list(states=["pending"])
                if rows:
                    decided.append(store.decide(rows[0].id, "allow-once", by="ops") is not None)
                    return
                time.sleep(0.05)
        finally:
            store.close()

    async def main():
        async with connected(Proxy(settings, plugins=[AskForWrites()]), "legacy") as client:
            async with anyio.create_task_group() as group:
                group.start_soon(anyio.to_thread.run_sync, decide_when_asked)
                result = await client.call_tool("files__write_file", WRITE)
            assert not result.is_error, result.content

    anyio.run(main)
    assert decided == [True]
    assert [entry["arguments"] for entry in received(log)] == [WRITE]


def test_a_task_call_asking_the_client_answers_with_the_round_first(
    config, log, received, connected
):
    """Issue #43: a task-augmented call whose approval is the client's to give (2026-07-28)
    answers with the input-required round, not a task; the retry runs as a plain call."""
    from pydantic import TypeAdapter
    from toolhooks_mcp import TaskHandle

    answer = TypeAdapter(TaskHandle | types.CallToolResult | types.InputRequiredResult)

    async def main():
        callback = answering(accept(decision="allow-once"))
        async with connected(
            proxy_for(config), "2026-07-28", elicitation_callback=callback
        ) as client:
            asked = types.CallToolRequest(
                params=types.CallToolRequestParams(
                    name="files__write_file", arguments=WRITE, task=types.TaskMetadata(ttl=60_000)
                )
            )
            first = await client.session.send_request(asked, answer)
            assert isinstance(first, types.InputRequiredResult)
            assert received(log) == []
            (key,) = first.input_requests
            done = await client.session.call_tool(
                "files__write_file", WRITE, request_state=first.request_state,
                input_responses={key: accept(decision="allow-once")}, allow_input_required=True,
            )  # fmt: skip
            assert isinstance(done, types.CallToolResult) and not done.is_error, done

    anyio.run(main)
    assert [call["tool"] for call in received(log)] == ["write_file"]
