"""Random plugin chains against a plain model of the documented rules, in ``call`` and ``acall``.

Beyond tests/pipeline/test_merge_properties.py: every handler kind (``def`` inline, ``async def``, ``def``
under a timeout in a thread, ``def`` returning a coroutine), handlers that time out or return an
invalid result, ``mode = "audit"``, ``on_error = "ignore"``, a random approval decision (including
ones outside ``allowed_decisions`` and an approver that raises), remembered allow-always grants,
after_tool_call content / notes, and the exact sequence of merge events.
"""

from __future__ import annotations

import asyncio
import time

from hypothesis import given, settings
from hypothesis import strategies as st
from toolhooks import REMOVE, Runtime, hookimpl

KEYS = ["a", "b", "c"]
HANG_TIMEOUT = 0.05  # a hanging handler's timeout; it would otherwise sleep far longer
SLACK_TIMEOUT = 5.0  # the timeout of a timed handler that does not hang: never reached
ALL_DECISIONS = ("allow-once", "allow-always", "deny")

values = st.one_of(
    st.integers(-3, 3),
    st.text(max_size=2),
    st.just(REMOVE),
    st.lists(st.integers(0, 2), max_size=2),
)


def sometimes(percent: int):
    return st.integers(0, 99).map(lambda n: n < percent)


# Blocks and failures end a chain, so they are drawn rarely enough that long chains happen.
actions = st.fixed_dictionaries(
    {
        "priority": st.integers(-2, 2),
        "kind": st.sampled_from(["sync", "async", "sync_timed", "sync_returns_coroutine"]),
        "params": st.none() | st.dictionaries(st.sampled_from(KEYS), values, max_size=3),
        "approval": sometimes(30),
        "allowed": st.sampled_from([ALL_DECISIONS, ("allow-once", "deny"), ("deny",)]),
        "block": sometimes(10),
        "failure": st.sampled_from([None] * 22 + ["raises", "invalid", "hangs"]),
        "returns_nothing": sometimes(15),
        "audit": sometimes(12),
        "ignore_errors": sometimes(25),
        "after": st.sampled_from([None, None, "content", "note", "raises"]),
    }
)
chains = st.lists(actions, max_size=6)
proposals = st.dictionaries(st.sampled_from(KEYS), st.integers(0, 9), max_size=3)
decisions = st.sampled_from(
    ["allow-once", "allow-always", "deny", "maybe", "raises", {"decision": "allow-once"}]
)


# -- the plugins -------------------------------------------------------------------------------


def make_plugin(index: int, action: dict, log: list):
    """A plugin doing what ``action`` says, in the handler kind it names."""
    name = f"p{index}"
    result = None
    if not action["returns_nothing"]:
        result = {}
        if action["params"] is not None:
            result["params"] = action["params"]
        if action["approval"]:
            result["require_approval"] = {
                "title": name,
                "description": "d",
                "allowed_decisions": list(action["allowed"]),
            }
        if action["block"]:
            result["block"] = True
            result["block_reason"] = f"{name} says no"
    failure = action["failure"]
    kind = action["kind"]
    if failure == "hangs" and kind == "sync":
        kind = "sync_timed"  # an inline def is untimed by design: it can only hang under a timeout
    timeout = HANG_TIMEOUT if failure == "hangs" else SLACK_TIMEOUT

    def decide(call):
        log.append((name, dict(call.params)))
        if failure == "raises":
            raise RuntimeError(f"{name} failed")
        if failure == "invalid":
            return {"blok": True}  # a typo must not silently allow the call
        return result

    def after():
        if action["after"] == "raises":
            raise RuntimeError(f"{name} after failed")
        if action["after"] == "content":
            return {"content": f"content by {name}"}
        if action["after"] == "note":
            return {"note": f"note by {name}"}
        return None

    if kind == "async":

        class Plugin:
            @hookimpl(timeout=timeout)
            async def before_tool_call(self, call):
                if failure == "hangs":
                    await asyncio.sleep(30)
                return decide(call)

            @hookimpl
            async def after_tool_call(self, result):
                return after()

    elif kind == "sync_timed":

        class Plugin:
            @hookimpl(timeout=timeout)
            def before_tool_call(self, call):
                if failure == "hangs":
                    time.sleep(0.5)  # the thread outlives its timeout, then its answer is dropped
                return decide(call)

            @hookimpl(timeout=SLACK_TIMEOUT)
            def after_tool_call(self, result):
                return after()

    elif kind == "sync_returns_coroutine":

        class Plugin:
            @hookimpl(timeout=timeout if failure == "hangs" else None)
            def before_tool_call(self, call):
                async def later():
                    if failure == "hangs":
                        await asyncio.sleep(30)
                    return decide(call)

                return later()

            @hookimpl
            def after_tool_call(self, result):
                async def later():
                    return after()

                return later()

    else:

        class Plugin:
            @hookimpl
            def before_tool_call(self, call):
                return decide(call)

            @hookimpl
            def after_tool_call(self, result):
                return after()

    Plugin.priority = action["priority"]
    Plugin.name = name
    return Plugin()


