"""The core's own tables: ``[plugins]`` and ``[approvals]`` (``[state]`` is in ``stores._state``,
``[agents]`` in ``_agents``, the framework keys every ``[plugins.<name>]`` takes in ``_framework``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PLUGINS_KEYS = ("only", "disable", "on_load_error", "lock", "on_unlocked")
FRAMEWORK_KEYS = ("priority", "mode", "on_error", "timeout_s", "enabled", "tools")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PluginsTable(_Strict):
    only: list[str] | None = None
    """Load only these plugins (any kind: built-in, entry point, registered); unset: all."""
    disable: list[str] = Field(default_factory=list)
    """Never load these plugins."""
    on_load_error: Literal["raise", "skip"] = "raise"
    """A plugin that fails to import: ``raise`` a PluginLoadError, or ``skip`` it and list it with
    the reason."""
    lock: str | None = Field(default=None, min_length=1)
    """The plugin lock file, relative to the config file's folder (to the working directory for
    a config given as a mapping); it must exist. Unset: the ``toolhooks.lock`` next to the config
    file, if there is one. With a lock, only the plugins it
    lists load, each with the entry point, distribution, version and files it was locked with
    (``toolhooks plugins lock`` writes it)."""
    on_unlocked: Literal["raise", "warn"] = "raise"
    """An installed plugin the lock does not list, or whose files changed: ``raise`` a
    ConfigError naming it and what differs, or ``warn``: skip it and emit a ``plugin.unlocked``
    event (and a warning on the ``toolhooks`` logger)."""


class ApprovalsTable(_Strict):
    route: Literal["none", "queue", "tty"] = "none"
    """Who answers when ``Runtime(approver=)`` is not given: nobody (deny at once), a SQLite
    ``queue``, or the ``tty``."""
    db: str = ".toolhooks/approvals.db"
    """The queue route's SQLite file, relative to the working directory."""
    poll_interval_s: float = Field(default=0.2, gt=0)
    """How often an agent waiting on the queue looks at the database."""
    wait_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """queue route: how long to wait before deferring (None: the request's timeout; 0: at once)."""
    defer_ttl_s: float = Field(default=86_400.0, gt=0, allow_inf_nan=False)
    """How long a deferred approval waits to be resumed before it expires."""
    retention_s: float = Field(default=7 * 86_400.0, ge=0, allow_inf_nan=False)
    """How long decided and expired approvals are kept before they are purged."""
