"""The tracer provider the plugin uses: the application's, or its own exporting in batches."""

from __future__ import annotations

from typing import Any

from toolhooks import ConfigError

from ._config import OtelConfig

INSTRUMENTATION = "toolhooks"


def own_provider(config: OtelConfig) -> Any:
    """An SDK TracerProvider whose BatchSpanProcessor exports on its own worker thread.

    The caller's thread only puts the finished span on a bounded queue; a full queue drops the
    span rather than making the call wait.
    """
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    exporter: Any
    if config.exporter == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise ConfigError(
                '[plugins.otel] exporter = "otlp" needs the OTLP exporter: '
                "pip install 'toolhooks[otel]'"
            ) from None
        exporter = OTLPSpanExporter(endpoint=config.endpoint, headers=dict(config.headers) or None)
    else:
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        exporter = ConsoleSpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": config.service_name}))
    provider.add_span_processor(
        BatchSpanProcessor(
            exporter,
            max_queue_size=config.max_queue_size,
            schedule_delay_millis=config.schedule_delay_ms,
        )
    )
    return provider