def make_approver(decision, asked: list):
    def approver(pending):
        asked.append((pending.plugin, dict(pending.call.params), pending.digest))
        if decision == "raises":
            raise RuntimeError("approver down")
        return decision

    return approver


def config_for(chain):
    tables = {}
    for index, action in enumerate(chain):
        table = {}
        if action["audit"]:
            table["mode"] = "audit"
        if action["ignore_errors"]:
            table["on_error"] = "ignore"
        if table:
            tables[f"p{index}"] = table
    return {"plugins": tables}


# -- the model ---------------------------------------------------------------------------------


def reference(chain, proposed, decision, remembered=False):
    """The documented rules, written as plainly as possible. Returns what must be observed."""
    order = sorted(range(len(chain)), key=lambda i: (-chain[i]["priority"], i))
    params = dict(proposed)
    writers: dict[str, str] = {}
    approver = request_allowed = None
    events: list[tuple] = [("tool.proposed",)]
    quiet: list[tuple[str, str]] = []  # the handlers with no opinion, in chain order
    status, blocked_by, reason, failed = "ok", None, None, False
    for i in order:
        action, name = chain[i], f"p{i}"
        if action["failure"] is not None:
            events.append(("hook.error", name))
            if action["ignore_errors"] or action["audit"]:  # a shadow plugin never decides
                continue
            status, blocked_by, failed = "blocked", name, True
            reason = (
                f"Tool call blocked because before_tool_call hook {name} failed: "
                + {
                    "raises": f"RuntimeError: {name} failed",
                    "invalid": "HookResultError: unknown key 'blok'",
                    "hangs": f"timed out after {HANG_TIMEOUT:g} s",
                }[action["failure"]]
            )
            break
        if action["returns_nothing"]:  # no opinion: listed in tool.injected's quiet, no event
            quiet.append((name, "before_tool_call"))
            continue
        events.append(("hook.decision", name, not action["audit"]))
        if action["audit"]:
            continue
        if action["params"] is not None:
            if approver is not None and approver != name:
                events.append(("params.frozen_ignored", name, tuple(sorted(action["params"]))))
            else:
                for key, value in action["params"].items():
                    previous = writers.get(key)
                    if value is REMOVE:
                        changed = key in params
                        params.pop(key, None)
                    else:
                        changed = key not in params or params[key] != value
                        params[key] = value
                    if changed and previous is not None and previous != name:
                        events.append(("params.conflict", name, key, (previous, name)))
                    writers[key] = name
        if action["approval"]:
            if approver is None:
                approver, request_allowed = name, action["allowed"]
            else:
                events.append(("approval.ignored", name))
        if action["block"]:
            status, blocked_by, reason = "blocked", name, f"{name} says no"
            break
    approval = None
    if status == "ok" and approver is not None:
        if remembered:
            verdict, approval = "allow-always", "allow-always"
        else:
            events.append(("approval.requested", approver))
            answer = decision["decision"] if isinstance(decision, dict) else decision
            if answer == "raises":
                verdict, reason = "deny", "Approval failed: RuntimeError: approver down"
            elif answer not in ALL_DECISIONS or answer not in request_allowed:
                verdict, reason = "deny", f"Denied by user (decision {answer!r} is not allowed)"
            elif answer == "deny":
                verdict, reason = "deny", "Denied by user"
            else:
                verdict = answer
            approval = verdict
        events.append(("approval.resolved", approver, verdict))
        if verdict == "deny":
            status = "denied"
    if status == "blocked":
        events.append(("tool.blocked", blocked_by))
    elif status == "ok":
        events += [("tool.started",), ("tool.finished", "ok")]
    content = "done" if status == "ok" else reason
    notes = []
    for i in order:  # after_tool_call: every plugin, every status
        action, name = chain[i], f"p{i}"
        if action["after"] == "raises":
            events.append(("hook.error", name))
            continue
        if action["after"] is None:
            quiet.append((name, "after_tool_call"))
            continue
        events.append(("hook.decision", name, not action["audit"]))
        if action["audit"]:
            continue
        if action["after"] == "content":
            content = f"content by {name}"
        elif action["after"] == "note":
            notes.append(f"note by {name}")
    events.append(("tool.injected", status, tuple(quiet)))
    if notes:
        content = f"{content}\n\n" + "\n".join(notes) if content else "\n".join(notes)
    rewritten = {
        k: w for k, w in writers.items() if proposed.get(k, REMOVE) != params.get(k, REMOVE)
    }
    return {
        "status": status,
        "blocked_by": blocked_by,
        "reason": reason,
        "failed": failed,
        "executed": [params] if status == "ok" else [],
        "asked": approver if approver is not None and status != "blocked" else None,
        "params": params,
        "approval": approval,
        "events": events,
        "content": None if failed else content,
        "notes": notes,
        "rewritten_by": rewritten if status == "ok" else None,
    }


