"""Issue #34: what the rules plugin costs a call, against tree-sitter alone and against no rules.

The policy is the deny-list starter policy (the package file the how-to includes, so the bench
times what the docs tell people to copy) plus one params rule (12 rules). Every runtime has the
built-in plugins with the event log and loop detection switched off (the same in every row), so
the differences are the rules plugin's.

Rows, interleaved in one run (bench/timing.py):

- tree-sitter parse + walk: parse a 150-200 character compound command with tree-sitter-bash and
  visit every node (the least any analysis does) -- the reference of the first target;
- rt.decide, exec, starter rules: the same command, a new one each call (a trailing comment makes
  every call a cache miss of the analysis and of the rules' per-path answers);
- rt.decide, exec, no rules: the same calls through a runtime without [[rules]];
- rt.decide, no command, starter rules / no rules: a web_search call (a query param), which no
  condition but params can hold.

Then the exec call with the rules alone, one call at a time (interleaved with the call without
rules), for its median and 99th percentile, three ways:

- **automatic gc** (the target's row): the garbage collector as a process has it, nothing forced.
  A collection runs inside the call that triggers it and counts in that call's time, as in a
  hook's daemon; this workload leaves no cyclic garbage, and a full collection comes when
  CPython's thresholds say (one in the row's 4,000 calls here, with 106 young collections).
- **gc paused, a full collection every 100 calls** (the method until December 7, kept to
  compare): the collections fall outside the timed calls, but each one leaves the next few calls
  slow (1-8 of them over 1 ms on this VM): 20 forced collections in 2,000 calls put 1-4 % of the
  calls in the tail, which no process pays as often (its own full collections are twenty times
  rarer). The same slowness follows any 2-50 ms of other work or of sleep: it is not the
  collection's (BENCHMARKS.md, issue #39).
- **paced**: each call after a 20 ms sleep, the way an agent calls between model turns: what a
  call costs once the caches and branch predictors hold other work. Not a target row, but a cost
  users pay; it is printed so that the warm rows hide nothing.

Targets (issue #39): the exec call with the starter policy at most 1 ms at the 99th percentile
and no slower than before at the median; the call with no command at most 5 us more than
without rules. (Issue #34's "2x tree-sitter parse + walk" is printed too.)

    python bench/rules.py [--rounds R] [--clock cpu|wall]
"""

from __future__ import annotations

import gc
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import timing
from rules_shell import COMMAND, bare_walk
from timing import compare, micro, paired_ratio
from toolhooks import Runtime

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

STARTER = Path(__file__).resolve().parents[1] / "plugins" / "rules" / "policies" / "deny-list.toml"
PARAMS_RULE = {
    "id": "no-internal-search",
    "tools": ["web_search"],
    "params": {"query": ["*internal.example.com*"]},
    "decision": "deny",
    "reason": "Internal host names stay out of web searches",
}
QUIET = {
    "plugins": {
        "event_log": {"enabled": False},
        "loop_detection": {"enabled": False},
    },
    "tools": {"profile": "full"},
}


def starter_rules() -> list[dict[str, Any]]:
    # Read as a file, not through toolhooks.plugins.rules.starter_policy: a tree from before the
    # policies were package files (a baseline run) times that tree's starter rules.
    text = STARTER.read_text(encoding="utf-8")
    return [*tomllib.loads(text)["rules"], PARAMS_RULE]


def percentiles(
    work: Any, reference: Any, calls: int, *, collect_every: int | None = None, pause: float = 0.0
) -> tuple[list[float], list[float]]:
    """Per-call times of ``work`` and ``reference``, one call each in turn, sorted.

    ``collect_every``: None leaves the automatic gc on (a collection it runs counts in the call
    that triggered it); N pauses it and collects every N calls, outside the timings (the method
    before). ``pause``: seconds of sleep before each call (an agent's model turn)."""
    ours: list[float] = []
    theirs: list[float] = []
    gc.collect()
    if collect_every is not None:
        gc.disable()
    try:
        for index in range(calls):
            for fn, into in ((work, ours), (reference, theirs)):
                if pause:
                    time.sleep(pause)
                start = timing.clock()
                fn()
                into.append(timing.clock() - start)
            if collect_every is not None and index % collect_every == collect_every - 1:
                gc.collect()
    finally:
        gc.enable()
    return sorted(ours), sorted(theirs)


