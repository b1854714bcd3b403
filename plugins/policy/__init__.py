"""The built-in ``policy`` plugin: which tools a call may use, configured by ``[tools]``.

The config models are imported when first used (PEP 562): a runtime with no ``[tools]`` table
never builds them (see :class:`toolhooks.kit.LazyConfig`).
"""

from typing import TYPE_CHECKING

from toolhooks.kit import lazy_exports

from ._builtins import (
    BUILTIN_GROUPS,
    BUILTIN_PROFILES,
    EXTERNAL_BLOCKED_TOOLS,
    SIDE_EFFECT_TOOLS,
    TOOL_ALIASES,
    user_groups,
)
from ._plugin import PolicyPlugin
from ._verdict import PolicyStep, ToolVerdict

if TYPE_CHECKING:
    from ._config import ElevatedConfig, NarrowingRules, PolicyConfig, ProfileConfig

_MODELS = ("ElevatedConfig", "NarrowingRules", "PolicyConfig", "ProfileConfig")


__getattr__ = lazy_exports(__name__, dict.fromkeys(_MODELS, "._config"))


__all__ = [
    "BUILTIN_GROUPS",
    "BUILTIN_PROFILES",
    "EXTERNAL_BLOCKED_TOOLS",
    "SIDE_EFFECT_TOOLS",
    "TOOL_ALIASES",
    "ElevatedConfig",
    "NarrowingRules",
    "PolicyConfig",
    "PolicyPlugin",
    "PolicyStep",
    "ProfileConfig",
    "ToolVerdict",
    "user_groups",
]
