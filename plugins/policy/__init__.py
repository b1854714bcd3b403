"""The built-in ``policy`` plugin: which tools a call may use, configured by ``[tools]``."""

from ._builtins import BUILTIN_GROUPS, BUILTIN_PROFILES, EXTERNAL_BLOCKED_TOOLS, SIDE_EFFECT_TOOLS
from ._config import ElevatedConfig, NarrowingRules, PolicyConfig, ProfileConfig
from ._plugin import PolicyPlugin
from ._verdict import PolicyStep, ToolVerdict

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
