"""call_limits: caps on how often tools may be called, per run, session, sender or globally."""

from ._config import CallLimitsConfig, LimitConfig
from ._plugin import CallLimitsPlugin

__all__ = ["CallLimitsConfig", "CallLimitsPlugin", "LimitConfig"]
