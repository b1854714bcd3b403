"""The otel plugin against the SDK's in-memory exporter: names, attributes, parents, events."""

from __future__ import annotations

import asyncio
import logging

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from toolhooks import ApprovalRequest, BeforeToolCallResult, Runtime, hookimpl
from toolhooks.plugins.call_limits import CallLimitsPlugin
from toolhooks.plugins.otel import OtelPlugin


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def make(provider, *plugins, **kwargs) -> Runtime:
    otel = OtelPlugin(tracer_provider=provider)
    return Runtime(plugins=[otel, *plugins], load_entrypoints=False, config={}, **kwargs)


def ok(params: dict) -> str:
    return "ran"


def test_one_execute_tool_span_per_call_with_the_genai_attributes(spans):
    provider, exporter = spans
    rt = make(provider)
    outcome = rt.call({"name": "search", "session_id": "conv-1", "params": {"q": "x"}}, execute=ok)
    [span] = exporter.get_finished_spans()
    assert span.name == "execute_tool search"
    assert span.kind == SpanKind.INTERNAL
    attrs = dict(span.attributes or {})
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["gen_ai.tool.name"] == "search"
    assert attrs["gen_ai.tool.call.id"] == outcome.call_id
    assert attrs["gen_ai.conversation.id"] == "conv-1"
    assert attrs["toolhooks.trace_id"] == outcome.trace_id  # the event log's trace id
    assert attrs["toolhooks.status"] == "ok"
    assert span.status.status_code == StatusCode.UNSET
    assert [event.name for event in span.events] == ["tool.started", "tool.finished"]
    # Tool arguments stay out of the span unless record_params is set.
    assert "toolhooks.params" not in dict(span.events[0].attributes or {})


def test_the_callers_current_span_is_the_parent(spans):
    provider, exporter = spans
    rt = make(provider)
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span("agent turn") as turn:
        rt.call({"name": "search"}, execute=ok)
    tool_span, turn_span = exporter.get_finished_spans()
    assert turn_span.name == "agent turn"
    assert tool_span.parent is not None
    assert tool_span.parent.span_id == turn.get_span_context().span_id
    assert tool_span.context.trace_id == turn.get_span_context().trace_id


def test_blocked_error_and_denied_calls_end_with_status_error_and_the_reason(spans):
    provider, exporter = spans

    class Gate:
        name = "gate"

        @hookimpl
        def before_tool_call(self, call):
            if call.name == "rm":
                return BeforeToolCallResult(block=True, block_reason="no deleting")
            if call.name == "deploy":
                return BeforeToolCallResult(
                    require_approval=ApprovalRequest(title="Deploy?", description="to prod")
                )
            return None

    def fail(params: dict) -> str:
        raise OSError("disk full")

    rt = make(provider, Gate(), approver=lambda pending: "deny")
    rt.call({"name": "rm"}, execute=ok)
    rt.call({"name": "write"}, execute=fail)
    rt.call({"name": "deploy"}, execute=ok)
    by_name = {span.name: span for span in exporter.get_finished_spans()}
    blocked = by_name["execute_tool rm"]
    assert blocked.status.status_code == StatusCode.ERROR
    assert blocked.status.description == "no deleting"
    assert dict(blocked.attributes or {})["error.type"] == "blocked"
    decision = next(e for e in blocked.events if e.name == "hook.decision")
    assert dict(decision.attributes or {})["toolhooks.plugin"] == "gate"
    assert [e.name for e in blocked.events][-1] == "tool.blocked"
    failed = by_name["execute_tool write"]
    assert failed.status.status_code == StatusCode.ERROR
    assert "disk full" in (failed.status.description or "")
    assert dict(failed.attributes or {})["error.type"] == "error"
    denied = by_name["execute_tool deploy"]
    assert denied.status.status_code == StatusCode.ERROR
    assert dict(denied.attributes or {})["error.type"] == "denied"
    names = [e.name for e in denied.events]
    assert "approval.requested" in names and "approval.resolved" in names
    assert "tool.started" not in names


def test_limit_verdicts_become_span_events(spans):
    provider, exporter = spans
    limits = CallLimitsPlugin({"limits": [{"name": "one", "tools": ["x"], "max_calls": 1}]})
    rt = make(provider, limits)
    rt.call({"name": "x"}, execute=ok)
    rt.call({"name": "x"}, execute=ok)
    second = exporter.get_finished_spans()[1]
    reached = next(e for e in second.events if e.name == "limits.reached")
    assert dict(reached.attributes or {})["toolhooks.limit"] == "one"
    assert (second.status.description or "").startswith("Call limit 'one' reached")


