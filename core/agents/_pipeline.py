"""The two things the bridge needs from the runtime that ``Runtime``'s public methods do not do.

1. Finishing a call another process decided. ``Runtime.decide`` keeps the decided call in the
   process that decided it, and ``Runtime.call`` with the same id concludes it there. An agent's
   after event may be answered by another process (the in-process fallback, a restarted
   daemon); the before side left a ``CallRecord`` with the decided params, so this process
   concludes the call from it: execution (the agent's recorded result), the after chain and the
   audit events, with no second before chain and no second ``tool.proposed``.
2. Events of the bridge's own (``agent.hook``: which agent, its tool name, the cwd;
   ``agent.refused``; ``agent.not_applied``) in the call's trace, to every ``on_event`` sink.

Both use the runtime's pipeline context, the one place that reaches past ``Runtime``'s methods.
"""

from __future__ import annotations

from typing import Any

from ..events._scope import current_scope
from ..pipeline._conclude import conclude
from ..pipeline._context import Execute, Run
from ..pipeline._driver import drive_sync
from ..pipeline._state import CallState
from ..pipeline._verdict import Verdict
from ..records._frozen import freeze_params, thaw
from ..records._models import ToolCall
from ..records._results import Outcome
from ..runtime._runtime import Runtime
from ._handover import CallRecord


def conclude_recorded(rt: Runtime, call: ToolCall, record: CallRecord, execute: Execute) -> Outcome:
    """Conclude ``call`` (its proposed params and ids) as ``record`` says it was allowed."""
    rt._first_use()
    ctx = rt._context
    tool = ctx.tools.get(call.name)
    if tool is not None:
        call = call.with_spec(tool.spec)
    # The state keeps the proposal; the verdict carries what was decided, and ``conclude``
    # runs (and reports) the call with the verdict's params, as after a decision in-process.
    state = CallState(call, call.params, dict(record.rewritten_by) or None)
    run = Run(ctx, call, tool, execute, state)
    final = thaw(freeze_params(record.final))
    verdict = Verdict("go", final, final)
    token = current_scope.set(run)
    try:
        return drive_sync(conclude(ctx, run, verdict), rt._background)
    finally:
        run.leave(token)


def emit(rt: Runtime, name: str, call: ToolCall, data: dict[str, Any]) -> None:
    """One bridge event in ``call``'s trace (nothing is built without a sink)."""
    rt._context.emit(name, call.trace_id, call.id, call.session_id, call.name, None, data)
