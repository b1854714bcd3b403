"""One evaluation of a rule for both routes in: ``decide`` (the hook) and ``explain`` (``toolhooks
explain --call``) give every call of both corpora the same decision by the same hit; tools are
selected by the kit's name matcher, as the policy fence selects them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolhooks import Runtime

from .conftest import load_corpus, make_project, starter_policy

OTHER_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read", {"file_path": ".env"}),
    ("read", {"file_path": ".env.example"}),
    ("read", {"path": "link-to-ssh/id_rsa"}),
    ("write", {"file_path": "src/a.py", "content": "x"}),
    ("web_fetch", {"url": "https://evil.example/"}),
    ("web_fetch", {"url": "https://docs.python.org/3/"}),
    ("web_search", {"query": "pydantic strict mode"}),
    ("shell", {"command": "cat .env"}),
    ("apply_patch", {"input": "*** Begin Patch\n*** Update File: .env\n*** End Patch"}),
    ("exec", {"command": ["rm", "-rf", "src"]}),
    ("exec", {"command": 5}),
    ("exec", {}),
]


@pytest.fixture(scope="module")
def rt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    home, root = make_project(tmp_path_factory.mktemp("engine"))
    (root / "toolhooks.toml").write_text(starter_policy())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.delenv("TOOLHOOKS_CONFIG", raising=False)
        patch.chdir(root)
        with Runtime(config=root / "toolhooks.toml") as runtime:
            yield runtime


def every_call() -> list[tuple[str, dict[str, Any]]]:
    scripts = [c["script"] for name in ("corpus.toml", "redteam.toml") for c in load_corpus(name)]
    return [("exec", {"command": script}) for script in scripts] + OTHER_CALLS


def test_decide_and_explain_agree_on_every_call_of_the_corpora(rt: Runtime):
    plugin = rt.get_plugin("rules")
    rules = plugin.rules
    calls = every_call()
    assert len(calls) >= 1278 + len(OTHER_CALLS)
    disagree = []
    decided = set()
    for name, params in calls:
        ruling = rules.decide(name, params)
        shown = plugin.explain_call({"name": name, "params": params})
        by = None if ruling.hit is None else (ruling.hit.rule, ruling.hit.kind, ruling.hit.matched)
        explained = shown["by"] and (
            shown["by"]["rule"],
            shown["by"]["kind"],
            shown["by"]["matched"],
        )
        if (ruling.decision, by) != (shown["decision"], explained):
            disagree.append((name, params, ruling.decision, by, shown["decision"], explained))
        decided.add(ruling.decision)
        # explain shows each rule's verdict on each subject: a hit's rule is among the matched
        if ruling.hit is not None and ruling.hit.kind == "rule":
            verdicts = {(v["rule"], v["verdict"]) for v in shown["verdicts"]}
            assert (ruling.hit.rule, "matched") in verdicts, (name, params)
    assert disagree == []
    assert decided == {None, "allow", "ask", "deny"}


def test_decide_is_the_hooks_decision(rt: Runtime):
    """The hook is decide: rt.decide blocks, asks or lets through as the ruling says, except
    where protect_own_state (which runs before the rules) blocks or asks first."""
    rules = rt.get_plugin("rules").rules
    status = {"deny": "blocked", "ask": "pending", "allow": "allowed", None: "allowed"}
    for name, params in every_call()[::7]:
        ruling = rules.decide(name, params)
        got = rt.decide({"name": name, "params": params})
        if (got.reason or "").endswith("(protect_own_state)"):
            assert got.status in ("blocked", "pending"), params
        else:
            assert got.status == status[ruling.decision], params


def fence_and_rules(tmp_path: Path, entry: str, names: list[str]) -> tuple[set[str], set[str]]:
    rule = {"id": "fs", "tools": [entry], "params": {"x": "*"}, "decision": "deny"}
    config = {
        "tools": {"profile": "full", "deny": [entry]},
        "rules": [rule],
        "plugins": {"only": ["policy", "rules"]},
    }
    with Runtime(config=config) as rt:
        fence = rt.get_plugin("policy")
        fenced = {v.tool for v in fence.explain(tools=names) if not v.allowed}
        covered = {n for n in names if rt.get_plugin("rules").rules.for_tool(n).rules}
    return fenced, covered


@pytest.mark.parametrize("entry", ["fs_?*", "fs_[ab]*", "fs_*", "*_read", "bash", "fs_a"])
def test_a_tools_entry_selects_what_the_fence_selects(tmp_path: Path, entry: str):
    names = [
        "fs_?x",
        "fs_?",
        "fs_ax",
        "fs_a",
        "fs_[ab]x",
        "fs_bx",
        "fs_",
        "my_read",
        "exec",
        "bash",
    ]
    fenced, covered = fence_and_rules(tmp_path, entry, names)
    assert covered == fenced and covered, (entry, covered, fenced)


def test_a_question_mark_in_a_tools_entry_is_that_character(tmp_path: Path):
    _, covered = fence_and_rules(tmp_path, "fs_?*", ["fs_?x", "fs_ax", "fs_a"])
    assert covered == {"fs_?x"}


def test_the_architecture_page_names_files_and_functions_that_exist():
    """docs/architecture.md's rules section: every file it names exists and every function is
    where it says (a renamed function or a moved file fails here, not in a reader's head)."""
    import re

    from toolhooks.plugins.rules import _calls, _engine, _history, _match

    from .conftest import ROOT

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The rules plugin: where a command is decided", 1)[1]
    section = section.split("\n## ", 1)[0]
    files = set(re.findall(r"(?<![\w/])(?:plugins|core)/[\w/]+(?:\.py|/)", section))
    assert len(files) >= 6
    for name in files:
        assert (ROOT / name).exists(), name
    for owner, attribute in [
        (_engine.RuleSet, "decide"),
        (_engine.RuleSet, "explain"),
        (_engine.RuleSet, "_ruling"),
        (_engine, "evaluate"),
        (_calls, "call_facts"),
        (_match.Compiled, "holds"),
        (_match.Compiled, "every"),
        (_history.HistoryView, "check"),
    ]:
        assert callable(getattr(owner, attribute)), attribute
        assert attribute in section, attribute


def test_verdict_and_rule_each_name_one_class_across_the_package():
    """One word per concept: the pipeline's Verdict and rules import's Rule; the rules plugin's
    own are a Ruling and a CompiledRule."""
    import ast

    from .conftest import ROOT

    defined: dict[str, list[str]] = {"Verdict": [], "Rule": []}
    for folder in ("core", "plugins"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and node.name in defined:
                    defined[node.name].append(str(path.relative_to(ROOT)))
    assert defined == {
        "Verdict": ["core/pipeline/_verdict.py"],
        "Rule": ["core/cli/_rules_import.py"],
    }
