"""rules: ``[[rules]]`` that decide a call by what it does (its commands, paths, hosts and
params), one policy for every agent, adapter and the MCP proxy. Off until a rule exists."""

from ._config import Conditions, RuleConfig, RulesSettings
from ._plugin import RulesPlugin
from ._starters import STARTER_POLICIES, starter_policy, starter_policy_path

__all__ = [
    "STARTER_POLICIES",
    "Conditions",
    "RuleConfig",
    "RulesPlugin",
    "RulesSettings",
    "starter_policy",
    "starter_policy_path",
]
