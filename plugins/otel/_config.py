"""The ``[plugins.otel]`` configuration (the table's presence is what switches the plugin on)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class OtelConfig(BaseModel):
    """Where spans go: the application's tracer provider, or an OTLP endpoint of their own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    exporter: Literal["global", "otlp", "console"] = "global"
    """``global``: the provider the application set up (``opentelemetry.trace``); ``otlp``: a
    provider of the plugin's own exporting OTLP/HTTP in batches; ``console``: the same, to stdout."""
    endpoint: Annotated[str, Field(strict=True, min_length=1)] | None = None
    """OTLP/HTTP traces URL (``http://collector:4318/v1/traces``); default: the exporter's own
    (``$OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``$OTEL_EXPORTER_OTLP_ENDPOINT`` / localhost)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Sent with every export (an API key for a hosted backend)."""
    service_name: Annotated[str, Field(strict=True, min_length=1)] = "toolhooks"
    """``service.name`` of the plugin's own provider (``otlp`` / ``console``)."""
    schedule_delay_ms: Annotated[int, Field(strict=True, ge=1, le=600_000)] = 2_000
    """Own provider: the longest a finished span waits before its batch is sent."""
    max_queue_size: Annotated[int, Field(strict=True, ge=1, le=10_000_000)] = 8_192
    """Own provider: spans waiting for export; beyond it new spans are dropped (never blocks)."""
    record_params: Annotated[bool, Field(strict=True)] = False
    """Put tool arguments (``params`` fields of events) on spans; off: tracing backends often
    keep data longer and show it wider than the audit log."""
    max_open_spans: Annotated[int, Field(strict=True, ge=1, le=10_000_000)] = 100_000
    """Calls with an open span; beyond it the oldest is ended, marked ``toolhooks.abandoned``."""
