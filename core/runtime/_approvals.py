"""The Runtime's approval methods: resume, decide, visibility, passthrough, the store.

A mixin so that ``_runtime`` stays about plugins, tools and calls; ``Runtime`` inherits it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..config._settings import LoadedConfig
from ..pipeline._context import Context, Execute
from ..pipeline._driver import BackgroundLoop, drive_async, drive_sync
from ..pipeline._tools import Tool
from ..pipeline._visibility import hidden_by, internal_only
from ..records._models import Origin, ToolCall, ToolSpec
from ..records._results import Outcome
from ..records._sender import Sender
from ..registry._registry import Registry

if TYPE_CHECKING:
    from ..approvals._resolve import Approver
    from ..records._decisions import Decision
    from ..stores._contract import ApprovalStore


class RuntimeApprovals:
    """Pausing and resuming calls (PLUGINS.md, "Approvals"); mixed into :class:`Runtime`."""

    config: LoadedConfig
    _context: Context
    _background: BackgroundLoop
    _registry: Registry
    _tools: dict[str, Tool]
    _names_checked: bool
    _check_names: Callable[[], None]
    _route_approver: Callable[[ApprovalStore], Approver | None]

    def _first_use(self) -> None:
        """Check the config's plugin names once, at the first call of any entry point."""
        if not self._names_checked:
            self._check_names()

    def route_approver(self) -> Approver | None:
        """The approver ``[approvals] route`` names (``queue``, ``tty``), over this runtime's
        store; None for ``"none"``. An integration with its own way to ask a person (the MCP
        proxy's elicitation) falls back to it when that way is not available."""
        return self._route_approver(self.approvals)

    @property
    def approvals(self) -> ApprovalStore:
        """The approval store this runtime uses (pending approvals, decisions, grants)."""
        return self._context.store

    def add_passthrough(self, *exception_types: type[BaseException]) -> None:
        """Exceptions a tool or approver may raise to pause the host framework.

        Such an exception is recorded (the call's events end as for an interruption) and
        re-raised unchanged instead of becoming an error result or a deny.
        """
        for kind in exception_types:
            if not (isinstance(kind, type) and issubclass(kind, BaseException)):
                raise TypeError(f"passthrough expects exception types, got {kind!r}")
        known = self._context.passthrough
        self._context.passthrough = known + tuple(k for k in exception_types if k not in known)

    def resume(
        self,
        approval_id: str,
        decision: str | None = None,
        *,
        params: Mapping[str, Any] | None = None,
        execute: Execute | None = None,
        by: str | None = None,
        reason: str | None = None,
    ) -> Outcome:
        """Finish a paused call once: ``decision`` None uses the one recorded in the store.

        Never raises for a bad id or decision: the Outcome says what went wrong and nothing runs.
        """
        self._first_use()
        # The approvals' modules (and the store's records they import) are imported where an
        # approval is used, not at start: most processes never pause a call.
        from ..approvals._resume import run_resume

        pipeline = run_resume(self._context, approval_id, decision, params, execute, by, reason)
        return drive_sync(pipeline, self._background)

    async def aresume(
        self,
        approval_id: str,
        decision: str | None = None,
        *,
        params: Mapping[str, Any] | None = None,
        execute: Execute | None = None,
        by: str | None = None,
        reason: str | None = None,
    ) -> Outcome:
        """:meth:`resume`, awaited on the caller's event loop."""
        self._first_use()
        from ..approvals._resume import run_resume

        pipeline = run_resume(self._context, approval_id, decision, params, execute, by, reason)
        return await drive_async(pipeline)

    def decide(self, call: ToolCall | Mapping[str, Any]) -> Decision:
        """The fence, the before chain and validation, without executing.

        A later ``call`` with the same call id uses this decision (no second ``tool.proposed``);
        a call that needs approval is stored as pending (``Decision.pending``).
        """
        self._first_use()
        from ..approvals._decide import run_decide

        return drive_sync(run_decide(self._context, call), self._background)

    async def adecide(self, call: ToolCall | Mapping[str, Any]) -> Decision:
        """:meth:`decide`, awaited on the caller's event loop."""
        self._first_use()
        from ..approvals._decide import run_decide

        return await drive_async(run_decide(self._context, call))

    def ask(self, approval_id: str) -> str:
        """Ask the runtime's approver now about an approval ``decide`` left pending; run nothing.

        Returns the decision. "defer" leaves the approval pending; any other answer is recorded
        as its decision, and the next ``call`` with the same call id (or ``resume(approval_id)``)
        finishes the call with it. For frameworks that pause only before a tool call starts.
        """
        self._first_use()
        from ..approvals._ask import run_ask

        return drive_sync(run_ask(self._context, approval_id), self._background)

    async def aask(self, approval_id: str) -> str:
        """:meth:`ask`, awaited on the caller's event loop."""
        self._first_use()
        from ..approvals._ask import run_ask

        return await drive_async(run_ask(self._context, approval_id))

    def is_visible(
        self,
        name: str,
        sender: Sender | Mapping[str, Any] | str | None = None,
        agent_id: str | None = None,
        origin: Origin = "agent",
    ) -> bool:
        """Whether a call to tool ``name`` from this scope would be shown (and so allowed to run).

        A tool the runtime does not know is judged by its name alone.
        """
        self._first_use()
        tool = self._tools.get(name)
        spec = tool.spec if tool is not None else ToolSpec(name)
        if origin == "external" and internal_only(name, spec):
            return False
        who = Sender.coerce(sender)
        pipeline = hidden_by(self._registry, spec, who, agent_id, origin)
        return drive_sync(pipeline, self._background) is None

    def revoke_approvals(
        self, plugin: str | None = None, tool: str | None = None, sender: str | None = None
    ) -> int:
        """Forget allow-always grants that match (None matches anything); returns how many."""
        return self._context.store.revoke(plugin=plugin, tool=tool, sender=sender)

    def _default_store(self) -> ApprovalStore | None:
        """[state] url: the shared Redis store; the queue route: its SQLite file, opened (a bad
        file is a ConfigError now); else None: the memory store, made at its first use."""
        table = self.config.approvals
        state = getattr(self, "state", None)
        if state is not None:
            from ..stores._redis import RedisStore

            return RedisStore(state, retention_s=table.retention_s)
        if table.route == "queue":
            from ..stores._contract import StoreError
            from ..stores._sqlite import SQLiteStore

            store = SQLiteStore(
                table.db, retention_s=table.retention_s, poll_interval_s=table.poll_interval_s
            )
            try:
                return store.open()  # a bad file fails here, not at the first approval
            except StoreError as exc:
                raise self.config.error(str(exc), "approvals", "db") from None
        return None

    def _memory_store(self) -> ApprovalStore:
        """The default store: this process's memory (nothing to open, nothing that can fail)."""
        from ..stores._memory import MemoryStore

        return MemoryStore(retention_s=self.config.approvals.retention_s)
