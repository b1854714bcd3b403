"""The ``[plugins.rules]`` defaults as a plain record: what the plugin runs on when its table is
absent, without building the pydantic ``RulesSettings`` (whose fields take their defaults from
here, so the two cannot drift apart)."""

from __future__ import annotations

from typing import Final, Literal

DecisionName = Literal["allow", "ask", "deny"]
STRICTNESS: Final = {"allow": 0, "ask": 1, "deny": 2}
"""deny > ask > allow: across rules and across the commands of one script the strictest wins."""


class RulesDefaults:
    """Every key of ``RulesSettings`` with its default (documented there)."""

    __slots__ = ()

    unmatched: DecisionName = "allow"
    opaque: DecisionName = "ask"


DEFAULTS = RulesDefaults()
