"""Bounded, and always answered (issue #39 item 1, DESIGN.md): hostile inputs through
``rt.decide`` under the starter policy, each in a child process with a memory limit (256 MiB of
address space) and a deadline. No input may crash or kill the process, take more than a second
of the decision's CPU time, or be allowed: past any bound of the analysis the script is opaque,
and gets the opaque decision ("ask" under the starter policy) or a rule's deny. Listed in
RELIABILITY.md."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MEMORY = 256 * 1024 * 1024
DEADLINE_S = 60
"""The child's whole life (start, imports, the runtime, the decision) on a loaded machine; the
decision itself is held to a second of CPU time below."""

CHILD = textwrap.dedent(
    """
    import json, os, resource, sys, time
    from pathlib import Path

    project = Path(sys.argv[1])
    script = Path(sys.argv[2]).read_text()
    os.chdir(project)
    os.environ["HOME"] = str(project / "home")
    from toolhooks import Runtime
    from toolhooks.plugins import rules

    (project / "toolhooks.toml").write_text(rules.starter_policy())
    rt = Runtime(config=project / "toolhooks.toml")
    rt.decide({"name": "exec", "params": {"command": "ls"}})  # everything imported
    limit = int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    started = time.process_time()
    decision = rt.decide({"name": "exec", "params": {"command": script}})
    spent = time.process_time() - started
    print(json.dumps({"status": decision.status, "cpu": spent, "reason": decision.reason}))
    """
)


def _doubled(times: int) -> str:
    return "x=ab; " + "x=$x$x; " * times + "echo $x"


def _self_links(project: Path) -> str:
    loops = project / "loops"
    loops.mkdir()
    for name in "abcdefghijklmnop":
        (loops / name).symlink_to(".")
    return "rm -rf loops/" + "*/" * 12 + "missing.txt"


HOSTILE = {
    "a variable doubled 40 times": lambda p: _doubled(40),
    "a variable doubled 40 times in a loop's word": lambda p: _doubled(40).replace(
        "echo $x", "for f in $x $x; do rm -rf $f; done"
    ),
    "a variable doubled into many variables": lambda p: (
        "x=" + "a" * 60_000 + "; " + " ".join(f"y{i}=$x$x" for i in range(800))
    ),
    "a glob over self-links": _self_links,
    "a glob under a link to its parent": lambda p: (
        (p / "up").symlink_to(p) or "rm -rf up/" + "*/" * 20 + "nothing"
    ),
    "deep nesting": lambda p: "echo " + "$(" * 2000 + "rm -rf /" + ")" * 2000,
    "deep subshells": lambda p: "(" * 5000 + "rm -rf /" + ")" * 5000,
    "a huge brace product": lambda p: "echo " + "{a,b,c,d}" * 40,
    "many brace words": lambda p: "rm -rf " + " ".join(["{1..200}"] * 400),
    "100k commands": lambda p: ":;" * 50_000,
    "100k commands with paths": lambda p: "cat a;" * 16_000 + "rm -rf /",
    "a long word": lambda p: "echo " + "a" * 99_000,
    "a script over the size bound": lambda p: "echo " + "a" * 200_000,
    "nested functions called in loops": lambda p: (
        "f0() { rm -rf x; }; "
        + " ".join(f"f{i}() {{ f{i - 1}; f{i - 1}; }};" for i in range(1, 30))
        + " f29"
    ),
    "a loop over a doubled variable": lambda p: _doubled(30) + "; for a in $x; do cd $a; done",
    "curl globs": lambda p: "curl 'https://x.example/" + "[1-99]" * 10 + "'",
    "many cd targets": lambda p: (
        "; ".join(f"cd d{i} || cd e{i}" for i in range(3000)) + "; cat .env"
    ),
}


HARMLESS = frozenset({"a long word"})
"""Inputs within every bound that run nothing a rule names: the policy's answer is allow."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_script_is_answered_within_its_bounds(project: Path, name: str):
    script = HOSTILE[name](project)
    source = project / "script.sh"
    source.write_text(script)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(project), str(source), str(MEMORY)],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    if name not in HARMLESS:
        assert answer["status"] in ("pending", "blocked"), answer
    # a bound answered, not the memory limit (a MemoryError is read as opaque too, but a hook
    # without the limit would have been killed first)
    assert "MemoryError" not in (answer["reason"] or ""), answer
    assert answer["cpu"] < 1.0, answer


def test_a_glob_goes_through_a_link_into_its_own_folder_once_never_round_a_loop(tmp_path: Path):
    from toolhooks.analysis._limits import Budget
    from toolhooks.analysis._words import glob_matches

    (tmp_path / ".env").write_text("x")
    (tmp_path / "up").symlink_to(".")
    found = glob_matches("*/.e*", [str(tmp_path)], Budget())
    assert found == (f"{tmp_path}/up/.env",)  # bash's match, through the link
    deep = glob_matches("*/" * 30 + ".env", [str(tmp_path)], Budget())
    assert deep == ()  # up/up/...: round the loop, never followed
