"""loop_detection: warns an agent that repeats itself, then blocks the loop (on by default)."""

from ._config import DetectorToggles, LoopDetectionConfig
from ._detectors import DETECTOR_NAMES
from ._plugin import LoopDetectionPlugin

__all__ = ["DETECTOR_NAMES", "DetectorToggles", "LoopDetectionConfig", "LoopDetectionPlugin"]
