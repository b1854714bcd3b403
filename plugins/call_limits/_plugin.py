"""The call_limits plugin: blocks a call that would go over a configured count or rate."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from toolhooks import BeforeToolCallResult, ToolCall, emit, hookimpl
from toolhooks.kit import ConfigOnRead, LazyConfig, StateUnavailable

from ._counters import Check, Counters, MemoryCounters
from ._defaults import DEFAULTS
from ._rules import Limit, ToolMatcher, compile_limits

if TYPE_CHECKING:
    from ._config import CallLimitsConfig, LimitConfig


class CallLimitsPlugin:
    """Counts calls per tool (names, ``*`` patterns, groups) per run, session, sender or globally.

    A call is checked against every limit that covers its tool and counted in all of them or in
    none (one atomic step, in Redis a Lua script): a call refused by one limit does not use up
    another. With ``[state] url`` the counters are shared, exactly, by every process.
    """

    name = "call_limits"
    priority: ClassVar[int] = -1_000
    # Built only for a [plugins.call_limits] table, a mapping, or when read: with no table the
    # plugin runs on DEFAULTS, a plain record (toolhooks.kit.LazyConfig).
    Config = LazyConfig["CallLimitsConfig"](f"{__package__}._config", "CallLimitsConfig")
    if TYPE_CHECKING:
        config: CallLimitsConfig
    else:
        config = ConfigOnRead()

    def __init__(self, config: CallLimitsConfig | Mapping[str, Any] | None = None) -> None:
        if config is not None:
            if not isinstance(config, self.Config):
                config = self.Config.model_validate(config)
            self.config = config
        settings = DEFAULTS if config is None else config
        self._limit_configs: Iterable[LimitConfig] = settings.limits
        self._limits = compile_limits(settings.limits, settings.count_ttl_s)
        self._memory = MemoryCounters(settings.max_keys)
        self.counters: Counters = self._memory
        # Compiled when attached to a runtime (which knows [tools.groups]), else on first use.
        self._groups: dict[str, tuple[str, ...]] | None = None
        self._matcher: ToolMatcher | None = None
        self._lock = threading.Lock()

    def attach_runtime(self, runtime: Any) -> None:
        """Take the runtime's shared state and the policy's ``[tools.groups]`` (idempotent)."""
        state = getattr(runtime, "state", None)
        with self._lock:
            if state is not None and getattr(self.counters, "state", None) is not state:
                from ._redis import RedisCounters

                self.counters = RedisCounters(state)
        from toolhooks.plugins.policy import user_groups

        config = getattr(runtime, "config", None)
        self._compile({**_builtin_groups(), **(user_groups(config.data) if config else {})})

    def _compile(self, groups: dict[str, tuple[str, ...]]) -> ToolMatcher:
        with self._lock:
            if groups != self._groups or self._matcher is None:
                self._matcher = ToolMatcher(self._limit_configs, groups)
                self._groups = groups
            return self._matcher

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        matcher = self._matcher
        if matcher is None:
            matcher = self._compile(_builtin_groups())
        indices = matcher.indices(call.name)
        if not indices:
            return None
        limits = self._limits
        checks: list[Check] = []
        for index in indices:
            limit = limits[index]
            checks.append((limit, self._key(limit, call)))
        try:
            refusal = self.counters.admit(checks)
        except StateUnavailable as exc:
            if self.config.on_state_error == "allow":
                emit("limits.state_error", error=str(exc), applied="allow")
                return None
            emit("limits.state_error", error=str(exc), applied="block")
            return BeforeToolCallResult(
                block=True,
                block_reason=f"Call limits unavailable, call blocked (fail closed): {exc}",
            )
        if refusal is None:
            return None
        position, retry_after_s = refusal
        limit = checks[position][0]
        emit(
            "limits.reached",
            limit=limit.label,
            scope=limit.scope,
            calls=limit.calls,
            retry_after_s=retry_after_s,
        )
        return BeforeToolCallResult(block=True, block_reason=limit.reason(retry_after_s))

    def _key(self, limit: Limit, call: ToolCall) -> str:
        value = limit.scope_value(call)
        parts = (limit.digest, limit.scope, value)
        key = getattr(self.counters, "key", None)
        return key(*parts) if key is not None else ":".join(parts)

    def reset(self) -> int:
        """Forget every counter (all processes' with shared state); returns how many were kept."""
        return self.counters.reset()


def _builtin_groups() -> dict[str, tuple[str, ...]]:
    from toolhooks.plugins.policy import BUILTIN_GROUPS

    return dict(BUILTIN_GROUPS)
