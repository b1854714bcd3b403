"""The otel plugin's own OTLP/HTTP exporter against a real local HTTP receiver."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from toolhooks import Runtime
from toolhooks.plugins.otel import OtelPlugin


class Receiver:
    """A minimal OTLP/HTTP traces endpoint that records the spans of each request."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.resources: list[dict[str, str]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = ExportTraceServiceRequest.FromString(body)
                names = []
                for resource_spans in request.resource_spans:
                    receiver.resources.append(
                        {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                    )
                    for scope_spans in resource_spans.scope_spans:
                        names.extend(span.name for span in scope_spans.spans)
                receiver.batches.append(names)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_otlp_spans_leave_in_batches_from_the_exporter_thread(monkeypatch):
    receiver = Receiver()
    exporting_threads: list[threading.Thread] = []
    original = OTLPSpanExporter.export

    def spy(self, spans):
        exporting_threads.append(threading.current_thread())
        return original(self, spans)

    monkeypatch.setattr(OTLPSpanExporter, "export", spy)
    config = {
        "exporter": "otlp",
        "endpoint": receiver.url,
        "service_name": "agent-fleet",
        "schedule_delay_ms": 600_000,  # only the flush at close sends: one batch
    }
    try:
        rt = Runtime(plugins=[OtelPlugin(config)], load_entrypoints=False, config={})
        for index in range(50):
            assert (
                rt.call({"name": "search", "params": {"i": index}}, execute=lambda p: "ok").status
                == "ok"
            )
        assert receiver.batches == []  # nothing was sent while the calls ran
        rt.close()  # flushes the batch
        assert receiver.batches == [["execute_tool search"] * 50]
        assert receiver.resources[0]["service.name"] == "agent-fleet"
        assert exporting_threads
        assert threading.current_thread() not in exporting_threads
    finally:
        receiver.close()
