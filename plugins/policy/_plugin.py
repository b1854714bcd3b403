"""The policy plugin: blocks and hides the tools the ``[tools]`` config does not allow."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from toolhooks import BeforeToolCallResult, Origin, Sender, ToolCall, ToolSpec, emit, hookimpl
from toolhooks.kit import ConfigOnRead, LazyConfig

from ._defaults import DEFAULTS
from ._engine import Policy
from ._verdict import ToolVerdict

if TYPE_CHECKING:
    from ._config import PolicyConfig

_NO_TAGS: frozenset[str] = frozenset()
CacheKey = tuple[str, frozenset[str], tuple[Any, ...] | None, str | None, str]


class PolicyPlugin:
    """Tool policy: profiles, groups, allow / deny / also_allow, by_agent, by_sender, elevated.

    Verdicts are cached per (tool, tags, sender fields, agent, origin) in a bounded dict, so the
    per-call cost is one dict lookup once a combination has been seen.
    """

    name = "policy"

    priority: ClassVar[int] = 10_000
    config_key: ClassVar[str] = "tools"
    # Built only for a [tools] table, a mapping, or when read: with no table the policy is
    # compiled from DEFAULTS, a plain record (toolhooks.kit.LazyConfig).
    Config = LazyConfig["PolicyConfig"](f"{__package__}._config", "PolicyConfig")
    if TYPE_CHECKING:
        config: PolicyConfig
    else:
        config = ConfigOnRead()
    cache_size: ClassVar[int] = 4096

    def __init__(self, config: PolicyConfig | Mapping[str, Any] | None = None) -> None:
        if config is not None:
            if not isinstance(config, self.Config):
                config = self.Config.model_validate(config)
            self.config = config
        self._policy = Policy(DEFAULTS if config is None else config)
        self._sender_matters = self._policy.sender_matters
        self._agent_matters = self._policy.agent_matters
        self._cache: dict[CacheKey, ToolVerdict] = {}
        self._lock = threading.Lock()

    # -- the hooks -------------------------------------------------------------------------

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        spec = call.spec
        sender = call.sender
        key = (
            call.name,
            _NO_TAGS if spec is None else spec.tags,
            None
            if sender is None or not self._sender_matters
            else (sender.id, sender.name, sender.channel, sender.roles),
            call.agent_id if self._agent_matters else None,
            call.origin,
        )
        try:
            verdict = self._cache.get(key)
        except TypeError:  # tags or roles given as an unhashable list: decide uncached
            verdict = self._decide(call.name, spec, sender, call.agent_id, call.origin)
        if verdict is None:
            verdict = self._remember(
                key, self._decide(call.name, spec, sender, call.agent_id, call.origin)
            )
        if verdict.allowed:
            return None
        emit("policy.denied", rule=verdict.decided_by, detail=verdict.detail)
        return BeforeToolCallResult(block=True, block_reason=verdict.reason)

    @hookimpl
    def tool_visible(
        self, tool: ToolSpec, sender: Sender | None, agent_id: str | None, origin: Origin
    ) -> bool | None:
        key = (
            tool.name,
            tool.tags,
            None
            if sender is None or not self._sender_matters
            else (sender.id, sender.name, sender.channel, sender.roles),
            agent_id if self._agent_matters else None,
            origin,
        )
        try:
            verdict = self._cache.get(key)
        except TypeError:
            verdict = self._decide(tool.name, tool, sender, agent_id, origin)
        if verdict is None:
            verdict = self._remember(key, self._decide(tool.name, tool, sender, agent_id, origin))
        return None if verdict.allowed else False

    # -- explain ---------------------------------------------------------------------------

    def explain(
        self,
        sender: Sender | Mapping[str, Any] | str | None = None,
        agent_id: str | None = None,
        origin: Origin = "agent",
        tools: Iterable[str | ToolSpec] | None = None,
    ) -> list[ToolVerdict]:
        """Each tool's verdict and the ordered steps that led to it.

        :param tools: Tool names and/or ToolSpecs (a spec's tags count); default
            :meth:`known_tools`, sorted.
        """
        if origin not in ("agent", "external"):
            raise ValueError(f"origin must be 'agent' or 'external', got {origin!r}")
        who = Sender.coerce(sender)
        items: Iterable[str | ToolSpec] = self.known_tools() if tools is None else tools
        verdicts = []
        for item in items:
            if isinstance(item, ToolSpec):
                verdicts.append(self._decide(item.name, item, who, agent_id, origin))
            elif isinstance(item, str):
                verdicts.append(self._decide(item, None, who, agent_id, origin))
            else:
                raise TypeError(f"tools must be names or ToolSpecs, got {type(item).__name__}")
        return verdicts

    def explain_specs(
        self,
        specs: Iterable[ToolSpec],
        sender: Sender | Mapping[str, Any] | str | None = None,
        agent_id: str | None = None,
        origin: Origin = "agent",
    ) -> list[ToolVerdict]:
        """:meth:`explain` over registered ToolSpecs (what the CLI calls with a runtime's tools)."""
        return self.explain(sender=sender, agent_id=agent_id, origin=origin, tools=list(specs))

    def known_tools(self) -> list[str]:
        """The built-in group and profile members, well-known tools and names in the config."""
        return self._policy.known_tools()

    # -- internals -------------------------------------------------------------------------

    def _decide(
        self,
        name: str,
        spec: ToolSpec | None,
        sender: Sender | None,
        agent_id: str | None,
        origin: Origin,
    ) -> ToolVerdict:
        tags = _NO_TAGS if spec is None else spec.tags
        return self._policy.verdict(name, tags, sender, agent_id, origin)

    def _remember(self, key: CacheKey, verdict: ToolVerdict) -> ToolVerdict:
        cache = self._cache
        with self._lock:
            if len(cache) >= self.cache_size:
                del cache[next(iter(cache))]  # the oldest entry
            cache[key] = verdict
        return verdict
