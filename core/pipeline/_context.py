"""What every stage of a call works with: the runtime's ``Context`` (built once, shared by every
call) and the call's ``Run`` (its state, which is also its event scope, and what runs it)."""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..events._events import EventDispatcher
from ..records._models import ToolCall
from ..registry._registry import Registry
from ..stores._contract import DEFAULT_DEFER_TTL_S, ApprovalStore
from ._adjusted import AdjustedParams
from ._before import BeforeState, Emit, Record
from ._tools import Tool
from ._verdict import Verdict

if TYPE_CHECKING:  # the approvals layer sits above the stages; only its types are named here
    from ..approvals._resolve import Approver, Resolution

PAUSED_LIMIT = 4096
Execute = Callable[[dict[str, Any]], Any]


@dataclass
class Context:
    """What the pipeline needs from the runtime; built once, shared by every call."""

    registry: Registry
    tools: dict[str, Tool]
    events: EventDispatcher
    store: ApprovalStore
    approver: Approver | None
    adjusted: AdjustedParams
    """The final params of recent calls, by call id (bounded)."""
    defer_ttl_s: float = DEFAULT_DEFER_TTL_S
    shared_store: bool = False
    """The store is shared with other processes: a call id may have been paused elsewhere."""
    passthrough: tuple[type[BaseException], ...] = ()
    paused: OrderedDict[str, str] = field(default_factory=OrderedDict)
    """Call id -> approval id of calls this runtime paused (deferred, or decided as pending)."""
    unasked: set[str] = field(default_factory=set)
    """Approval ids ``decide`` stored that no approver was asked about yet."""
    answered: OrderedDict[str, Resolution] = field(default_factory=OrderedDict)
    """Approval id -> the approver's answer ``Runtime.ask`` recorded, applied as it was given."""
    decided: OrderedDict[str, Run] = field(default_factory=OrderedDict)
    """Calls ``decide`` screened (allowed or blocked), waiting for their ``call``."""
    emit: Emit = field(init=False)
    record: Record = field(init=False)

    def __post_init__(self) -> None:
        # Bound once here rather than once per call.
        self.emit = self.events.emit
        self.record = self.events.record


class Run:
    """One call's way through the pipeline: its state (also its event scope) and what runs it."""

    __slots__ = (
        "after",
        "before",
        "execute",
        "interrupted",
        "proposed",
        "state",
        "tool",
        "tracing",
        "verdict",
    )

    def __init__(
        self, ctx: Context, call: ToolCall, tool: Tool | None, execute: Execute | None
    ) -> None:
        self.before, self.after = ctx.registry.call_chains(call.name)
        self.tracing = bool(ctx.events.sinks)  # no sink: no event is built at all
        self.state = BeforeState(ctx.emit, ctx.record, call)
        self.proposed = call.params
        """The model's proposal: an edit changes the state's params, never this (a repeated
        call with the same id is recognised by it)."""
        self.tool = tool
        self.execute = execute
        self.interrupted: BaseException | None = None
        self.verdict: Verdict | None = None


def remember(table: OrderedDict[str, Any], key: str, value: Any, limit: int = PAUSED_LIMIT) -> None:
    """Bounded insert, oldest out first."""
    table[key] = value
    if len(table) > limit:
        _evict_oldest(table)


def _evict_oldest(adjusted: OrderedDict[str, Any]) -> None:
    with contextlib.suppress(KeyError):  # another thread evicted first
        adjusted.popitem(last=False)
