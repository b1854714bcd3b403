"""rules: ``[[rules]]`` that decide a call by what it does (its commands, paths, hosts and
params), one policy for every agent, adapter and the MCP proxy. Off until a rule exists.

The pydantic models are imported when first read (PEP 562): loading a policy checks its tables
by hand and builds them only to word an error (docs/decisions/rules-hand-check.md).
"""

from typing import TYPE_CHECKING

from toolhooks.kit import lazy_exports

from ._plugin import RulesPlugin
from ._starters import STARTER_POLICIES, starter_policy, starter_policy_path

if TYPE_CHECKING:
    from ._config import Conditions, RuleConfig, RulesSettings

__getattr__ = lazy_exports(
    __name__, dict.fromkeys(("Conditions", "RuleConfig", "RulesSettings"), "._config")
)

__all__ = [
    "STARTER_POLICIES",
    "Conditions",
    "RuleConfig",
    "RulesPlugin",
    "RulesSettings",
    "starter_policy",
    "starter_policy_path",
]
