"""Pausing changes nothing but the pause: a property test over generated chains and decisions.

For any chain of before hooks (pass, rewrite, block, ask for approval with various allowed
decisions, each maybe only for some params) and any decision X, ``call`` with an approver that
answers X, and ``call`` with an approver that answers "defer" followed by ``resume(id, X)``, run
the same params and end in the same Outcome and the same events (ids, timings and the
``approval.deferred`` of the pause aside). The deferred call has one ``tool.proposed`` and one
``tool.injected``. An edit the chain changes again asks again: the next answer of a generated
list is given, by the approver or by the next resume. The same call is then made a second time
(an allow-always grant left by a resume must answer it as one left by the approver), in memory
and over the SQLite store.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from toolhooks import REMOVE, ApprovalDecision, Outcome, Runtime, SQLiteStore, hookimpl

KEYS = ("a", "b", "c")
MAX_EDIT_ROUNDS = 5  # core/_gate.py: an approver answering edits in a loop is stopped there
ALLOWED = (
    ("allow-once", "allow-always", "deny"),
    ("allow-once", "allow-always", "deny", "edit"),
    ("allow-once", "allow-always", "deny", "edit"),
    ("allow-once", "deny"),
    ("allow-once", "edit"),
    ("edit", "deny"),
)

# Mostly values the tool accepts; now and then one its validation refuses.
values = st.sampled_from([0, 1, 2, 3, 0, 1, 2, 3, REMOVE, "x"])
behaviours = st.fixed_dictionaries(
    {
        "priority": st.integers(-2, 2),
        "asynchronous": st.booleans(),
        # Acts only when the params have this value for this key (None: always): an edit can
        # make a hook that was quiet block, rewrite or ask.
        "when": st.none() | st.none() | st.tuples(st.sampled_from(KEYS), st.integers(0, 3)),
        "params": st.none() | st.dictionaries(st.sampled_from(KEYS), values, max_size=2),
        # Drawn from lists: Hypothesis favours small integers, so a threshold would skew them.
        "block": st.sampled_from([True] + [False] * 15),
        "approval": st.sampled_from([True] * 7 + [False] * 3),
        "allowed": st.sampled_from(ALLOWED),
        "after": st.sampled_from([None, None, "note", "content"]),
    }
)
chains = st.lists(behaviours, min_size=1, max_size=5)
proposals = st.dictionaries(st.sampled_from(KEYS), st.integers(0, 3), max_size=3)
edits = st.dictionaries(st.sampled_from(KEYS), st.integers(0, 3) | st.just("x"), max_size=3)
decisions = st.one_of(
    st.sampled_from(["allow-once", "allow-always", "allow-always", "deny", "maybe"]),
    edits.map(lambda params: ("edit", params)),
)
# The answers to the first, second, ... question about the call (the last one repeats): an edit
# the chain changes again is asked about again, and may then be allowed, denied or edited.
answer_lists = st.lists(decisions, min_size=1, max_size=3)


def make_plugin(index: int, behaviour: dict[str, Any]) -> Any:
    name = f"p{index}"

    def decide(call: Any) -> dict[str, Any] | None:
        when = behaviour["when"]
        if when is not None and call.params.get(when[0]) != when[1]:
            return None
        result: dict[str, Any] = {}
        if behaviour["params"] is not None:
            result["params"] = behaviour["params"]
        if behaviour["approval"]:
            result["require_approval"] = {
                "title": f"{name} asks",
                "description": "generated",
                "allowed_decisions": list(behaviour["allowed"]),
            }
        if behaviour["block"]:
            result.update(block=True, block_reason=f"{name} says no")
        return result or None

    def after(call: Any) -> dict[str, Any] | None:
        # What an after hook saw is part of the Outcome: the params it was shown, in a note.
        shown = sorted((key, repr(value)) for key, value in call.params.items())
        if behaviour["after"] == "note":
            return {"note": f"{name} saw {shown}"}
        if behaviour["after"] == "content":
            return {"content": f"{name} replaced the result for {shown}"}
        return None

    if behaviour["asynchronous"]:

        class Plugin:
            @hookimpl
            async def before_tool_call(self, call):
                return decide(call)

            @hookimpl
            async def after_tool_call(self, call):
                return after(call)

    else:

        class Plugin:
            @hookimpl
            def before_tool_call(self, call):
                return decide(call)

            @hookimpl
            def after_tool_call(self, call):
                return after(call)

    Plugin.name = name
    Plugin.priority = behaviour["priority"]
    return Plugin()


class Sink:
    def __init__(self) -> None:
        self.events: list[Any] = []

    @hookimpl
    def on_event(self, event):
        self.events.append(event)


def answer(answers: list[Any], question: int) -> ApprovalDecision:
    """The answer to the call's ``question``-th approval (0 first), as an approver gives it and
    as ``resume`` takes it: a decision name, or "edit" with the params to run."""
    decision = answers[min(question, len(answers) - 1)]
    if isinstance(decision, tuple):
        return ApprovalDecision("edit", by="editor", params=dict(decision[1]))
    return ApprovalDecision(decision, by="editor")


class Flow:
    """One runtime, its events and what its tool ran."""

    def __init__(
        self, chain: list[dict[str, Any]], answers: list[Any] | None, store: Any = None
    ) -> None:
        """``answers`` None: the approver defers every question. ``store``: the approval store
        (None: the default, in memory)."""
        self.sink = Sink()
        self.ran: list[dict[str, Any]] = []
        self.asked = 0
        plugins = [make_plugin(i, behaviour) for i, behaviour in enumerate(chain)]

        def counted(pending: Any) -> Any:
            self.asked += 1
            return "defer" if answers is None else answer(answers, self.asked - 1)

        self.rt = Runtime(
            plugins=[self.sink, *plugins],
            config={},
            approver=counted,
            load_entrypoints=False,
            approval_store=store,
        )

        @self.rt.tool
        def t(a: int = 0, b: int = 0, c: int = 0) -> str:
            self.ran.append({"a": a, "b": b, "c": c})
            return f"ran a={a} b={b} c={c}"

    def trail(self, call_id: str) -> list[tuple[Any, ...]]:
        return [summary(e) for e in self.sink.events if e.call_id == call_id]


def summary(event: Any) -> tuple[Any, ...]:
    """What the rules determine about an event: no ids, timings or digests."""
    name, data = event.event, event.data
    if name == "tool.proposed":
        return (name, repr(sorted(data["params"].items())))
    if name == "hook.decision":
        return (name, event.plugin, data["applied"])
    if name in ("params.conflict", "params.frozen_ignored", "approval.ignored"):
        return (name, event.plugin)
    if name == "approval.requested":  # the digest: the approval is bound to the same params
        return (name, event.plugin, data["title"], data["digest"])
    if name == "approval.deferred":
        return (name, event.plugin)
    if name == "approval.resolved":
        return (name, event.plugin, data["decision"], data["reason"], data["by"])
    if name == "approval.edited":
        return (name, event.plugin, data["by"], tuple(data["fields"]))
    if name == "tool.started":
        return (name, repr(sorted(data["params"].items())))
    if name == "tool.blocked":
        return (name, data["by"], data["reason"])
    if name == "tool.finished":
        return (name, data["status"])
    if name == "tool.injected":
        quiet = tuple((q["plugin"], q["hook"]) for q in data["quiet"])
        return (name, data["status"], data["chars"], quiet)
    return (name,)


def comparable(outcome: Outcome) -> dict[str, Any]:
    """Everything the Outcome says but its ids."""
    seen = outcome.to_dict()
    del seen["call_id"], seen["trace_id"]
    seen["value"] = outcome.value
    return seen


async def run_direct(flow: Flow, call: dict[str, Any], asynchronous: bool) -> Outcome:
    if asynchronous:
        return await flow.rt.acall(call)
    return flow.rt.call(call)


async def run_deferred(
    flow: Flow, call: dict[str, Any], answers: list[Any], asynchronous: bool
) -> tuple[Outcome, int]:
    """``call`` deferring, then ``resume(id, X)`` for as long as the call is pending."""
    outcome = flow.rt.call(call) if not asynchronous else await flow.rt.acall(call)
    resumes = 0
    while outcome.status == "pending" and resumes < MAX_EDIT_ROUNDS:
        assert outcome.pending is not None and outcome.approval is None
        given = answer(answers, resumes)
        resumes += 1
        args = (outcome.pending.id, given.decision)
        kwargs: dict[str, Any] = {"params": given.params, "by": given.by}
        if asynchronous:
            outcome = await flow.rt.aresume(*args, **kwargs)
        else:
            outcome = flow.rt.resume(*args, **kwargs)
    return outcome, resumes


def check(
    chain: list[dict[str, Any]],
    proposed: dict[str, int],
    answers: list[Any],
    mode: str,
    stores: tuple[Any, Any] = (None, None),
) -> None:
    asynchronous = mode == "async"
    request = {"name": "t", "params": proposed, "sender": "alice", "session_id": "s1"}
    direct, deferred = Flow(chain, answers, stores[0]), Flow(chain, None, stores[1])
    try:
        # The same call twice, under new ids: an allow-always grant the first one left, by a
        # resume or not, answers the second one alike.
        for turn in (1, 2):
            direct.asked = deferred.asked = 0
            direct.ran.clear()
            deferred.ran.clear()
            ids = (f"c-direct-{turn}", f"c-paused-{turn}")
            first = asyncio.run(run_direct(direct, {**request, "id": ids[0]}, asynchronous))
            final, resumes = asyncio.run(
                run_deferred(deferred, {**request, "id": ids[1]}, answers, asynchronous)
            )
            event(f"call {turn}: {first.status} {first.blocked_by} after {resumes} resume(s), "
                  f"approval {first.approval}")  # fmt: skip
            if not compare(direct, deferred, ids, first, final, resumes):
                break
    finally:
        direct.rt.close()
        deferred.rt.close()


def compare(
    direct: Flow, deferred: Flow, ids: tuple[str, str], first: Outcome, final: Outcome, resumes: int
) -> bool:
    """One call both ways; False when the direct call was stopped in an edit loop."""
    paused = deferred.trail(ids[1])
    names = [e[0] for e in paused]
    assert names.count("tool.proposed") == 1
    if direct.asked == 0:  # nothing asked: the deferring approver was not asked either
        assert deferred.asked == 0 and resumes == 0
    else:
        assert deferred.asked == 1 and resumes >= 1  # asked once, then only resumed
    if first.status == "blocked" and first.reason == (
        f"Blocked: more than {MAX_EDIT_ROUNDS} rounds of edits"
    ):
        # An approver that keeps answering the same edit the chain keeps changing is stopped;
        # a paused call shows each new approval to a person instead, who may go on.
        assert direct.asked == MAX_EDIT_ROUNDS and final.status == "pending"
        assert direct.ran == deferred.ran == []
        assert names.count("tool.injected") == 0
        # The same rounds up to there: the direct call then ends blocked, the paused one asks.
        asked_again = [e for e in paused if e[0] != "approval.deferred"]
        assert asked_again[-1][0] == "approval.requested"
        assert asked_again[:-1] == direct.trail(ids[0])[: len(asked_again) - 1]
        return False
    assert names.count("tool.injected") == 1 and names[-1] == "tool.injected"
    assert resumes == direct.asked  # one resume per question the approver answered
    # Exactly the same params ran (or nothing did), and the same Outcome came back...
    assert deferred.ran == direct.ran
    assert final.pending is None and final.status != "pending"
    assert comparable(final) == comparable(first)
    assert final.call_id == ids[1]
    # ...by the same way through the pipeline: each pause adds only its approval.deferred.
    assert [e for e in paused if e[0] != "approval.deferred"] == direct.trail(ids[0])
    assert names.count("approval.deferred") == resumes
    return True


@settings(max_examples=150, deadline=None)
@given(chain=chains, proposed=proposals, answers=answer_lists)
def test_deferring_then_resuming_equals_deciding_at_once(chain, proposed, answers):
    check(chain, proposed, answers, "sync")


@settings(max_examples=80, deadline=None)
@given(chain=chains, proposed=proposals, answers=answer_lists)
def test_deferring_then_resuming_equals_deciding_at_once_async(chain, proposed, answers):
    check(chain, proposed, answers, "async")


@settings(max_examples=40, deadline=None)
@given(chain=chains, proposed=proposals, answers=answer_lists)
def test_the_same_holds_over_the_sqlite_store(chain, proposed, answers):
    """The queue route's store: the paused call goes through a SQLite row and back (params,
    request, rewritten fields and quiet handlers as JSON), and grants live in the file."""
    with (
        tempfile.TemporaryDirectory() as folder,
        SQLiteStore(Path(folder, "direct.db")) as direct,
        SQLiteStore(Path(folder, "paused.db")) as paused,
    ):
        check(chain, proposed, answers, "sync", (direct.open(), paused.open()))


# -- what the property found ---------------------------------------------------------------------


def test_after_an_edit_a_resumed_call_reports_the_fields_hooks_changed(drive, make, gate_plugin):
    """Found by the property above: the editor's path is rewritten back to the model's own.

    Decided at once, the Outcome names the field the gate changed from the editor's params; the
    resume measured the change from the model's proposal instead and reported none.
    """
    gate = gate_plugin(prefix="/ws/", allowed_decisions=["allow-once", "deny", "edit"])
    at_once = iter([ApprovalDecision("edit", params={"path": "b.txt", "text": "hi"}), "allow-once"])
    rt, _, ran = make(gate, approver=lambda pending: next(at_once))
    proposal = {"name": "write", "params": {"path": "/ws/b.txt", "text": "hi"}}
    direct = drive.call(rt, proposal)
    assert direct.status == "ok" and direct.approval == "allow-once"
    assert direct.rewritten_by == {"path": "gate"}

    rt, _, ran = make(gate_plugin(prefix="/ws/", allowed_decisions=["allow-once", "deny", "edit"]))
    first = drive.call(rt, proposal)
    assert first.status == "pending" and first.rewritten_by == {}
    edited = drive.resume(rt, first.pending.id, "edit", params={"path": "b.txt", "text": "hi"})
    assert edited.status == "pending" and edited.rewritten_by == {"path": "gate"}
    final = drive.resume(rt, edited.pending.id, "allow-once")
    assert final.status == "ok" and ran == [{"path": "/ws/b.txt", "text": "hi"}]
    assert final.rewritten_by == direct.rewritten_by == {"path": "gate"}


def test_a_resumed_call_lists_the_quiet_handlers_of_its_first_screening(drive, make):
    """Found by the property above: tool.injected's ``quiet`` lost the handlers that had no
    opinion before the pause, so the call's record no longer showed its whole chain."""

    class Onlooker:
        name = "onlooker"

        @hookimpl
        def before_tool_call(self, call):
            return None

    rt, rec, _ = make()
    rt.register(Onlooker())
    first = drive.call(rt, {"name": "write", "params": {"path": "a.txt"}})
    assert first.status == "pending"
    assert drive.resume(rt, first.pending.id, "allow-once").ok
    (injected,) = rec.of("tool.injected")
    assert [(q["plugin"], q["hook"]) for q in injected.data["quiet"]] == [
        ("onlooker", "before_tool_call")
    ]
