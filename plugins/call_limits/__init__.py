"""call_limits: caps on how often tools may be called, per run, session, sender or globally.

The config models are imported when first used (PEP 562): a runtime with no
``[plugins.call_limits]`` table never builds them (see :class:`toolhooks.kit.LazyConfig`).
"""

from typing import TYPE_CHECKING

from toolhooks.kit import lazy_exports

from ._plugin import CallLimitsPlugin

if TYPE_CHECKING:
    from ._config import CallLimitsConfig, LimitConfig


__getattr__ = lazy_exports(__name__, dict.fromkeys(("CallLimitsConfig", "LimitConfig"), "._config"))


__all__ = ["CallLimitsConfig", "CallLimitsPlugin", "LimitConfig"]
