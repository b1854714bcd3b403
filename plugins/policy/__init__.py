"""The built-in ``policy`` plugin: which tools a call may use, configured by ``[tools]``.

The config models are imported when first used (PEP 562): a runtime with no ``[tools]`` table
never builds them (see ``toolhooks.config._lazy``).
"""

from typing import TYPE_CHECKING

from ._builtins import BUILTIN_GROUPS, BUILTIN_PROFILES, EXTERNAL_BLOCKED_TOOLS, SIDE_EFFECT_TOOLS
from ._plugin import PolicyPlugin
from ._verdict import PolicyStep, ToolVerdict

if TYPE_CHECKING:
    from ._config import ElevatedConfig, NarrowingRules, PolicyConfig, ProfileConfig

_MODELS = ("ElevatedConfig", "NarrowingRules", "PolicyConfig", "ProfileConfig")


def __getattr__(name: str) -> object:
    if name not in _MODELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import _config

    value = getattr(_config, name)
    globals()[name] = value
    return value


__all__ = [
    "BUILTIN_GROUPS",
    "BUILTIN_PROFILES",
    "EXTERNAL_BLOCKED_TOOLS",
    "SIDE_EFFECT_TOOLS",
    "ElevatedConfig",
    "NarrowingRules",
    "PolicyConfig",
    "PolicyPlugin",
    "PolicyStep",
    "ProfileConfig",
    "ToolVerdict",
]
