"""Tasks through the proxy: a task-capable upstream (tests/servers/tasks_upstream.py, the SDK's
low-level Server over stdio), the SDK's Client on the 2026-07-28 protocol in front."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter
from toolhooks import AfterToolCallResult, hookimpl
from toolhooks.testing import EventRecorder
from toolhooks_mcp import META_KEY, Proxy, TaskHandle, TaskList

SERVER = Path(__file__).resolve().parent / "servers" / "tasks_upstream.py"
SECRET = "sk-live-1234567890"
HANDLE = TypeAdapter(TaskHandle | types.CallToolResult)


class Redact:
    @hookimpl
    def after_tool_call(self, call, result):
        if SECRET in result.content:
            return AfterToolCallResult(
                content=result.content.replace(SECRET, "[redacted]"), labels=("secret",)
            )
        return None


class NoProdDeploys:
    @hookimpl
    def before_tool_call(self, call):
        if call.params.get("target") == "prod":
            return {"block": True, "block_reason": "no deploys to prod from an agent"}
        return None


class ApproveStaging:
    @hookimpl
    def before_tool_call(self, call):
        if call.params.get("target") == "staging":
            return {"require_approval": {"title": "Deploy to staging?", "description": "a deploy"}}
        return None


def make_proxy(tmp_path: Path, recorder: EventRecorder, **mcp: Any) -> tuple[Proxy, Path]:
    log = tmp_path / "upstream.jsonl"
    config = {
        "mcp": {
            "servers": {
                "jobs": {
                    "command": sys.executable,
                    "args": [str(SERVER)],
                    "env": {"UPSTREAM_LOG": str(log)},
                }
            },
            "elicit": False,  # approvals go to [approvals] route: none here, so denied
            **mcp,
        },
        "plugins": {
            "only": ["Redact", "NoProdDeploys", "ApproveStaging", "result_budget", recorder.name],
            "result_budget": {"max_chars": 300},
        },
    }
    plugins = [Redact(), NoProdDeploys(), ApproveStaging(), recorder]
    return Proxy(config, plugins=plugins), log


def upstream_saw(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def start_task(client: Client, name: str, arguments: dict[str, Any], ttl: int = 60_000):
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(
            name=name, arguments=arguments, task=types.TaskMetadata(ttl=ttl)
        )
    )
    answer = await client.session.send_request(request, HANDLE)
    assert isinstance(answer, TaskHandle), answer
    return answer.task


async def task_request(client: Client, method: str, task_id: str, result_type: Any) -> Any:
    models = {
        "tasks/get": types.GetTaskRequest,
        "tasks/result": types.GetTaskPayloadRequest,
        "tasks/cancel": types.CancelTaskRequest,
    }
    return await client.session.send_request(
        models[method](params={"taskId": task_id}), result_type
    )


def outcome_without_ids(result: types.CallToolResult) -> dict[str, Any]:
    outcome = dict(result.meta[META_KEY])
    outcome.pop("call_id")
    outcome.pop("artifact")  # one file per call: the same content, another name
    return outcome


def test_a_task_result_gets_the_same_redaction_labels_and_trim_as_a_synchronous_one(tmp_path):
    recorder = EventRecorder()
    proxy, log = make_proxy(tmp_path, recorder)

    async def main() -> None:
        async with proxy.running(), Client(proxy.server, mode="2026-07-28", cache=None) as client:
            direct = await client.call_tool("jobs__report", {"size": 2000})
            task = await start_task(client, "jobs__report", {"size": 2000})
            with anyio.fail_after(20):
                while True:
                    got = await task_request(client, "tasks/get", task.task_id, types.GetTaskResult)
                    if got.status != "working":
                        break
                    await anyio.sleep(0.02)
            assert got.status == "completed"
            listed = await client.session.send_request(types.ListTasksRequest(), TaskList)
            assert [t.task_id for t in listed.tasks] == [task.task_id]
            late = await task_request(client, "tasks/result", task.task_id, types.CallToolResult)
            return direct, late

    direct, late = anyio.run(main)
    assert direct.content == late.content
    assert "[redacted]" in late.content[0].text and SECRET not in late.content[0].text
    assert late.meta[META_KEY]["truncated"] is True
    assert outcome_without_ids(direct) == outcome_without_ids(late)
    assert late.meta["io.modelcontextprotocol/related-task"] == {"taskId": late_task_id(late)}
    # The task's call is one call: proposed at tools/call, injected at tasks/result, one id.
    calls = [e.call_id for e in recorder.of("tool.proposed")]
    assert len(calls) == 2 and late.meta[META_KEY]["call_id"] == calls[1]
    names = [recorder.names(call) for call in calls]
    assert names[0] == names[1]
    decided = [
        [(e.plugin, e.data.get("labels")) for e in recorder.of("hook.decision") if e.call_id == c]
        for c in calls
    ]
    assert decided[0] == decided[1] and ("Redact", ["secret"]) in decided[0]
    traces = {e.trace_id for e in recorder.events if e.call_id == calls[1]}
    assert len(traces) == 1
    assert [line["what"] for line in upstream_saw(log)][:3] == [
        "tools/call",
        "tools/call",
        "tasks/result",
    ]


def late_task_id(result: types.CallToolResult) -> str:
    return result.meta["io.modelcontextprotocol/related-task"]["taskId"]


def test_blocked_cancelled_and_expired_tasks(tmp_path):
    """One proxy (an upstream's start is most of a test's time): a blocked task and a denied one
    never reach the upstream; a cancel and an expiry are audited under the task's call, and reach
    the upstream."""
    recorder = EventRecorder()
    proxy, log = make_proxy(tmp_path, recorder)

    async def main() -> tuple[Any, ...]:
        async with proxy.running(), Client(proxy.server, mode="2026-07-28", cache=None) as client:
            blocked = await start_task(client, "jobs__deploy", {"target": "prod"})
            assert blocked.status == "failed"
            refused = await task_request(
                client, "tasks/result", blocked.task_id, types.CallToolResult
            )
            unapproved = await start_task(client, "jobs__deploy", {"target": "staging"})
            denied = await task_request(
                client, "tasks/result", unapproved.task_id, types.CallToolResult
            )
            assert denied.is_error and denied.meta[META_KEY]["status"] == "denied"
            assert upstream_saw(log) == []  # before anything else reaches it
            waiting = await start_task(client, "jobs__wait", {})
            cancelled = await task_request(
                client, "tasks/cancel", waiting.task_id, types.CancelTaskResult
            )
            assert cancelled.status == "cancelled"
            ended = await task_request(
                client, "tasks/result", waiting.task_id, types.CallToolResult
            )
            with pytest.raises(MCPError, match="already ended"):
                await task_request(client, "tasks/cancel", waiting.task_id, types.CancelTaskResult)
            expiring = await start_task(client, "jobs__wait", {}, ttl=400)
            with anyio.fail_after(20):
                while not recorder.of("mcp.task_expired"):
                    await anyio.sleep(0.05)
            with pytest.raises(MCPError, match="Unknown task"):
                await task_request(client, "tasks/get", expiring.task_id, types.GetTaskResult)
            return refused, waiting, ended, expiring

    refused, waiting, ended, expiring = anyio.run(main)
    assert refused.is_error and refused.meta[META_KEY]["status"] == "blocked"
    assert "no deploys to prod" in refused.content[0].text
    assert "deploy" not in json.dumps(upstream_saw(log))

    calls = [e.call_id for e in recorder.of("tool.proposed")]
    assert len(calls) == 4
    calls = [calls[0], *calls[2:]]  # the blocked and the denied deploy, then the waits
    assert ended.is_error and "cancelled" in ended.content[0].text
    cancel = recorder.of("mcp.task_cancelled")[0]
    assert (cancel.data["task_id"], cancel.call_id) == (waiting.task_id, calls[1])
    assert "tool.injected" in recorder.names(calls[1])  # the call still ends in the audit
    expired = recorder.of("mcp.task_expired")[0]
    assert (expired.data["task_id"], expired.call_id) == (expiring.task_id, calls[2])
    assert expired.data["ttl_ms"] == 400
    assert [line["what"] for line in upstream_saw(log)].count("tasks/cancel") == 2


def test_another_callers_task_is_unknown_to_it(tmp_path, monkeypatch):
    from toolhooks_mcp._http import serve_http
    from toolhooks_mcp._upstream import http_transport

    from .test_http import free_port, until_listening

    monkeypatch.setenv("ADA_TOKEN", "token-of-ada-0123456789")
    monkeypatch.setenv("BOB_TOKEN", "token-of-bob-0123456789")
    recorder = EventRecorder()
    tokens = [{"sender": "ada", "env": "ADA_TOKEN"}, {"sender": "bob", "env": "BOB_TOKEN"}]
    proxy, _ = make_proxy(tmp_path, recorder, auth={"tokens": tokens})
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    def client(token: str) -> Client:
        headers = {"Authorization": f"Bearer {token}"}
        return Client(http_transport(url, headers), mode="2026-07-28", cache=None)

    async def main() -> None:
        stop = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(serve_http, proxy, "127.0.0.1", port, stop)
            await until_listening(port)
            async with client("token-of-ada-0123456789") as ada:
                task = await start_task(ada, "jobs__report", {"size": 10})
                async with client("token-of-bob-0123456789") as bob:
                    for method, model in (
                        ("tasks/get", types.GetTaskResult),
                        ("tasks/result", types.CallToolResult),
                        ("tasks/cancel", types.CancelTaskResult),
                    ):
                        with pytest.raises(MCPError, match="Unknown task"):
                            await task_request(bob, method, task.task_id, model)
                    theirs = await bob.session.send_request(types.ListTasksRequest(), TaskList)
                    assert theirs.tasks == []
                async with client("token-of-ada-0123456789") as again:  # another session
                    result = await task_request(
                        again, "tasks/result", task.task_id, types.CallToolResult
                    )
                    assert "[redacted]" in result.content[0].text
            stop.set()

    anyio.run(main)
    assert recorder.of("mcp.task_cancelled") == []  # bob's cancel never reached ada's task


def test_a_task_waits_for_its_approval_through_the_queue(tmp_path):
    """The approval of a task call goes where a call's goes: here the SQLite queue. The client
    gets the task at once and polls; the upstream is asked only once a person approved."""
    from toolhooks import SQLiteStore

    recorder = EventRecorder()
    log = tmp_path / "upstream.jsonl"
    db = tmp_path / "approvals.db"
    config = {
        "mcp": {
            "servers": {
                "jobs": {
                    "command": sys.executable,
                    "args": [str(SERVER)],
                    "env": {"UPSTREAM_LOG": str(log)},
                }
            },
            "elicit": False,
        },
        "approvals": {"route": "queue", "db": str(db), "poll_interval_s": 0.05},
        "plugins": {"only": ["ApproveStaging", recorder.name]},
    }
    proxy = Proxy(config, plugins=[ApproveStaging(), recorder])
    proxy.tasks.starting_s = 0.2
    store = SQLiteStore(db)

    async def main() -> types.CallToolResult:
        async with proxy.running(), Client(proxy.server, mode="2026-07-28", cache=None) as client:
            task = await start_task(client, "jobs__deploy", {"target": "staging"})
            assert task.status == "working"
            with anyio.fail_after(20):
                while not store.list(states=["pending"]):
                    await anyio.sleep(0.05)
            assert upstream_saw(log) == []  # nothing reaches it before the approval
            got = await task_request(client, "tasks/get", task.task_id, types.GetTaskResult)
            assert got.status == "working"
            (pending,) = store.list(states=["pending"])
            store.decide(pending.id, "allow-once", by="ada")
            return await task_request(client, "tasks/result", task.task_id, types.CallToolResult)

    try:
        result = anyio.run(main)
    finally:
        store.close()
    assert not result.is_error and result.content[0].text.startswith("deployed")
    assert [line["what"] for line in upstream_saw(log)][:2] == ["tools/call", "tasks/result"]
    assert "approval.resolved" in recorder.names(result.meta[META_KEY]["call_id"])
