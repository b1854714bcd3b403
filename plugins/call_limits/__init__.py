"""call_limits: caps on how often tools may be called, per run, session, sender or globally.

The config models are imported when first used (PEP 562): a runtime with no
``[plugins.call_limits]`` table never builds them (see ``toolhooks.config._lazy``).
"""

from typing import TYPE_CHECKING

from ._plugin import CallLimitsPlugin

if TYPE_CHECKING:
    from ._config import CallLimitsConfig, LimitConfig


def __getattr__(name: str) -> object:
    if name not in ("CallLimitsConfig", "LimitConfig"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import _config

    value = getattr(_config, name)
    globals()[name] = value
    return value


__all__ = ["CallLimitsConfig", "CallLimitsPlugin", "LimitConfig"]
