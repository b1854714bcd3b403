"""loop_detection: warns an agent that repeats itself, then blocks the loop (on by default).

The config models are imported when first used (PEP 562): a runtime with no
``[plugins.loop_detection]`` table never builds them (see :class:`toolhooks.kit.LazyConfig`).
"""

from typing import TYPE_CHECKING

from toolhooks.kit import lazy_exports

from ._detectors import DETECTOR_NAMES
from ._plugin import LoopDetectionPlugin

if TYPE_CHECKING:
    from ._config import DetectorToggles, LoopDetectionConfig


__getattr__ = lazy_exports(
    __name__, dict.fromkeys(("DetectorToggles", "LoopDetectionConfig"), "._config")
)


__all__ = ["DETECTOR_NAMES", "DetectorToggles", "LoopDetectionConfig", "LoopDetectionPlugin"]
