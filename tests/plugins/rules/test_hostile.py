"""What a model may send to wear the rules down: paths with thousands of components against
patterns with several ``**``, long hosts against several ``*``, huge and many params, options
that may or may not take a value. Each finishes (no backtracking blow-up), and decides."""

from __future__ import annotations

from toolhooks import Runtime
from toolhooks.plugins.rules._globs import host_glob, path_globs


def test_path_and_host_globs_do_not_backtrack():
    globs = path_globs(["**/a/**/a/**/a/**/x"], project="/p", home="/h")
    long_path = "/" + "a/" * 5000 + "y"
    assert globs(long_path) is False  # a regex with three `.*` took 17 s at 400 components
    assert globs(long_path[:-1] + "x") is True
    hosts = host_glob(["*.*.*.*.x"])
    assert hosts("a." * 3000 + "y") is False and hosts("a." * 3000 + "x") is True


def test_path_globs_matching_answers_as_a_call_per_path():
    """``PathGlobs.matching`` (the rules' quick way over a subject's paths) keeps the paths a
    call per path keeps, in order, whether their answers were kept already or not."""
    globs = path_globs(["**/.env", "~/.ssh/**", "secrets"], project="/p", home="/h")
    paths = ["/p/.env", "/p/src/a.py", "/h/.ssh/id_rsa", "/p/x/secrets/k", "/p/.env.x", "/p/.env"]
    want = [p for p in paths if path_globs(["**/.env", "~/.ssh/**", "secrets"], project="/p",
                                               home="/h")(p)]  # fmt: skip
    assert want == ["/p/.env", "/h/.ssh/id_rsa", "/p/x/secrets/k", "/p/.env"]
    assert globs.matching(paths) == want  # nothing kept yet
    assert globs.matching(paths) == want  # every answer kept
    assert globs.matching([]) == []


def test_an_exec_call_with_very_many_options_is_decided():
    rule = {"id": "p", "command": ["git", "push"], "flags": ["-f"], "decision": "deny"}
    with Runtime(config={"rules": [rule], "plugins": {"only": ["rules"]}}) as rt:
        many = "git " + "-x " * 3000 + "push -f"
        decision = rt.decide({"name": "exec", "params": {"command": many}})
        # Every option may or may not take the next word: the prefix is read forward over
        # (position, words matched), so 3,000 options are no recursion and no blow-up.
        assert decision.status == "blocked" and "Blocked by rule 'p'" in decision.reason
        many = "git " + "-x " * 3000 + "status -f"
        assert rt.decide({"name": "exec", "params": {"command": many}}).status == "allowed"


def test_many_and_nested_params_are_bounded():
    rule = {"id": "s", "paths": [".env"], "decision": "deny"}
    with Runtime(config={"rules": [rule], "plugins": {"only": ["rules"]}}) as rt:
        # Past the strings read of one call, what is left unread could be any path: it asks.
        params = {"files": [f"docs/{i}.md" for i in range(20_000)] + [".env"]}
        assert rt.decide({"name": "write", "params": params}).status == "pending"
        params = {"files": [".env"] + [f"docs/{i}.md" for i in range(20_000)]}
        assert rt.decide({"name": "write", "params": params}).status == "blocked"
        nested = {"edits": [{"path": "a.txt"}, {"path": "config/.env"}]}
        assert rt.decide({"name": "edit", "params": nested}).status == "blocked"
