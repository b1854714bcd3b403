"""The compiled policy: every step, in order, for one tool, sender, agent and origin.

Steps, in the order they apply and are reported:

1. ``origin``   the hard-coded external-origin block (not configurable);
2. ``tools``    the ``[tools]`` layer (profile, also_allow, allow, deny);
3. ``agent``    ``[tools.by_agent."*"]`` for every call (with or without an agent id), then
                ``[tools.by_agent.<agent_id>]`` when the call names that agent;
4. ``sender``   every matching ``[tools.by_sender."<key>"]``, broadest first:
                ``"*"`` (every call, a sender-less one too), ``channel:``, ``role:`` (in the
                sender's role order), ``name:``, ``id:``;
5. ``elevated`` ``[tools.elevated]``, for tools tagged ``elevated``.

A tool is allowed only when every step allows it: deny wins and no step can grant what an
earlier one removed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolhooks import Origin, Sender

from ._builtins import (
    BUILTIN_GROUPS,
    BUILTIN_PROFILES,
    EXTERNAL_BLOCK_RULE,
    EXTERNAL_BLOCKED_TOOLS,
    GROUP_PREFIX,
    SIDE_EFFECT_TOOLS,
    canonical_name,
)
from ._defaults import PolicyDefaults, toml_key
from ._rules import EntryList, Layer, Profiles
from ._verdict import Effect, PolicyStep, ToolVerdict

if TYPE_CHECKING:
    from ._config import NarrowingRules, PolicyConfig

_NONE = EntryList((), {})


def sender_keys(sender: Sender) -> list[str]:
    """The by_sender keys a sender matches, in the order their steps apply."""
    keys = ["*"]
    if sender.channel is not None:
        keys.append(f"channel:{sender.channel}")
    keys.extend(f"role:{role}" for role in dict.fromkeys(sender.roles))
    if sender.name is not None:
        keys.append(f"name:{sender.name}")
    keys.append(f"id:{sender.id}")
    return keys


class Policy:
    """The ``[tools]`` config compiled once; :meth:`verdict` is pure and thread-safe."""

    def __init__(self, config: PolicyConfig | PolicyDefaults) -> None:
        self.config = config
        groups: dict[str, tuple[str, ...]] = {**BUILTIN_GROUPS}
        groups.update((name, tuple(members)) for name, members in config.group_table().items())
        self._groups = groups
        user_profiles = {
            name: Layer(
                path=f"tools.profiles.{toml_key(name)}",
                profile=profile.extends,
                profile_key="extends",
                allow=self._list(profile.allow),
                also_allow=self._list(profile.also_allow),
                deny=self._list(profile.deny),
            )
            for name, profile in config.profiles.items()
        }
        self._profiles = Profiles(user_profiles, groups)
        self._global = Layer(
            path="tools",
            profile=config.profile,
            profile_key="profile",
            allow=self._list(config.allow),
            also_allow=self._list(config.also_allow),
            deny=self._list(config.deny),
        )
        self._by_agent = {
            key: self._narrowing(f"tools.by_agent.{toml_key(key)}", rules)
            for key, rules in config.by_agent.items()
        }
        self._by_sender = {
            key: self._narrowing(f"tools.by_sender.{toml_key(key)}", rules)
            for key, rules in config.by_sender.items()
        }
        elevated = config.elevated
        self._elevated_enabled = elevated.enabled
        self._elevated_from = frozenset(elevated.allow_from)
        self.agent_matters = bool(self._by_agent)
        """False when no by_agent table exists: the agent id cannot change a verdict."""
        self.sender_matters = bool(self._by_sender) or (
            self._elevated_enabled and bool(self._elevated_from)
        )
        """False when neither by_sender nor elevated.allow_from can look at the sender."""

    def _list(self, entries: Iterable[str]) -> EntryList:
        return EntryList(entries, self._groups)

    def _narrowing(self, path: str, rules: NarrowingRules) -> Layer:
        return Layer(
            path=path,
            profile=rules.profile,
            profile_key="profile",
            allow=self._list(rules.allow),
            also_allow=_NONE,
            deny=self._list(rules.deny),
        )

    def verdict(
        self,
        name: str,
        tags: Iterable[str] = (),
        sender: Sender | None = None,
        agent_id: str | None = None,
        origin: Origin = "agent",
    ) -> ToolVerdict:
        """Evaluate every step for one tool. ``tags`` are its ToolSpec tags (may be empty)."""
        tags = frozenset(tags)
        side_effect = "side_effect" in tags or canonical_name(name) in SIDE_EFFECT_TOOLS
        steps = [self._origin_step(name, tags, origin)]
        decision = self._profiles.decide(self._global, name, side_effect)
        granted = decision
        steps.append(PolicyStep("tools", decision.rule, _effect(decision.allowed), decision.detail))
        if self._by_agent:
            # "*" binds every call, one without an agent id too: leaving the id out never
            # widens what a call may use.
            keys = ("*",) if agent_id is None or agent_id == "*" else ("*", agent_id)
            for key in keys:
                layer = self._by_agent.get(key)
                if layer is not None:
                    decision = self._profiles.decide(layer, name, side_effect)
                    steps.append(PolicyStep("agent", *_rest(decision)))
        if self._by_sender:
            # The same for senders: a call without a sender still gets the "*" table.
            for key in ("*",) if sender is None else sender_keys(sender):
                layer = self._by_sender.get(key)
                if layer is not None:
                    decision = self._profiles.decide(layer, name, side_effect)
                    steps.append(PolicyStep("sender", *_rest(decision)))
        if "elevated" in tags:
            steps.append(self._elevated_step(sender))
        for step in steps:
            if step.effect == "deny":
                return ToolVerdict(
                    tool=name,
                    allowed=False,
                    decided_by=step.rule,
                    detail=step.detail,
                    steps=tuple(steps),
                )
        return ToolVerdict(
            tool=name,
            allowed=True,
            decided_by=granted.rule,
            detail=granted.detail,
            steps=tuple(steps),
        )

    @staticmethod
    def _origin_step(name: str, tags: frozenset[str], origin: Origin) -> PolicyStep:
        if origin != "external":
            return PolicyStep("origin", EXTERNAL_BLOCK_RULE, "allow", f"origin is {origin!r}")
        if "internal" in tags:
            detail = (
                f"'{name}' is tagged internal; internal tools are never callable "
                "from origin 'external'"
            )
            return PolicyStep("origin", EXTERNAL_BLOCK_RULE, "deny", detail)
        if name in EXTERNAL_BLOCKED_TOOLS:
            detail = f"'{name}' is never callable from origin 'external'; this cannot be configured"
            return PolicyStep("origin", EXTERNAL_BLOCK_RULE, "deny", detail)
        return PolicyStep(
            "origin", EXTERNAL_BLOCK_RULE, "allow", "not blocked for origin 'external'"
        )

    def _elevated_step(self, sender: Sender | None) -> PolicyStep:
        if not self._elevated_enabled:
            detail = "elevated tools are off; set tools.elevated.enabled = true and allow_from"
            return PolicyStep("elevated", "tools.elevated.enabled", "deny", detail)
        rule = "tools.elevated.allow_from"
        if not self._elevated_from:
            return PolicyStep(
                "elevated", rule, "deny", "allow_from is empty: no sender may use elevated tools"
            )
        if sender is None:
            return PolicyStep("elevated", rule, "deny", "the call has no sender")
        for key in sender_keys(sender):
            if key in self._elevated_from:
                return PolicyStep("elevated", rule, "allow", f"matches {key!r}")
        return PolicyStep("elevated", rule, "deny", f"sender {sender.id!r} matches no entry")

    def known_tools(self) -> list[str]:
        """Every tool name the policy knows of: group members, profile and config entries."""
        names: set[str] = set(SIDE_EFFECT_TOOLS) | EXTERNAL_BLOCKED_TOOLS
        for members in self._groups.values():
            names.update(m for m in members if "*" not in m and not m.startswith(GROUP_PREFIX))
        for items in BUILTIN_PROFILES.values():
            names.update(e for e in items if not e.startswith(GROUP_PREFIX))
        for _path, entries in self.config.entry_lists():
            names.update(e for e in entries if "*" not in e and not e.startswith(GROUP_PREFIX))
        return sorted(names)


def _effect(allowed: bool) -> Effect:
    return "allow" if allowed else "deny"


def _rest(decision: tuple[bool, str, str]) -> tuple[str, Effect, str]:
    allowed, rule, detail = decision
    return rule, _effect(allowed), detail