def test_record_params_puts_the_arguments_on_the_span(spans):
    provider, exporter = spans
    otel = OtelPlugin({"record_params": True}, tracer_provider=provider)
    rt = Runtime(plugins=[otel], load_entrypoints=False, config={})
    rt.call({"name": "search", "params": {"q": "weather"}}, execute=ok)
    [span] = exporter.get_finished_spans()
    started = next(e for e in span.events if e.name == "tool.started")
    assert dict(started.attributes or {})["toolhooks.params"] == '{"q": "weather"}'


def test_a_thousand_concurrent_asyncio_calls_make_a_thousand_spans_each_under_its_task(spans):
    provider, exporter = spans
    rt = make(provider)
    tracer = provider.get_tracer("agent")

    async def one(index: int) -> tuple[str, int]:
        with tracer.start_as_current_span(f"task {index}") as parent:
            await asyncio.sleep(0)
            outcome = await rt.acall({"name": "search", "params": {"i": index}}, execute=ok)
            return outcome.call_id, parent.get_span_context().span_id

    async def main() -> list[tuple[str, int]]:
        return await asyncio.gather(*(one(i) for i in range(1000)))

    results = asyncio.run(main())
    tool_spans = [s for s in exporter.get_finished_spans() if s.name == "execute_tool search"]
    assert len(tool_spans) == 1000
    parent_of = {
        dict(s.attributes or {})["gen_ai.tool.call.id"]: s.parent.span_id for s in tool_spans
    }
    assert parent_of == dict(results)
    assert rt.get_plugin("otel").open_spans() == 0


def test_a_failing_tracer_never_affects_the_call(caplog):
    class Broken(trace.Tracer):
        def start_span(self, *args, **kwargs):
            raise RuntimeError("collector exploded")

        def start_as_current_span(self, *args, **kwargs):
            raise RuntimeError("collector exploded")

    class BrokenProvider(trace.TracerProvider):
        def get_tracer(self, *args, **kwargs):
            return Broken()

    otel = OtelPlugin(tracer_provider=BrokenProvider())
    rt = Runtime(plugins=[otel], load_entrypoints=False, config={})
    with caplog.at_level(logging.ERROR, logger="toolhooks.otel"):
        outcome = rt.call({"name": "search"}, execute=ok)
    assert outcome.status == "ok"
    assert outcome.content == "ran"
    assert otel.errors >= 1
    assert "collector exploded" in caplog.text


def test_the_builtin_is_off_until_its_table_exists():
    with Runtime(config={}) as rt:
        assert "otel" not in [info.name for info in rt.plugins()]
        skipped = {info.name: info for info in rt.plugins(include_disabled=True)}
        assert skipped["otel"].reason == "off unless configured: add a [plugins.otel] table"
        assert skipped["otel"].enabled is False
    with Runtime(config={"plugins": {"otel": {}}}) as rt:
        assert isinstance(rt.get_plugin("otel"), OtelPlugin)


def test_an_unknown_otel_key_is_a_config_error():
    from toolhooks import ConfigError

    with pytest.raises(ConfigError, match=r"unknown key 'endpont' in \[plugins.otel\]"):
        Runtime(config={"plugins": {"otel": {"endpont": "http://x"}}})


def test_a_deferred_call_ends_its_span_pending_and_the_resume_gets_its_own(spans):
    provider, exporter = spans

    class Ask:
        name = "ask"

        @hookimpl
        def before_tool_call(self, call):
            return BeforeToolCallResult(
                require_approval=ApprovalRequest(title="Deploy?", description="to prod")
            )

    rt = make(provider, Ask(), approver=lambda pending: "defer")
    first = rt.call({"name": "deploy"}, execute=ok)
    assert first.status == "pending"
    [paused] = exporter.get_finished_spans()
    assert dict(paused.attributes or {})["toolhooks.status"] == "pending"
    assert [e.name for e in paused.events][-1] == "approval.deferred"
    assert paused.status.status_code == StatusCode.UNSET
    final = rt.resume(first.pending.id, "allow-once", by="ops", execute=ok)
    assert final.status == "ok"
    paused_again, resumed = exporter.get_finished_spans()
    assert paused_again.context.span_id == paused.context.span_id
    attrs = dict(resumed.attributes or {})
    assert (attrs["gen_ai.tool.call.id"], attrs["toolhooks.status"]) == (first.call_id, "ok")
    assert rt.get_plugin("otel").open_spans() == 0
