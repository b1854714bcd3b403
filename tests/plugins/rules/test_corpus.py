"""Issue #34's corpus: every command of corpus.toml through ``rt.decide`` under the deny-list
starter policy, with zero bypasses (a dangerous command allowed, or asked where it must be
denied) and zero false blocks (a benign one denied or asked)."""

from __future__ import annotations

from pathlib import Path

from toolhooks import Runtime
from toolhooks.testing import load_cases, run_case

from .conftest import howto_case_file, load_corpus

STATUS = {"allowed": "allow", "pending": "ask", "blocked": "deny"}


def corpus() -> list[tuple[int, str, str]]:
    entries = []
    for number, case in enumerate(load_corpus("corpus.toml")):
        assert case["expect"] in STATUS.values(), f"corpus.toml: case {number}: {case!r}"
        entries.append((number, case["expect"], case["script"]))
    return entries


def test_the_corpus_is_big_enough_and_covers_each_decision():
    entries = corpus()
    assert len(entries) >= 265  # as many as corpus.txt held before it became corpus.toml
    for decision in ("allow", "ask", "deny"):
        assert sum(1 for _, expect, _ in entries if expect == decision) >= 10, decision


def test_every_command_gets_its_decision(starter: Path):
    rt = Runtime(config=starter)
    wrong = []
    try:
        for number, expect, command in corpus():
            decision = rt.decide({"name": "exec", "params": {"command": command}})
            got = STATUS.get(decision.status, decision.status)
            if got != expect:
                kind = "bypass" if _rank(got) < _rank(expect) else "false block"
                wrong.append(
                    f"corpus.toml: case {number}: {kind}: {command!r}: {expect} expected, "
                    f"got {got} ({decision.reason})"
                )
    finally:
        rt.close()
    assert wrong == [], "\n".join(wrong)


def test_a_block_reason_names_the_rule_and_what_matched(starter: Path):
    with Runtime(config=starter) as rt:
        denied = rt.decide({"name": "exec", "params": {"command": "ls && sudo rm -fr src"}})
        assert denied.status == "blocked" and denied.blocked_by == "rules"
        assert "'no-recursive-delete'" in denied.reason and "rm -fr src" in denied.reason
        secret = rt.decide({"name": "exec", "params": {"command": "cat notes/../.env"}})
        assert "'no-secrets'" in secret.reason and str(starter.parent / ".env") in secret.reason
        host = rt.decide({"name": "exec", "params": {"command": "curl https://evil.example/x"}})
        assert "'egress-commands'" in host.reason and "host evil.example" in host.reason
        # The item outside the unless list is named, not the allow-listed one next to it.
        two = rt.decide(
            {"name": "exec", "params": {"command": "curl https://github.com https://evil.example"}}
        )
        assert "host evil.example" in two.reason and "host github.com" not in two.reason
        mixed = rt.decide({"name": "exec", "params": {"command": "rm -rf build/a src"}})
        assert f"path {starter.parent / 'src'}" in mixed.reason


def _rank(decision: str) -> int:
    return {"allow": 0, "ask": 1, "deny": 2}[decision]


def test_the_howtos_case_file_passes_under_its_starter_policy(starter: Path):
    cases = starter.parent / "rules.cases.toml"
    cases.write_text(howto_case_file())
    results = [run_case(case) for case in load_cases(cases)]
    assert len(results) == 4
    assert [r.problem for r in results] == [None] * 4
