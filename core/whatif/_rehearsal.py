"""Recorded calls run again through a runtime of another config, with nothing real running.

The runtime is the one the agent would build from the config (entry points loaded, plus any
``plugins`` given), with what must stay out of a rehearsal taken out:

- no tool runs: the recorded result stands in. The log keeps a digest of each result
  (``tool.finished``'s ``result_digest``), so a stand-in equals an earlier one exactly when the
  real results were equal (loop detection judges progress by that); a recorded failure is raised
  again with its message; a call that never ran gets a stand-in of its own;
- nobody is asked: an approval is answered as it was answered in the log (allow-once,
  allow-always, deny; an edit as allow-once, a deferral as deny), and an approval the log does
  not have is answered allow-once when the call ran then and deny when it did not;
- nothing leaves the process (:func:`toolhooks.runtime._offline.offline_runtime`, which
  ``toolhooks test`` uses too): the event log and OpenTelemetry plugins are switched off, paused
  calls and grants live in a memory store, ``[state]`` (and ``$TOOLHOOKS_STATE_URL``) is not
  used, and trimmed results go to a temporary folder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..config._settings import LoadedConfig
from ..events._calls import RecordedCall
from ..events._events import Event
from ..events._names import (
    APPROVAL_DEFERRED,
    APPROVAL_RESOLVED,
    TOOL_BLOCKED,
    TOOL_FINISHED,
    TOOL_INJECTED,
    TOOL_PROPOSED,
)
from ..records._decisions import ApprovalDecision
from ..records._models import ToolSpec
from ..records._results import Outcome, PendingApproval, ToolError
from ..registry._hookimpl import hookimpl
from ..runtime._offline import offline_runtime
from ..stores._memory import MemoryStore
from ._decision import ChainAnswer, decision_of, wanted

PURGE_EVERY = 5_000
"""Calls between two purges of the answered approvals (the memory store keeps them otherwise)."""
_ANSWERS = {"allow-once", "allow-always", "deny"}


class _Events:
    """Keeps the events of the call being run again (the one call at a time)."""

    name = "toolhooks-whatif-recorder"

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    @hookimpl
    def on_event(self, event: Event) -> None:
        name = event.event
        if wanted(name) or name == TOOL_PROPOSED:
            data = event.data
            line = {**data} if isinstance(data, Mapping) else {}
            line["event"] = name
            line["plugin"] = event.plugin
            self.events.append(line)


class _Approver:
    """Answers each approval as the log says it was answered."""

    def __init__(self) -> None:
        self.answer = "deny"

    def __call__(self, pending: PendingApproval) -> ApprovalDecision:
        allowed = pending.request.allowed_decisions
        answer = self.answer
        if answer not in allowed:
            answer = "allow-once" if answer != "deny" and "allow-once" in allowed else "deny"
        return ApprovalDecision(answer, by="toolhooks whatif")


def answer_of(events: Sequence[Mapping[str, Any]]) -> str:
    """How the log says the call's first approval was answered (or would have been)."""
    ran = False
    for event in events:
        name = event.get("event")
        if name == APPROVAL_RESOLVED:
            decision = event.get("decision")
            if decision in _ANSWERS:
                return str(decision)
            return "allow-once" if decision == "edit" else "deny"
        if name == APPROVAL_DEFERRED:
            return "deny"
        if name == TOOL_FINISHED:
            ran = True
    return "allow-once" if ran else "deny"


class Rehearsal:
    """A runtime of ``config`` (plus ``plugins``) that runs recorded calls again."""

    def __init__(self, config: LoadedConfig, artifacts: str, plugins: Sequence[Any] = ()) -> None:
        self._events = _Events()
        self._approver = _Approver()
        self._store = MemoryStore(retention_s=0)
        self.runtime = offline_runtime(
            config,
            artifacts=artifacts,
            plugins=plugins,
            approver=self._approver,
            approval_store=self._store,
        )
        self.runtime._register_observer(self._events, self._events.name)
        self._tags: dict[str, tuple[str, ...]] = {}
        self._count = 0

    def close(self) -> None:
        self.runtime.close()

    def run(self, call: RecordedCall) -> tuple[ChainAnswer, Outcome]:
        """The decision the config gives ``call`` now, and the outcome."""
        assert call.proposal is not None
        self._approver.answer = answer_of(call.events)
        tool = call.proposal["name"]
        if call.tags and self._tags.get(tool) != call.tags:
            # A registered tool's tags are what a policy sees (side_effect, elevated, internal).
            self.runtime.add_tool(ToolSpec(tool, tags=frozenset(call.tags)))
            self._tags[tool] = call.tags
        self._events.events.clear()
        outcome = self.runtime.call(call.proposal, execute=stand_in(call))
        events = self._events.events
        self._count += 1
        if self._count % PURGE_EVERY == 0:
            self._store.purge()
        return decision_of(events), outcome

    def proposed(self) -> bool:
        """Whether the last call got as far as the chain (a valid call)."""
        return any(event["event"] == TOOL_PROPOSED for event in self._events.events)


def stand_in(call: RecordedCall) -> Any:
    """What stands in for the tool: the recorded result's digest, the recorded failure, or (a
    call the log shows as an unknown tool) no executor, so that it is unknown again."""
    finished = None
    injected = None
    blocked = False
    for event in call.events:
        name = event.get("event")
        if name == TOOL_FINISHED and finished is None:
            finished = event
        elif name == TOOL_INJECTED:
            injected = event
        elif name == TOOL_BLOCKED:
            blocked = True
    if finished is None:
        if (
            injected is not None
            and injected.get("status") == "error"
            and not blocked
            and not call.tags
        ):
            return None  # no tool and no executor: "Unknown tool"
        text = f"[whatif: {call.call_id} did not run when it was recorded]"
        return lambda _params: text
    if finished.get("status") == "error":
        message = str(finished.get("error") or "error")

        def fail(_params: dict[str, Any]) -> Any:
            raise ToolError(message)

        return fail
    digest = finished.get("result_digest")
    if isinstance(digest, str):
        text = f"[whatif: the recorded result {digest}]"
    else:  # a log from before the digest: the result's size is all there is
        chars = injected.get("chars") if injected is not None else None
        text = f"[whatif: a recorded result of {chars} characters]"
    return lambda _params: text
