"""The call_limits plugin: blocks a call that would go over a configured count or rate."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from toolhooks import BeforeToolCallResult, ToolCall, emit, hookimpl
from toolhooks.stores._state import StateUnavailable

from ._config import CallLimitsConfig
from ._counters import Check, Counters, MemoryCounters
from ._rules import GROUP_PREFIX, Limit, ToolMatcher, compile_limits


class CallLimitsPlugin:
    """Counts calls per tool (names, ``*`` patterns, groups) per run, session, sender or globally.

    A call is checked against every limit that covers its tool and counted in all of them or in
    none (one atomic step, in Redis a Lua script): a call refused by one limit does not use up
    another. With ``[state] url`` the counters are shared, exactly, by every process.
    """

    name = "call_limits"
    priority: ClassVar[int] = -1_000
    Config: ClassVar[type[CallLimitsConfig]] = CallLimitsConfig

    def __init__(self, config: CallLimitsConfig | Mapping[str, Any] | None = None) -> None:
        if config is None:
            config = CallLimitsConfig()
        elif not isinstance(config, CallLimitsConfig):
            config = CallLimitsConfig.model_validate(config)
        self.config = config
        self._limits = compile_limits(config.limits, config.count_ttl_s)
        self._memory = MemoryCounters(config.max_keys)
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
        self._compile({**_builtin_groups(), **_user_groups(runtime)})

    def _compile(self, groups: dict[str, tuple[str, ...]]) -> ToolMatcher:
        with self._lock:
            if groups != self._groups or self._matcher is None:
                self._matcher = ToolMatcher(self.config.limits, groups)
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


def _user_groups(runtime: Any) -> dict[str, tuple[str, ...]]:
    """``[tools.groups]`` as the policy reads it (``review`` and ``group:review`` are one)."""
    config = getattr(runtime, "config", None)
    if config is None:
        return {}
    tools = config.data.get("tools", {})
    table = tools.get("groups", {}) if isinstance(tools, Mapping) else {}
    if not isinstance(table, Mapping):
        return {}
    return {_group_name(str(key)): _members(value) for key, value in table.items()}


def _group_name(key: str) -> str:
    return key if key.startswith(GROUP_PREFIX) else GROUP_PREFIX + key


def _members(value: object) -> tuple[str, ...]:
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return tuple(str(member) for member in value)
    return ()
