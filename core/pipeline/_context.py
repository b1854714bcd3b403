"""What every stage of a call works with: the runtime's ``Context`` (built once, shared by every
call) and the call's ``Run`` (its state, its event scope and trace, and what runs it)."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..events._events import EventDispatcher
from ..events._scope import CallScope, current_scope
from ..records._models import ToolCall
from ..registry._registry import Registry
from ._adjusted import AdjustedParams
from ._invoke import CallTrace, Emit, Record
from ._state import CallState
from ._tools import Tool
from ._verdict import Verdict

if TYPE_CHECKING:  # the approvals layer sits above the stages; only its types are named here
    from ..approvals._resolve import Approver, Resolution
    from ..approvals._team import Team
    from ..stores._contract import ApprovalStore

PAUSED_LIMIT = 4096
Execute = Callable[[dict[str, Any]], Any]


class Context:
    """What the pipeline needs from the runtime; built once, shared by every call (a plain class,
    not a dataclass: its generated methods would be compiled at every start)."""

    def __init__(
        self,
        *,
        registry: Registry,
        tools: dict[str, Tool],
        events: EventDispatcher,
        store: ApprovalStore | None,
        make_store: Callable[[], ApprovalStore] | None = None,
        approver: Approver | None,
        adjusted: AdjustedParams,
        defer_ttl_s: float,
    ) -> None:
        if (store is None) == (make_store is None):
            raise TypeError("Context takes a store or a way to make one, not both or neither")
        self.registry = registry
        self.tools = tools
        self.events = events
        self._store = store
        self._make_store = make_store
        self._store_lock = threading.Lock()
        self.approver = approver
        self.adjusted = adjusted
        """The final params of recent calls, by call id (bounded)."""
        self.defer_ttl_s = defer_ttl_s
        self.shared_store = False
        """The store is shared with other processes: a call id may have been paused elsewhere."""
        self.passthrough: tuple[type[BaseException], ...] = ()
        self.paused: OrderedDict[str, str] = OrderedDict()
        """Call id -> approval id of calls this runtime paused (deferred, or decided as pending)."""
        self.unasked: set[str] = set()
        """Approval ids ``decide`` stored that no approver was asked about yet."""
        self.answered: OrderedDict[str, Resolution] = OrderedDict()
        """Approval id -> the approver's answer ``Runtime.ask`` recorded, applied as it was given."""
        self.decided: OrderedDict[str, Run] = OrderedDict()
        """Calls ``decide`` screened (allowed or blocked), waiting for their ``call``."""
        self.team: Team | None = None
        """``[approvals]``' people and policies (None: no policy, one person decides)."""
        # Bound once here rather than once per call.
        self.emit: Emit = events.emit
        self.record: Record = events.record

    @property
    def store(self) -> ApprovalStore:
        """The approval store; the default one (memory, where nothing can fail) is made at its
        first use: most processes never pause a call, and its module and records cost a start
        about 25 M instructions (BENCHMARKS.md, "Issue #44 item 4")."""
        store = self._store
        if store is None:
            with self._store_lock:  # two first approvals at once share one store
                store = self._store
                if store is None:
                    assert self._make_store is not None  # __init__ has one or the other
                    store = self._store = self._make_store()
        return store

    def close_store(self) -> None:
        """Close the store, if it was ever made."""
        if self._store is not None:
            self._store.close()


class Run(CallTrace):
    """One call's way through the pipeline: its state, what runs it, and (as a ``CallTrace``) its
    event scope and trace.

    Only the pipeline replaces ``state`` (the before chain's result, an edit screened again);
    a paused call taken up again starts from the state its stored row gives
    (``CallState.from_row``).
    """

    __slots__ = (
        "after",
        "before",
        "execute",
        "interrupted",
        "proposed",
        "registered",
        "state",
        "verdict",
    )

    def __init__(
        self,
        ctx: Context,
        call: ToolCall,
        tool: Tool | None,
        execute: Execute | None,
        state: CallState | None = None,
        quiet: list[dict[str, Any]] | None = None,
    ) -> None:
        # Every field set here, CallScope's and CallTrace's too, rather than through their
        # __init__: a Run is built on every call, and those two calls cost more than the rest
        # of its construction (BENCHMARKS.md, "Issue #33").
        self.emit = ctx.emit
        self.trace_id = call.trace_id
        self.call_id = call.id
        self.session_id = call.session_id
        self.tool = call.name
        self.plugin = None
        self.done = False
        self.record = ctx.record
        self.tracing = bool(ctx.events.sinks)  # no sink: no event is built at all
        self.quiet = [] if quiet is None else quiet
        self.before, self.after = ctx.registry.call_chains(call.name)
        self.state = CallState(call, call.params) if state is None else state
        self.proposed = self.state.proposed
        """The model's proposal: an edit changes the state's params, never this (a repeated
        call with the same id is recognised by it)."""
        self.registered = tool
        """The registered tool (None: an executor given to the call runs it, or it is unknown)."""
        self.execute = execute
        self.interrupted: BaseException | None = None
        self.verdict: Verdict | None = None

    def leave(self, token: contextvars.Token[CallScope | None], done: bool = True) -> None:
        """End the call's scope (``token`` from ``current_scope.set(run)``, which made it the
        call ``toolhooks.emit`` stamps events with). ``done``: the call's outcome is made, and a
        handler left running (a thread that overran its timeout) can no longer add events;
        ``done=False`` keeps it open (``decide``: a later call concludes it)."""
        if done:
            self.done = True
        try:  # noqa: SIM105 - leave_scope, inline: every call ends here (BENCHMARKS.md, #33)
            current_scope.reset(token)
        except ValueError:  # finalised in another context (a generator closed by the collector)
            pass


def remember(table: OrderedDict[str, Any], key: str, value: Any, limit: int = PAUSED_LIMIT) -> None:
    """Bounded insert, oldest out first."""
    table[key] = value
    if len(table) > limit:
        _evict_oldest(table)


def _evict_oldest(adjusted: OrderedDict[str, Any]) -> None:
    with contextlib.suppress(KeyError):  # another thread evicted first
        adjusted.popitem(last=False)
