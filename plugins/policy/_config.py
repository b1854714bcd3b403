"""The ``[tools]`` table: pydantic models, and the checks that need the whole table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ._builtins import BUILTIN_GROUPS, BUILTIN_PROFILE_NAMES, GROUP_PREFIX, SENDER_KINDS
from ._defaults import DEFAULTS
from ._defaults import toml_key as toml_key


def _error(message: str) -> PydanticCustomError:
    """A validation error whose message is exactly ``message`` (no "Value error, " prefix)."""
    return PydanticCustomError("policy_config", "{message}", {"message": message})


def group_name(key: str) -> str:
    """A ``[tools.groups]`` key as entries reference it: ``review`` -> ``group:review``."""
    return key if key.startswith(GROUP_PREFIX) else GROUP_PREFIX + key


def _check_entry(entry: str) -> str:
    if not entry:
        raise _error("a tool entry must be a non-empty string")
    if not entry.isprintable():
        raise _error(f"tool entry {entry!r} contains control characters")
    return entry


def _check_sender_key(key: str) -> str:
    if key == "*":
        return key
    kind, sep, value = key.partition(":")
    if not sep or kind not in SENDER_KINDS or not value:
        raise _error(
            f"sender key {key!r} must be '*' or one of "
            + ", ".join(f"'{kind}:<{kind}>'" for kind in reversed(SENDER_KINDS))
        )
    return key


ToolEntry = Annotated[str, AfterValidator(_check_entry)]
"""A tool name, a ``*`` pattern (``*`` is the only special character) or ``group:<name>``."""
SenderKey = Annotated[str, AfterValidator(_check_sender_key)]
"""``"*"``, ``"id:<id>"``, ``"name:<name>"``, ``"role:<role>"`` or ``"channel:<channel>"``."""


class ProfileConfig(BaseModel):
    """``[tools.profiles.<name>]``: a user-defined profile, built like the ``[tools]`` layer."""

    model_config = ConfigDict(extra="forbid")

    extends: str = Field(default="full", min_length=1)
    """The profile this one starts from."""
    allow: list[ToolEntry] = Field(default_factory=list)
    """Narrows ``extends`` to these entries; empty: no narrowing."""
    also_allow: list[ToolEntry] = Field(default_factory=list)
    """Adds these entries to the profile's set (deny still wins)."""
    deny: list[ToolEntry] = Field(default_factory=list)
    """Removes these entries."""


class NarrowingRules(BaseModel):
    """``[tools.by_agent.<id>]`` and ``[tools.by_sender."<key>"]``: rules that only narrow."""

    model_config = ConfigDict(extra="forbid")

    profile: str | None = Field(default=None, min_length=1)
    """Narrows to this profile's set."""
    allow: list[ToolEntry] = Field(default_factory=list)
    """Narrows to these entries; empty: no narrowing."""
    deny: list[ToolEntry] = Field(default_factory=list)
    """Removes these entries."""

    @model_validator(mode="before")
    @classmethod
    def _no_also_allow(cls, data: Any) -> Any:
        if isinstance(data, dict) and "also_allow" in data:
            raise _error(
                "also_allow is only accepted in [tools] and [tools.profiles.<name>]: "
                "by_agent and by_sender rules can only narrow what [tools] allows"
            )
        return data


class ElevatedConfig(BaseModel):
    """``[tools.elevated]``: tools tagged ``elevated`` need both keys set."""

    model_config = ConfigDict(extra="forbid")

    enabled: StrictBool = DEFAULTS.elevated.enabled
    """Elevated tools are possible at all."""
    allow_from: list[SenderKey] = Field(default_factory=list)
    """Sender keys (as in ``by_sender``) that may use elevated tools."""


