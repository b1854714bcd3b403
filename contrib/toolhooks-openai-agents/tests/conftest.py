"""The SDK's tracing is off for every test here: no exporter ever tries the network."""

from __future__ import annotations

from agents import set_tracing_disabled

set_tracing_disabled(True)