def _p(times: list[float], share: float) -> float:
    return times[min(len(times) - 1, int(len(times) * share))]


def main() -> None:
    rounds = timing.rounds_and_clock(__doc__.split("\n\n")[0])
    rules = starter_rules()
    assert len(rules) >= 10, len(rules)  # the starter grows: the rows name the count
    project = tempfile.mkdtemp(prefix="toolhooks-bench-rules-")
    os.chdir(project)  # relative path patterns resolve against a folder of the bench's own
    with_rules = Runtime(config={**QUIET, "rules": rules})
    without = Runtime(config=QUIET)
    assert "rules" in {p.name for p in with_rules.plugins()}

    counter = itertools.count()
    exec_rules = f"rt.decide exec, {len(rules)} rules"
    plain_rules = f"rt.decide no command, {len(rules)} rules"

    def exec_call() -> dict[str, Any]:
        return {"name": "exec", "params": {"command": f"{COMMAND} # {next(counter)}"}}

    search = {"name": "web_search", "params": {"query": "pydantic strict mode"}}
    first = with_rules.decide(exec_call())
    # The command ends in `rm -rf ./dist`: the starter policy denies it, so every call is decided
    # by the whole rule set, not by the first rule that holds.
    assert first.status == "blocked" and first.blocked_by == "rules", first
    assert with_rules.decide(search).status == "allowed"
    source = COMMAND.encode()
    contenders = {
        "tree-sitter parse + walk": lambda: bare_walk(source),
        exec_rules: lambda: with_rules.decide(exec_call()),
        "rt.decide exec, no rules": lambda: without.decide(exec_call()),
        plain_rules: lambda: with_rules.decide(search),
        "rt.decide no command, no rules": lambda: without.decide(search),
    }
    timings = compare(contenders, rounds)
    ours, reference = contenders[exec_rules], contenders["rt.decide exec, no rules"]
    one_by_one = {
        "automatic gc": percentiles(ours, reference, 100 * rounds),
        "gc paused, a full collection every 100 calls (before)": percentiles(
            ours, reference, 100 * rounds, collect_every=100
        ),
        "paced: each call after a 20 ms sleep": percentiles(
            ours, reference, 10 * rounds, pause=0.02
        ),
    }
    with_rules.close()
    without.close()

    def added(label: str, reference: str) -> float:
        ours, theirs = timings[label].samples, timings[reference].samples
        return statistics.median(a - b for a, b in zip(ours, theirs, strict=True))

    print(f"command ({len(COMMAND)} chars): {COMMAND}")
    print(f"rules: {len(rules)} ({', '.join(rule['id'] for rule in rules)})\n")
    print("| row | per call |")
    print("|---|---|")
    for label, result in timings.items():
        print(f"| {label} | {micro(result.median)} |")
    exec_added = added(exec_rules, "rt.decide exec, no rules")
    walk = timings["tree-sitter parse + walk"].median
    ratio = exec_added / walk
    whole = paired_ratio(timings, exec_rules, "tree-sitter parse + walk")
    print(
        f"\nexec call: the rules add {micro(exec_added)} = {ratio:.2f}x tree-sitter parse + walk "
        f"({'met' if ratio <= 2 else 'NOT met'}: <= 2x); the whole decide is {whole:.2f}x"
    )
    plain_added = added(plain_rules, "rt.decide no command, no rules")
    met = "met" if plain_added <= 5e-6 else "NOT met"
    print(f"no command: the rules add {micro(plain_added)} ({met}: <= 5 us)")
    for way, (alone, plain) in one_by_one.items():
        p99 = _p(alone, 0.99)
        print(
            f"exec call, {len(rules)} rules, {len(alone)} calls one at a time, {way}: p50 "
            f"{micro(_p(alone, 0.5))}, p99 {micro(p99)} ({'met' if p99 <= 1e-3 else 'NOT met'}: "
            f"<= 1 ms); without rules p50 {micro(_p(plain, 0.5))}, p99 {micro(_p(plain, 0.99))}"
        )


if __name__ == "__main__":
    main()
