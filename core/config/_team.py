"""``[approvals]``' team keys: ``people.<name>``, ``[[approvals.policies]]`` and
``notify.<name>`` (DESIGN.md, "Approvals for teams").

The models check each key's shape; :func:`check_team` checks what only the whole table can tell
(a group nobody is in, a quorum larger than the people who may vote, a policy notifying a target
that does not exist), each a ConfigError naming the key, the file and the line.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

if TYPE_CHECKING:
    from ._loaded import LoadedConfig

_NAME = r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$"
_SHA256 = re.compile(r"sha256:[0-9a-f]{64}")
_ENV = re.compile(r"env:[A-Za-z_][A-Za-z0-9_]*")
GROUP = "group:"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def secret_of(reference: str) -> str | None:
    """A secret given as ``env:NAME`` read from the environment (None: unset); else as given."""
    if _ENV.fullmatch(reference):
        value = os.environ.get(reference[4:])
        return value or None
    return reference


class Person(_Strict):
    """``[approvals.people.<name>]``: who may vote, and what proves it is them."""

    groups: list[str] = Field(default_factory=list)
    """The groups a policy names as ``group:<name>``."""
    token: str | None = None
    """The desk / CLI token that proves it is them: ``sha256:<hex>`` (the token's SHA-256, as
    ``toolhooks serve --add-token`` prints it) or ``env:NAME`` (the token in that variable).
    Never the token itself: a config file is read by more people than the token's owner."""
    slack: str | None = Field(default=None, pattern=r"^[A-Z0-9]{2,32}$")
    """Their Slack user id (``U0123ABCD``): a verified Slack click by this id is their vote."""
    os_user: str | None = Field(default=None, min_length=1, max_length=64)
    """The OS user ``toolhooks approvals vote`` runs as; shared by several people, each of them
    must also give their token."""

    @field_validator("token")
    @classmethod
    def _token_reference(cls, value: str | None) -> str | None:
        if value is not None and not (_SHA256.fullmatch(value) or _ENV.fullmatch(value)):
            raise ValueError(
                "a token is given as 'sha256:<64 hex digits>' or 'env:VARIABLE', never as the "
                "token itself"
            )
        return value

    @field_validator("groups")
    @classmethod
    def _group_names(cls, value: list[str]) -> list[str]:
        for group in value:
            if not re.fullmatch(_NAME, group):
                raise ValueError(f"group {group!r} is not a name (letters, digits, . _ @ -)")
        return value


class Policy(_Strict):
    """``[[approvals.policies]]``: which requests it governs, and who decides them how."""

    name: str | None = Field(default=None, pattern=_NAME)
    """Shown on the desk and in notifications; default ``policy-<index>``."""
    plugins: list[str] | None = None
    """Requests asked by these plugins (unset: any)."""
    rules: list[str] | None = None
    """Requests asked by these rules of the ``rules`` plugin, by rule id (unset: any)."""
    tools: list[str] | None = None
    """Requests for calls to these tools (unset: any)."""
    approvers: list[str] = Field(min_length=1)
    """People by name, and groups as ``group:<name>``."""
    quorum: int = Field(default=1, ge=1, le=20)
    """Distinct people who must allow; one deny decides."""
    requester_may_approve: bool = False
    """The call's sender (matched to a person by name, Slack id or OS user) may vote to allow."""
    escalate_after_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """Still pending this long after it was asked: ``escalate_to`` may vote too, and is told."""
    escalate_to: list[str] = Field(default_factory=list)
    """People and ``group:`` names asked on escalation."""
    on_expiry: Literal["deny", "keep"] = "deny"
    """At its deadline: ``deny`` it, or ``keep`` it pending until someone decides."""
    notify: list[str] = Field(default_factory=list)
    """Names of ``[approvals.notify.<name>]`` targets told of the request, votes and escalation."""

    @model_validator(mode="after")
    def _escalation_pair(self) -> Policy:
        if (self.escalate_after_s is None) != (not self.escalate_to):
            raise ValueError("escalate_after_s and escalate_to are given together")
        return self


