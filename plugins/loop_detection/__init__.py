"""loop_detection: warns an agent that repeats itself, then blocks the loop (on by default).

The config models are imported when first used (PEP 562): a runtime with no
``[plugins.loop_detection]`` table never builds them (see ``toolhooks.config._lazy``).
"""

from typing import TYPE_CHECKING

from ._detectors import DETECTOR_NAMES
from ._plugin import LoopDetectionPlugin

if TYPE_CHECKING:
    from ._config import DetectorToggles, LoopDetectionConfig


def __getattr__(name: str) -> object:
    if name not in ("DetectorToggles", "LoopDetectionConfig"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import _config

    value = getattr(_config, name)
    globals()[name] = value
    return value


__all__ = ["DETECTOR_NAMES", "DetectorToggles", "LoopDetectionConfig", "LoopDetectionPlugin"]
