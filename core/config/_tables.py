"""The core's own tables: ``[plugins]``, ``[approvals]`` and ``[state]`` (``[agents]`` is in
``_agents``, the framework keys every ``[plugins.<name>]`` takes in ``_framework``).

Built only for a table the config gives: a config that leaves one out runs on its plain defaults
(``_defaults``, ``stores._state.StateDefaults``), which these models take their defaults from."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..stores._state import StateDefaults, check_url
from ._defaults import ApprovalsDefaults, PluginsDefaults
from ._team import Person, Policy, Target


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PluginsTable(_Strict):
    only: list[str] | None = PluginsDefaults.only
    """Load only these plugins (any kind: built-in, entry point, registered); unset: all."""
    disable: list[str] = Field(default_factory=list)
    """Never load these plugins."""
    on_load_error: Literal["raise", "skip"] = PluginsDefaults.on_load_error
    """A plugin that fails to import: ``raise`` a PluginLoadError, or ``skip`` it and list it with
    the reason."""
    lock: str | None = Field(default=PluginsDefaults.lock, min_length=1)
    """The plugin lock file, relative to the config file's folder (to the working directory for
    a config given as a mapping); it must exist. Unset: the ``toolhooks.lock`` next to the config
    file, if there is one. With a lock, only the plugins it
    lists load, each with the entry point, distribution, version and files it was locked with
    (``toolhooks plugins lock`` writes it)."""
    on_unlocked: Literal["raise", "warn"] = PluginsDefaults.on_unlocked
    """An installed plugin the lock does not list, or whose files changed: ``raise`` a
    ConfigError naming it and what differs, or ``warn``: skip it and emit a ``plugin.unlocked``
    event (and a warning on the ``toolhooks`` logger)."""


class ApprovalsTable(_Strict):
    route: Literal["none", "queue", "tty"] = ApprovalsDefaults.route
    """Who answers when ``Runtime(approver=)`` is not given: nobody (deny at once), a SQLite
    ``queue``, or the ``tty``."""
    db: str = ApprovalsDefaults.db
    """The queue route's SQLite file, relative to the working directory."""
    poll_interval_s: float = Field(default=ApprovalsDefaults.poll_interval_s, gt=0)
    """How often an agent waiting on the queue looks at the database."""
    wait_s: float | None = Field(default=ApprovalsDefaults.wait_s, ge=0, allow_inf_nan=False)
    """queue route: how long to wait before deferring (None: the request's timeout; 0: at once)."""
    defer_ttl_s: float = Field(default=ApprovalsDefaults.defer_ttl_s, gt=0, allow_inf_nan=False)
    """How long a deferred approval waits to be resumed before it expires."""
    retention_s: float = Field(default=ApprovalsDefaults.retention_s, ge=0, allow_inf_nan=False)
    """How long decided and expired approvals are kept before they are purged."""
    people: dict[str, Person] = Field(default_factory=dict)
    """``[approvals.people.<name>]``: who may vote on a policy's approvals, and their proof."""
    policies: list[Policy] = Field(default_factory=list)
    """``[[approvals.policies]]``: the first whose ``plugins`` / ``rules`` / ``tools`` match a
    request governs it (approvers, quorum, escalation, expiry); none: one person decides."""
    notify: dict[str, Target] = Field(default_factory=dict)
    """``[approvals.notify.<name>]``: webhook and Slack targets a policy's ``notify`` names."""

    @field_validator("people")
    @classmethod
    def _person_names(cls, value: dict[str, Person]) -> dict[str, Person]:
        import re

        for name in value:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}", name):
                raise ValueError(f"person {name!r} is not a name (letters, digits, . _ @ -)")
        return value


class StateTable(BaseModel):
    """``[state]``: the shared-state backend (all keys optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str | None = Field(default=StateDefaults.url, min_length=1, strict=True)
    """``redis://host:port/db``; None: embedded state (or ``$TOOLHOOKS_STATE_URL``)."""
    key_prefix: str = Field(
        default=StateDefaults.key_prefix, min_length=1, max_length=64, strict=True
    )
    """Every key this project writes starts with ``<key_prefix>:`` (one Redis, many deployments)."""
    timeout_s: float = Field(default=StateDefaults.timeout_s, gt=0, le=60, allow_inf_nan=False)
    """Connect and per-operation timeout; a call that needs shared state fails after this."""
    session_ttl_s: int = Field(
        default=StateDefaults.session_ttl_s, ge=60, le=366 * 86_400, strict=True
    )
    """A loop-detection session is forgotten this long after its last call."""

    @field_validator("url", mode="after")
    @classmethod
    def _known_scheme(cls, url: str | None) -> str | None:
        if url is not None:
            check_url(url)
        return url
