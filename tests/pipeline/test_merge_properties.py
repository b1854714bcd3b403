"""Property tests over random handler chains: the merge invariants, identical in call and acall."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st
from toolhooks import REMOVE, Runtime, hookimpl

KEYS = ["a", "b", "c"]
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
        "params": st.none() | st.dictionaries(st.sampled_from(KEYS), values, max_size=3),
        "approval": sometimes(30),
        "block": sometimes(10),
        "raises": sometimes(8),
        "is_async": st.booleans(),
        "returns_nothing": sometimes(20),
    }
)
chains = st.lists(actions, max_size=6)
proposals = st.dictionaries(st.sampled_from(KEYS), st.integers(0, 9), max_size=3)


def make_plugin(index, action, seen):
    result = None
    if not action["returns_nothing"]:
        result = {}
        if action["params"] is not None:
            result["params"] = action["params"]
        if action["approval"]:
            result["require_approval"] = {"title": f"p{index}", "description": "d"}
        if action["block"]:
            result["block"] = True

    def decide(call):
        seen.append((index, dict(call.params)))
        if action["raises"]:
            raise RuntimeError(f"p{index} failed")
        return result

    if action["is_async"]:

        class Plugin:
            @hookimpl(priority=action["priority"])
            async def before_tool_call(self, call):
                return decide(call)
    else:

        class Plugin:
            @hookimpl(priority=action["priority"])
            def before_tool_call(self, call):
                return decide(call)

    return Plugin()


def reference(chain, proposed):
    """The documented rules, written as plainly as possible."""
    order = sorted(range(len(chain)), key=lambda i: (-chain[i]["priority"], i))
    params = dict(proposed)
    approver = None
    for i in order:
        action = chain[i]
        if action["raises"]:
            return ("blocked", f"p{i}", None, approver)
        if action["returns_nothing"]:
            continue
        if action["params"] is not None and (approver is None or approver == f"p{i}"):
            for key, value in action["params"].items():
                if value is REMOVE:
                    params.pop(key, None)
                else:
                    params[key] = value
        if action["approval"] and approver is None:
            approver = f"p{i}"
        if action["block"]:
            return ("blocked", f"p{i}", None, approver)
    return ("ok", None, params, approver)


def build(chain, approvals, seen):
    rt = Runtime(
        load_entrypoints=False,
        approver=lambda pending: approvals.append(pending.plugin) or "allow-once",
    )
    for index, action in enumerate(chain):
        rt.register(make_plugin(index, action, seen), name=f"p{index}")
    return rt


@settings(max_examples=300)
@given(chain=chains, proposed=proposals)
def test_merge_invariants_hold_in_call_and_acall(chain, proposed):
    expected_status, expected_by, expected_params, expected_approver = reference(chain, proposed)
    results = []
    for mode in ("call", "acall"):
        executed, approvals, seen = [], [], []
        rt = build(chain, approvals, seen)
        request = {"name": "t", "params": proposed}

        def execute(params, executed=executed):
            executed.append(params)
            return "done"

        if mode == "call":
            outcome = rt.call(request, execute=execute)
        else:
            outcome = asyncio.run(rt.acall(request, execute=execute))
        rt.close()
        # Any block (or failure) means nothing executes and no approval is asked.
        if expected_status == "blocked":
            assert outcome.status == "blocked" and outcome.blocked_by == expected_by
            assert executed == [] and approvals == []
        else:
            # The executed params are the in-order merge; after freezing only the approver wrote.
            assert outcome.status == "ok"
            assert executed == [expected_params]
            assert approvals == ([expected_approver] if expected_approver else [])
            if expected_approver is not None:
                # Every handler after the approving one saw the same params: nobody else changed them.
                position = [i for i, _ in seen].index(int(expected_approver[1:]))
                later = [params for _, params in seen[position + 1 :]]
                assert all(params == later[0] for params in later)
                assert not later or later[0] == expected_params
        results.append(
            (
                outcome.status,
                outcome.blocked_by,
                outcome.params,
                outcome.reason,
                executed,
                approvals,
            )
        )
    assert results[0] == results[1]