class Webhook(_Strict):
    """A generic webhook: JSON POSTed with an ``X-Toolhooks-Signature`` HMAC-SHA256 header."""

    url: str = Field(pattern=r"^https?://")
    """Where the JSON is POSTed (http or https)."""
    secret: str = Field(min_length=1)
    """The HMAC key (``env:NAME`` to read it from the environment)."""
    timeout_s: float = Field(default=5.0, gt=0, le=60)
    """How long one attempt may take."""
    retries: int = Field(default=4, ge=0, le=10)
    """Further attempts after a failure, with doubling delays from ``backoff_s``."""
    backoff_s: float = Field(default=0.5, gt=0, le=60)
    """The delay before the first retry; each further one waits twice as long."""


class Slack(_Strict):
    """A Slack channel: a message with Approve / Deny buttons, updated with each vote."""

    bot_token: str = Field(min_length=1)
    """The bot's ``xoxb-`` token (``env:NAME`` to read it from the environment)."""
    signing_secret: str = Field(min_length=1)
    """The app's signing secret, which verifies the button clicks (``env:NAME`` likewise)."""
    channel: str = Field(min_length=1)
    """The channel id (``C0123ABCD``) the messages go to; the bot must be in it."""
    base_url: str | None = Field(default=None, pattern=r"^https?://")
    """The Web API's address (default Slack's own; a test points it at a local server)."""


class Target(_Strict):
    """``[approvals.notify.<name>]``: exactly one of ``webhook`` or ``slack``."""

    webhook: Webhook | None = None
    """A generic webhook."""
    slack: Slack | None = None
    """A Slack channel (the ``slack`` extra)."""

    @model_validator(mode="before")
    @classmethod
    def _one_kind(cls, data: object) -> object:
        if isinstance(data, dict) and ("webhook" in data) == ("slack" in data):
            raise ValueError("a notify target is either a [webhook] or a [slack] table")
        return data


def _members(loaded: LoadedConfig, names: list[str], where: tuple[str, ...]) -> set[str]:
    """The people ``names`` (people and ``group:``s) stand for; an unknown one is an error."""
    people = loaded.approvals.people
    found: set[str] = set()
    for name in names:
        if name.startswith(GROUP):
            group = name[len(GROUP) :]
            members = {p for p, person in people.items() if group in person.groups}
            if not members:
                raise loaded.error(
                    f"unknown group {group!r}: no [approvals.people.<name>] lists it in groups",
                    *where,
                )
            found |= members
        elif name in people:
            found.add(name)
        else:
            raise loaded.error(
                f"unknown person {name!r}: add [approvals.people.{name}] or name a group:",
                *where,
            )
    return found


def check_team(loaded: LoadedConfig) -> None:
    """What only the whole ``[approvals]`` table can tell; each problem a ConfigError."""
    table = loaded.approvals
    policies = table.policies
    targets = table.notify
    for name, target in targets.items():
        kind = "webhook" if target.webhook is not None else "slack"
        secrets: dict[str, str] = {}
        if target.webhook is not None:
            secrets = {"secret": target.webhook.secret}
        elif target.slack is not None:
            secrets = {
                "signing_secret": target.slack.signing_secret,
                "bot_token": target.slack.bot_token,
            }
        for key, reference in secrets.items():
            if secret_of(reference) is None:
                raise loaded.error(
                    f"notify target {name!r}: {key} names ${reference[4:]}, which is not set",
                    "approvals",
                    "notify",
                    name,
                    kind,
                    key,
                )
    for index, policy in enumerate(policies):
        at = ("approvals", "policies", str(index))
        voters = _members(loaded, policy.approvers, (*at, "approvers"))
        _members(loaded, policy.escalate_to, (*at, "escalate_to"))
        if policy.quorum > len(voters):
            raise loaded.error(
                f"quorum {policy.quorum} is larger than the {len(voters)} people approvers "
                f"names ({', '.join(sorted(voters))})",
                *at,
                "quorum",
            )
        for target in policy.notify:
            if target not in targets:
                raise loaded.error(
                    f"unknown notify target {target!r}: add [approvals.notify.{target}]",
                    *at,
                    "notify",
                )
