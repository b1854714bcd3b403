"""rules: ``[[rules]]`` that decide a call by what it does (its commands, paths, hosts and
params), one policy for every agent, adapter and the MCP proxy. Off until a rule exists."""

from ._config import Conditions, RuleConfig, RulesSettings
from ._plugin import RulesPlugin

__all__ = ["Conditions", "RuleConfig", "RulesPlugin", "RulesSettings"]
