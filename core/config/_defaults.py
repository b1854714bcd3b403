"""The defaults of the core's ``[plugins]`` keys and ``[approvals]`` as plain records:
what a config that leaves a table out runs on, without building its pydantic model (``_tables``,
whose fields take their defaults from here, so the two cannot drift apart). A table that is
given is validated by its model as before. (``[state]``'s are ``stores._state.StateDefaults``.)

Plain read-only classes, not dataclasses: a dataclass's generated methods cost a cold process
about as much to make as a small model (see ``plugins/result_budget/_defaults.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

PLUGINS_KEYS = ("only", "disable", "on_load_error", "lock", "on_unlocked")
FRAMEWORK_KEYS = ("priority", "mode", "on_error", "timeout_s", "enabled", "tools")


class PluginsDefaults:
    """``[plugins]`` with none of its own keys: every key of ``PluginsTable`` (documented there)
    at its default."""

    __slots__ = ()

    only: list[str] | None = None
    disable: tuple[str, ...] = ()
    on_load_error: Literal["raise", "skip"] = "raise"
    lock: str | None = None
    on_unlocked: Literal["raise", "warn"] = "raise"

    def __reduce__(self) -> str:
        # The one instance, by name: a pickled or copied config runs on the same defaults (an
        # instance compares by identity), not on a new instance equal to nothing.
        return "PLUGINS_DEFAULTS"


class ApprovalsDefaults:
    """No ``[approvals]`` table: every key of ``ApprovalsTable`` (documented there) at its default."""

    __slots__ = ()

    route: Literal["none", "queue", "tty"] = "none"
    db: str = ".toolhooks/approvals.db"
    poll_interval_s: float = 0.2
    wait_s: float | None = None
    defer_ttl_s: float = 86_400.0
    retention_s: float = 7 * 86_400.0
    people: Mapping[str, Any] = MappingProxyType({})
    policies: tuple[Any, ...] = ()
    notify: Mapping[str, Any] = MappingProxyType({})

    def __reduce__(self) -> str:
        # The one instance, by name: a pickled or copied config runs on the same defaults (an
        # instance compares by identity), not on a new instance equal to nothing.
        return "APPROVALS_DEFAULTS"


PLUGINS_DEFAULTS = PluginsDefaults()
APPROVALS_DEFAULTS = ApprovalsDefaults()
