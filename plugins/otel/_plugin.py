"""The otel plugin: an ``on_event`` sink that turns every call's events into one span."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from toolhooks import Event, hookimpl

from ._config import OtelConfig
from ._export import INSTRUMENTATION, own_provider
from ._spans import SpanBook

logger = logging.getLogger("toolhooks.otel")


class OtelPlugin:
    """One ``execute_tool <tool>`` span per call, following the GenAI semantic conventions.

    The span starts at ``tool.proposed`` (as a child of the caller's current span) and ends at
    ``tool.injected``; decisions, approvals, loop and limit verdicts in between are span events.
    A failure in here is logged and counted, and never reaches the call.
    """

    name = "otel"
    priority: ClassVar[int] = 0
    Config: ClassVar[type[OtelConfig]] = OtelConfig

    def __init__(
        self,
        config: OtelConfig | Mapping[str, Any] | None = None,
        *,
        tracer_provider: Any = None,
    ) -> None:
        if config is None:
            config = OtelConfig()
        elif not isinstance(config, OtelConfig):
            config = OtelConfig.model_validate(config)
        self.config = config
        from opentelemetry import trace

        self._owned: Any = None
        if tracer_provider is None and config.exporter != "global":
            tracer_provider = self._owned = own_provider(config)
        provider = trace.get_tracer_provider() if tracer_provider is None else tracer_provider
        self._book = SpanBook(
            provider.get_tracer(INSTRUMENTATION), config.max_open_spans, config.record_params
        )
        self.errors = 0
        """Events this plugin failed to turn into span data (each one is logged)."""

    @hookimpl
    def on_event(self, event: Event) -> None:
        try:
            self._book.on_event(event)
        except Exception:
            self.errors += 1
            logger.exception("toolhooks otel: could not record %s", event.event)

    def open_spans(self) -> int:
        """Calls whose span is still open (in flight, or awaiting their last event)."""
        return len(self._book)

    def close(self) -> None:
        """End spans still open and, for the plugin's own provider, flush and stop the exporter."""
        try:
            self._book.end_all()
            if self._owned is not None:
                self._owned.shutdown()
        except Exception:
            logger.exception("toolhooks otel: closing failed")
