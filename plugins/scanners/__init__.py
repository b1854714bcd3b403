"""scanners: hidden text, secrets, PII and instructions addressed to the model, found in
results, params and tool descriptions; a finding labels, redacts, asks or blocks. Off until a
``[plugins.scanners.<detector>]`` table exists.

The config models are imported when first used (PEP 562).
"""

from typing import TYPE_CHECKING

from toolhooks.kit import lazy_exports

from ._plugin import DETECTORS, ScannersPlugin

if TYPE_CHECKING:
    from ._config import DetectorConfig, ScannersConfig

__getattr__ = lazy_exports(
    __name__, dict.fromkeys(("DetectorConfig", "ScannersConfig"), "._config")
)

__all__ = ["DETECTORS", "DetectorConfig", "ScannersConfig", "ScannersPlugin"]
