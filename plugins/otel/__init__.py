"""otel: one OpenTelemetry span per tool call (GenAI ``execute_tool``); off unless configured."""

from ._config import OtelConfig
from ._plugin import OtelPlugin

__all__ = ["OtelConfig", "OtelPlugin"]
