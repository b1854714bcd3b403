"""The allow-list starter (for an agent in an auto-approve mode): its own corpus gets its
decisions, and no call of the deny-list's corpora that must not run is allowed under it (the
deny list's open bypasses included, but a folder read whole: DESIGN.md's path rules match the
paths named)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from toolhooks import Runtime

from .conftest import load_corpus, make_project, starter_policy

STATUS = {"allowed": "allow", "pending": "ask", "blocked": "deny"}
STILL_OPEN = {"open:folder", "open:case"}
"""Allowed under the allow list too: `grep -r TOKEN .` lists and reads the project, and path
rules match the paths a command names, not what a folder it names holds; `cat .ENV` reads
outside the secrets on a case-sensitive file system (the paths match case-sensitively)."""


@pytest.fixture(scope="module")
def rt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    home, root = make_project(tmp_path_factory.mktemp("allow-list"))
    (root / "toolhooks.toml").write_text(starter_policy("allow-list"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.delenv("TOOLHOOKS_CONFIG", raising=False)
        patch.chdir(root)
        with Runtime(config=root / "toolhooks.toml") as runtime:
            yield runtime


def decide(rt: Runtime, script: str) -> tuple[str, str]:
    outcome = rt.decide({"name": "exec", "params": {"command": script}})
    return STATUS[outcome.status], outcome.reason or ""


def test_the_allow_list_corpus_gets_its_decisions(rt: Runtime):
    cases = load_corpus("allow-list.toml")
    for decision in ("allow", "ask", "deny"):
        assert sum(1 for c in cases if c["expect"] == decision) >= 5, decision
    wrong = []
    for case in cases:
        got, reason = decide(rt, case["script"])
        if got != case["expect"]:
            wrong.append((case["script"], case["expect"], got, reason))
    assert wrong == []


def test_nothing_the_deny_list_stops_runs_under_the_allow_list(rt: Runtime):
    allowed = []
    count = 0
    for name in ("corpus.toml", "redteam.toml"):
        for case in load_corpus(name):
            expect = case["expect"]
            if expect in ("allow", "harmless") or expect in STILL_OPEN:
                continue
            count += 1
            if decide(rt, case["script"])[0] == "allow":
                allowed.append((name, expect, case["script"]))
    assert count >= 900
    assert allowed == []


def test_an_unknown_wrapper_asks_and_says_why(rt: Runtime):
    got, reason = decide(rt, "gosu root rm -rf x")
    assert got == "ask" and "no rule allows" in reason