class PolicyConfig(BaseModel):
    """The ``[tools]`` table."""

    model_config = ConfigDict(extra="forbid")

    profile: str = Field(default=DEFAULTS.profile, min_length=1)
    """``minimal``, ``coding``, ``messaging``, ``full`` or a ``[tools.profiles]`` name."""
    allow: list[ToolEntry] = Field(default_factory=list)
    """Narrows the profile to these entries; empty: the whole profile."""
    also_allow: list[ToolEntry] = Field(default_factory=list)
    """Adds these entries to the profile's set (deny still wins)."""
    deny: list[ToolEntry] = Field(default_factory=list)
    """Removes these entries; wins over everything."""
    groups: dict[str, list[ToolEntry]] = Field(default_factory=dict)
    """User groups, used as ``group:<name>`` (the key may be written ``name`` or
    ``"group:name"``); members are names, patterns or other groups."""
    profiles: dict[str, ProfileConfig] = Field(default_factory=dict)
    """User profiles, by name."""
    by_agent: dict[str, NarrowingRules] = Field(default_factory=dict)
    """Rules for calls naming an agent id; ``"*"`` binds every call. They only narrow."""
    by_sender: dict[SenderKey, NarrowingRules] = Field(default_factory=dict)
    """Rules for senders matching ``"*"``, ``"id:…"``, ``"name:…"``, ``"role:…"`` or
    ``"channel:…"``. They only narrow."""
    elevated: ElevatedConfig = Field(default_factory=ElevatedConfig)

    @field_validator("groups", mode="after")
    @classmethod
    def _check_group_names(cls, groups: dict[str, list[str]]) -> dict[str, list[str]]:
        """A key may be written ``review`` or ``group:review``; both name ``group:review``."""
        seen: set[str] = set()
        for key in groups:
            name = group_name(key)
            bare = name[len(GROUP_PREFIX) :]
            if not bare or "*" in bare or not bare.isprintable():
                raise _error(f"tools.groups: {key!r} is not a valid group name")
            if name in BUILTIN_GROUPS:
                raise _error(f"tools.groups.{toml_key(key)}: {name} is a built-in group")
            if name in seen:
                raise _error(f"tools.groups: {name} is defined twice")
            seen.add(name)
        return groups

    @field_validator("profiles", mode="after")
    @classmethod
    def _no_builtin_profiles(cls, profiles: dict[str, ProfileConfig]) -> dict[str, ProfileConfig]:
        for name in profiles:
            if name in BUILTIN_PROFILE_NAMES:
                raise _error(f"tools.profiles.{toml_key(name)}: {name!r} is a built-in profile")
            if not name or not name.isprintable():
                raise _error(f"tools.profiles: {name!r} is not a valid profile name")
        return profiles

    @field_validator("by_agent", mode="after")
    @classmethod
    def _agent_ids(cls, rules: dict[str, NarrowingRules]) -> dict[str, NarrowingRules]:
        for agent_id in rules:
            if not agent_id:
                raise _error("tools.by_agent: an agent id must be a non-empty string")
        return rules

    @model_validator(mode="after")
    def _check_references(self) -> PolicyConfig:
        known_groups = {*BUILTIN_GROUPS, *self.group_table()}
        known_profiles = {*BUILTIN_PROFILE_NAMES, *self.profiles}
        for path, entries in self.entry_lists():
            for entry in entries:
                if entry.startswith(GROUP_PREFIX) and entry not in known_groups:
                    raise _error(
                        f"{path}: unknown group {entry!r} (known groups: "
                        + ", ".join(sorted(known_groups))
                        + ")"
                    )
        for path, name in self._profile_refs():
            if name not in known_profiles:
                raise _error(
                    f"{path}: unknown profile {name!r} (known profiles: "
                    + ", ".join(sorted(known_profiles))
                    + ")"
                )
        self._check_group_cycles()
        self._check_profile_cycles()
        return self

    def entry_lists(self) -> Iterator[tuple[str, list[str]]]:
        """Every list of tool entries with its config path."""
        yield "tools.allow", self.allow
        yield "tools.also_allow", self.also_allow
        yield "tools.deny", self.deny
        for name, members in self.groups.items():
            yield f"tools.groups.{toml_key(name)}", members
        for name, profile in self.profiles.items():
            base = f"tools.profiles.{toml_key(name)}"
            yield f"{base}.allow", profile.allow
            yield f"{base}.also_allow", profile.also_allow
            yield f"{base}.deny", profile.deny
        for table, layers in (("by_agent", self.by_agent), ("by_sender", self.by_sender)):
            for key, rules in layers.items():
                base = f"tools.{table}.{toml_key(key)}"
                yield f"{base}.allow", rules.allow
                yield f"{base}.deny", rules.deny

    def _profile_refs(self) -> Iterator[tuple[str, str]]:
        yield "tools.profile", self.profile
        for name, profile in self.profiles.items():
            yield f"tools.profiles.{toml_key(name)}.extends", profile.extends
        for table, layers in (("by_agent", self.by_agent), ("by_sender", self.by_sender)):
            for key, rules in layers.items():
                if rules.profile is not None:
                    yield f"tools.{table}.{toml_key(key)}.profile", rules.profile

    def group_table(self) -> dict[str, list[str]]:
        """The user groups keyed by their full ``group:<name>``."""
        return {group_name(key): members for key, members in self.groups.items()}

    def _check_group_cycles(self) -> None:
        table = self.group_table()

        def visit(name: str, chain: tuple[str, ...]) -> None:
            if name in chain:
                cycle = " -> ".join((*chain[chain.index(name) :], name))
                raise _error(f"tools.groups: groups include each other in a cycle: {cycle}")
            for member in table.get(name, ()):
                if member.startswith(GROUP_PREFIX):
                    visit(member, (*chain, name))

        for name in table:
            visit(name, ())

    def _check_profile_cycles(self) -> None:
        for start in self.profiles:
            chain = [start]
            current = self.profiles[start].extends
            while current in self.profiles:
                if current in chain:
                    cycle = " -> ".join((*chain[chain.index(current) :], current))
                    raise _error(f"tools.profiles: profiles extend each other in a cycle: {cycle}")
                chain.append(current)
                current = self.profiles[current].extends