def summary(event) -> tuple:
    """The part of an event the rules determine (no timings, no ids)."""
    name, data = event.event, event.data
    if name == "hook.decision":
        return (name, event.plugin, data["applied"])
    if name == "hook.error":
        return (name, event.plugin)
    if name == "params.conflict":
        return (name, event.plugin, data["field"], tuple(data["plugins"]))
    if name == "params.frozen_ignored":
        return (name, event.plugin, tuple(data["fields"]))
    if name in ("approval.ignored", "approval.requested"):
        return (name, event.plugin)
    if name == "approval.resolved":
        return (name, event.plugin, data["decision"])
    if name == "tool.blocked":
        return (name, data["by"])
    if name == "tool.finished":
        return (name, data["status"])
    if name == "tool.injected":
        return (name, data["status"], tuple((q["plugin"], q["hook"]) for q in data["quiet"]))
    return (name,)


class Sink:
    def __init__(self):
        self.events = []

    @hookimpl
    def on_event(self, event):
        self.events.append(event)


def run(chain, proposed, decision, mode, calls=1):
    sink = Sink()
    asked, seen, observed = [], [], []
    plugins = [make_plugin(index, action, seen) for index, action in enumerate(chain)]
    rt = Runtime(
        plugins=[sink, *plugins],
        config=config_for(chain),
        approver=make_approver(decision, asked),
        load_entrypoints=False,
    )
    for _ in range(calls):
        executed, start = [], len(sink.events)

        def execute(params, executed=executed):
            executed.append(params)
            return "done"

        request = {"name": "t", "params": proposed, "sender": "alice", "session_id": "s"}
        if mode == "call":
            outcome = rt.call(request, execute=execute)
        else:
            outcome = asyncio.run(rt.acall(request, execute=execute))
        observed.append((outcome, executed, [summary(e) for e in sink.events[start:]]))
    rt.close()
    return observed, asked, seen


@settings(max_examples=250)
@given(chain=chains, proposed=proposals, decision=decisions)
def test_random_chains_follow_the_rules_identically_in_call_and_acall(chain, proposed, decision):
    expected = reference(chain, proposed, decision)
    # A remembered allow-always answers the second identical call without asking.
    again = expected["approval"] == "allow-always"
    results = []
    for mode in ("call", "acall"):
        observed, asked, _ = run(chain, proposed, decision, mode, calls=2 if again else 1)
        outcome, executed, events = observed[0]
        assert outcome.status == expected["status"]
        assert outcome.blocked_by == expected["blocked_by"]
        if expected["failed"]:
            assert outcome.reason.startswith(expected["reason"])
        else:
            assert outcome.reason == expected["reason"]
            assert outcome.content == expected["content"]
            assert outcome.notes == expected["notes"]
        # Nothing blocked or denied ever executes; what executes is the in-order merge.
        assert executed == expected["executed"]
        assert outcome.approval == expected["approval"]
        if expected["rewritten_by"] is not None:
            assert outcome.rewritten_by == expected["rewritten_by"]
            assert outcome.params == expected["params"]
        # The approver is asked only when nothing blocked, once, by the first requester, and
        # sees exactly what then runs.
        if expected["asked"] is None:
            assert asked == []
        else:
            assert [plugin for plugin, _, _ in asked] == [expected["asked"]]
            assert asked[0][1] == expected["params"]
        # Merge events (conflicts, frozen / ignored writes and approvals), decisions, errors,
        # blocks and the approval round trip: exactly the model's sequence.
        assert events == expected["events"]
        if again:
            outcome2, executed2, _ = observed[1]
            assert outcome2.status == "ok" and outcome2.approval == "allow-always"
            assert executed2 == expected["executed"] and len(asked) == 1
        results.append(
            (
                outcome.status,
                outcome.blocked_by,
                outcome.reason,
                outcome.params,
                outcome.content,
                outcome.approval,
                executed,
                [(plugin, params) for plugin, params, _ in asked],
                events,
            )
        )
    assert results[0] == results[1]


@settings(max_examples=60)
@given(chain=chains, proposed=proposals)
def test_handlers_after_an_approval_see_the_frozen_params(chain, proposed):
    """Rule 3 on its own: once p_k asked, every later handler is shown p_k's params only."""
    expected = reference(chain, proposed, "allow-once")
    observed, asked, seen = run(chain, proposed, "allow-once", "call")
    if expected["asked"] is None or expected["status"] != "ok":
        assert observed[0][0].status == expected["status"]
        return
    order = [name for name, _ in seen]
    position = order.index(expected["asked"])
    approver_writes = {
        key
        for index, action in enumerate(chain)
        if f"p{index}" == expected["asked"] and action["params"]
        for key in action["params"]
    }
    frozen = seen[position][1]
    for name, params in seen[position + 1 :]:
        # Only fields the approving plugin itself writes may differ from what it was shown.
        changed = {k for k in set(frozen) | set(params) if frozen.get(k) != params.get(k)}
        assert changed <= approver_writes, (name, frozen, params)
    assert asked[0][1] == expected["params"]
