"""One name matcher serves hookimpl(tools=), policy, call limits, loop detection, the event log
and ``toolhooks logs --event`` (issue #14 item 6): ``*`` is the only special character."""

from __future__ import annotations

import pytest
from toolhooks import Runtime, hookimpl
from toolhooks.registry._names import Wildcards, name_patterns


@pytest.mark.parametrize(
    ("patterns", "name", "matches"),
    [
        (["read"], "read", True),
        (["read"], "read_file", False),
        (["read*"], "read", True),  # * matches the empty run too
        (["read*"], "read_file", True),
        (["*_file"], "read_file", True),
        (["a*b*c"], "a-x-b-y-c", True),
        (["a*b*c"], "a-x-c", False),
        (["tool.*"], "tool.proposed", True),
        (["tool.*"], "toolXproposed", False),  # "." is a dot, not any character
        (["a+b"], "a+b", True),
        (["a+b"], "aab", False),
        (["[ab]"], "a", False),
        (["x*"], "x\nsecond line", True),
        (["x"], "x\n", False),  # whole names only
        ([], "anything", False),
        (["a", "b*"], "bee", True),
        (["a", "b*"], "a", True),
        (["a", "b*"], "c", False),
        (["*"], "any\nname", True),  # a lone * matches every name (no regex is compiled)
        (["a*", "*"], "", True),
        (["a", "*"], "b", True),
    ],
)
def test_star_is_the_only_wildcard_and_names_match_whole(patterns, name, matches):
    assert (name in name_patterns(patterns)) is matches
    assert (name in Wildcards(patterns)) is matches


def test_plain_names_are_a_frozenset_and_nothing_but_a_string_matches_a_pattern():
    assert name_patterns(["a", "b"]) == frozenset({"a", "b"})
    assert 3 not in name_patterns(["*"])
    assert "" in name_patterns(["*"])


def test_hookimpl_tools_use_it_and_the_chain_follows_registration(toolhooks_runtime):
    class Reads:
        @hookimpl(tools=["read*", "cat"])
        def before_tool_call(self, call):
            return {"block": True, "block_reason": "reads are off"}

    rt: Runtime = toolhooks_runtime
    rt.register(Reads(), name="reads")
    assert [h.plugin for h in rt.handlers("before_tool_call", "read_file")] == ["reads"]
    assert rt.handlers("before_tool_call", "reader.py") != []
    assert rt.handlers("before_tool_call", "write") == []
    assert rt.call({"name": "cat"}, execute=lambda p: "x").status == "blocked"
    assert rt.call({"name": "write"}, execute=lambda p: "x").status == "ok"
    rt.unregister("reads")  # the per-tool cache is rebuilt, not left stale
    assert rt.call({"name": "cat"}, execute=lambda p: "x").status == "ok"
