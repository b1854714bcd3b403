"""Tasks through the proxy: a task-augmented tools/call, then tasks/get, result, cancel and list.

A task is one ordinary call through the runtime (``Runtime.acall``) that the proxy keeps running
in the background: the before chain, the fence and approvals run first, as for any call; its
``execute`` asks the upstream for a task (when the tool supports tasks) and then waits for the
upstream's ``tasks/result``; the after chain, scanners, labels and the result budget then run on
that result exactly as on a synchronous one, under the same call id and trace. The client's
``tasks/result`` gets the ``CallToolResult`` the pipeline made. A call the policy blocks never
reaches the upstream: ``execute`` is not called.

Each task id is the proxy's own (random, 128 bits), bound to who created it: a task id of
another caller is "unknown task", like an id that never existed. Tasks live in the proxy's
memory: a restarted proxy knows none of them (their results are never handed back unchecked).
Cancels and expiries are events (``mcp.task_cancelled``, ``mcp.task_expired``) under the call's
ids. Tasks are a 2026-07-28 feature here (``resultType: "task"``): a handshake-era client's
task-augmented call runs synchronously, as the proxy does not advertise tasks to it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from toolhooks import ToolCall, ToolError

from ._results import Holder, call_result, upstream_value
from ._scope import Caller, RequestScope, current_request

if TYPE_CHECKING:
    from ._proxy import Proxy
    from ._tools import Route

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
RELATED = "io.modelcontextprotocol/related-task"
DEFAULT_TTL_MS = 3_600_000
MAX_TTL_MS = 86_400_000
POLL_MS = 1_000
_TASKS = 4096
"""At most this many tasks kept per proxy; the oldest finished ones go first."""
STARTING_S = 5.0
"""How long a task-augmented tools/call waits for the policy, the before hooks and approvals
before it answers with the task anyway: an approval through a route (the queue, the desk) may
take a person minutes, and the client polls the task meanwhile."""


class TaskHandle(types.Result):
    """What a task-augmented tools/call answers: the task, not yet its result (2026-07-28)."""

    result_type: Literal["task"] = "task"
    task: types.Task


class TaskList(types.PaginatedResult):
    """The tasks/list answer (``ListTasksResult`` with this era's ``resultType``)."""

    tasks: list[types.Task]


@dataclass(slots=True, kw_only=True, eq=False)
class TaskRecord:
    """One task the proxy runs: who owns it, the call it is, where it stands."""

    id: str
    owner: str
    call: ToolCall
    server: str
    ttl_ms: int
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    status: types.TaskStatus = "working"
    message: str | None = None
    upstream_task: str | None = None
    poll_ms: int | None = None
    result: types.CallToolResult | types.InputRequiredResult | None = None
    started: anyio.Event = field(default_factory=anyio.Event)
    """Set once the upstream made its task (or the call runs here), or the call ended."""
    done: anyio.Event = field(default_factory=anyio.Event)
    cancelled: anyio.Event = field(default_factory=anyio.Event)
    handed_out: bool = False
    """The client has the task (so an input-required round can no longer be its answer)."""

    @property
    def expires(self) -> float:
        return self.created + self.ttl_ms / 1000

    def task(
        self, status: types.TaskStatus | None = None, message: str | None = None
    ) -> types.Task:
        return types.Task(
            task_id=self.id,
            status=status or self.status,
            status_message=message if message is not None else self.message,
            created_at=_iso(self.created),
            last_updated_at=_iso(self.updated),
            ttl=self.ttl_ms,
            poll_interval=self.poll_ms or POLL_MS,
        )


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat().replace("+00:00", "Z")


class Tasks:
    """The proxy's tasks, by id; each readable only by the caller that created it."""

    def __init__(self, proxy: Proxy) -> None:
        self.proxy = proxy
        self.records: dict[str, TaskRecord] = {}
        self.group: anyio.abc.TaskGroup | None = None
        """The proxy's task group while it runs (``Proxy.running``): tasks run in it."""
        self.starting_s = STARTING_S

    # -- tools/call with a task ----------------------------------------------------------------

    async def start(
        self, ctx: Any, params: types.CallToolRequestParams, caller: Caller, route: Route
    ) -> TaskHandle | types.CallToolResult | types.InputRequiredResult:
        proxy, group = self.proxy, self.group
        assert group is not None  # call_tool runs tasks only while the proxy runs
        requested = params.task.ttl if params.task is not None else None
        ttl = min(requested if requested and requested > 0 else DEFAULT_TTL_MS, MAX_TTL_MS)
        call = ToolCall(
            name=params.name,
            params=params.arguments or {},
            session_id=caller.session_id,
            agent_id=caller.agent_id,
            sender=caller.sender,
            spec=proxy.specs.get(params.name),
        )
        record = TaskRecord(
            id=os.urandom(16).hex(), owner=caller.owner, call=call, server=route.server, ttl_ms=ttl
        )
        self._keep(record)
        scope = RequestScope(ctx=ctx, caller=caller)
        token = current_request.set(scope)  # the background run inherits the approver's scope
        try:
            group.start_soon(self._run, record, route, scope)
        finally:
            current_request.reset(token)
        with anyio.move_on_after(self.starting_s):
            await record.started.wait()
        if record.done.is_set() and isinstance(record.result, types.InputRequiredResult):
            # An approval the client answers in an input-required round: the round comes first,
            # and the retry runs as a synchronous call (``resume_round``).
            self.records.pop(record.id, None)
            return record.result
        record.handed_out = True
        return TaskHandle(task=record.task())

    async def _run(self, record: TaskRecord, route: Route, scope: RequestScope) -> None:
        proxy = self.proxy
        upstream, tool = proxy.upstreams[route.server], route.tool
        holder = Holder()

        async def execute(arguments: dict[str, Any]) -> Any:
            if upstream.speaks_tasks():  # it decides whether this call becomes a task
                holder.result = await self._upstream_task(record, upstream, tool, arguments)
            else:  # the upstream answers the call itself: the task is the proxy's
                record.started.set()
                holder.result = await self._cancellable(record, upstream.call_tool(tool, arguments))
            return upstream_value(holder.result)

        try:
            outcome = await proxy.runtime.acall(record.call, execute)
            pending = outcome.pending if outcome.status == "pending" else None
            if pending is not None and scope.asked_client and not record.handed_out:
                record.result = proxy.approver.input_required(pending, scope.caller)
            elif pending is not None and scope.asked_client:  # too late for a round: say why
                record.result = types.CallToolResult(
                    content=[
                        types.TextContent(
                            text="This call needs your approval: make it again without a task "
                            "to answer the approval form."
                        )
                    ],
                    is_error=True,
                )
            else:
                record.result = call_result(outcome, holder.result)
            if record.status == "working" and isinstance(record.result, types.CallToolResult):
                record.status = "failed" if record.result.is_error else "completed"
        except Exception as exc:  # the pipeline itself failed: the task says so, nothing leaks
            record.status = "failed"
            record.result = types.CallToolResult(
                content=[types.TextContent(text=f"the task failed: {type(exc).__name__}")],
                is_error=True,
            )
        finally:
            record.updated = time.time()
            record.done.set()
            record.started.set()

    async def _upstream_task(
        self, record: TaskRecord, upstream: Any, tool: str, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        answer = await upstream.create_task(tool, arguments, record.ttl_ms)
        if isinstance(answer, types.CallToolResult):  # the upstream chose to answer at once
            record.started.set()
            return answer
        record.upstream_task = answer.task.task_id
        record.poll_ms = answer.task.poll_interval
        record.started.set()
        try:
            return await self._cancellable(
                record,
                upstream.task_request(
                    "tasks/result", answer.task.task_id, types.CallToolResult, record.ttl_ms / 1000
                ),
            )
        except ToolError:  # cancelled or expired here: the upstream stops too
            await upstream.cancel_task(answer.task.task_id)
            raise

    async def _cancellable(self, record: TaskRecord, waiting: Any) -> types.CallToolResult:
        """The upstream's answer, unless the task is cancelled or expires first (a ToolError,
        so the after chain and the audit still see the call end)."""
        answer: list[types.CallToolResult] = []

        async def wait() -> None:
            answer.append(await waiting)
            group.cancel_scope.cancel()

        async def stop() -> None:
            with anyio.move_on_after(max(0.0, record.expires - time.time())):
                await record.cancelled.wait()
            group.cancel_scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            group.start_soon(stop)
        if answer:
            return answer[0]
        if record.cancelled.is_set():
            record.status = "cancelled"
            raise ToolError("the task was cancelled")
        record.status = "failed"
        raise ToolError("the task expired before the MCP server finished it")

    def _keep(self, record: TaskRecord) -> None:
        records = self.records
        if len(records) >= _TASKS:
            for old in sorted(records.values(), key=lambda r: r.created):
                if old.done.is_set():
                    del records[old.id]
                    break
            else:
                raise MCPError(code=INVALID_PARAMS, message="too many tasks are running")
        records[record.id] = record

    # -- tasks/* -------------------------------------------------------------------------------

    def find(self, task_id: str, caller: Caller) -> TaskRecord:
        """The caller's own task; another caller's task is unknown, exactly like a missing one."""
        self.expire()
        record = self.records.get(task_id)
        if record is None or record.owner != caller.owner:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown task: {task_id}")
        return record

    async def get(self, task_id: str, caller: Caller) -> types.GetTaskResult:
        record = self.find(task_id, caller)
        status, message = record.status, record.message
        if not record.done.is_set() and record.upstream_task is not None:
            upstream = self.proxy.upstreams[record.server]
            try:
                theirs = await upstream.task_request(
                    "tasks/get", record.upstream_task, types.GetTaskResult, 10.0
                )
            except ToolError as exc:
                message = str(exc)
            else:
                # The upstream's "completed" is not the client's yet: the after chain decides.
                if theirs.status == "input_required":
                    status = "input_required"
                message = theirs.status_message
                record.poll_ms = theirs.poll_interval or record.poll_ms
        return types.GetTaskResult.model_validate(
            record.task(status, message).model_dump(by_alias=True)
        )

    async def result(self, task_id: str, caller: Caller) -> types.CallToolResult:
        record = self.find(task_id, caller)
        with anyio.move_on_after(max(0.0, record.expires - time.time())):
            await record.done.wait()
        if not record.done.is_set() or not isinstance(record.result, types.CallToolResult):
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown task: {task_id}")
        meta = {**(record.result.meta or {}), RELATED: {"taskId": record.id}}
        return record.result.model_copy(update={"meta": meta})

    async def cancel(self, task_id: str, caller: Caller) -> types.CancelTaskResult:
        record = self.find(task_id, caller)
        self.audit(
            "mcp.task_cancelled",
            record,
            by=caller.sender.id if caller.sender is not None else None,
        )
        if record.done.is_set():
            raise MCPError(
                code=INVALID_PARAMS, message=f"Task {task_id} already ended ({record.status})"
            )
        record.cancelled.set()
        record.status, record.updated = "cancelled", time.time()
        with anyio.move_on_after(5):
            await record.done.wait()
        return types.CancelTaskResult.model_validate(
            record.task("cancelled").model_dump(by_alias=True)
        )

    def listing(self, caller: Caller) -> TaskList:
        self.expire()
        mine = [r for r in self.records.values() if r.owner == caller.owner]
        return TaskList(tasks=[r.task() for r in sorted(mine, key=lambda r: r.created)])

    def expire(self) -> None:
        """Forget every task past its ttl; one still running is stopped. Both are audited."""
        now = time.time()
        for record in [r for r in self.records.values() if r.expires <= now]:
            del self.records[record.id]
            self.audit("mcp.task_expired", record, ttl_ms=record.ttl_ms)

    def audit(self, event: str, record: TaskRecord, **data: Any) -> None:
        """An event about ``record``'s task under its call's ids (cancel and expiry)."""
        call = record.call
        self.proxy.runtime.emit(
            event,
            call_id=call.id,
            trace_id=call.trace_id,
            session_id=call.session_id,
            tool=call.name,
            task_id=record.id,
            status=record.status,
            **data,
        )

    async def sweep(self) -> None:
        """Expire tasks while the proxy runs (a client that never comes back)."""
        while True:
            await anyio.sleep(0.25)
            self.expire()
