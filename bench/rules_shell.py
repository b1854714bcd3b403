"""Issue #34: what the shell analysis costs against tree-sitter alone, in the same run.

A 150-200 character compound command (a list, a pipeline, wrappers, a substitution, quotes,
redirections). Contenders, interleaved (bench/timing.py):

- tree-sitter: parse the bytes (tree-sitter-bash), nothing more;
- tree-sitter + walk: parse, then visit every node of the tree and read its type and text
  (the least any walk over the tree does) -- the reference of the target;
- analysis: ``toolhooks.analysis`` uncached: parse, walk, words, wrappers, commands;
- analysis, cached: ``analyse_script`` as a rule calls it again for the same command.

Target (issue #34): the analysis at most 2x the parse-and-walk of tree-sitter alone.

    python bench/rules_shell.py [--rounds R] [--clock cpu|wall]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import timing
from timing import compare, micro, paired_ratio
from toolhooks.analysis import analyse_script
from toolhooks.analysis._analyse import uncached
from toolhooks.analysis._grammar import parse

COMMAND = (
    "git status --short | grep -v '^??' ; sudo -u deploy env NODE_ENV=production "
    'timeout 30 npm run build -- --prod > build.log 2>&1 && echo "done at $(date +%s)" '
    "|| rm -rf ./dist"
)
CWD, HOME = "/srv/app", "/home/agent"


def bare_walk(source: bytes) -> int:
    """Parse, then visit every node and read its type and text: the floor of any walk."""
    stack = [parse(source)]
    seen = 0
    while stack:
        node = stack.pop()
        seen += len(node.type) + len(node.text or b"")
        stack.extend(node.children)
    return seen


def main() -> None:
    rounds = timing.rounds_and_clock(__doc__.split("\n\n")[0])
    source = COMMAND.encode()
    script = analyse_script(COMMAND, cwd=CWD, home=HOME)
    assert script.opaque is None and len(script.commands) >= 8, script
    contenders = {
        "tree-sitter parse": lambda: parse(source),
        "tree-sitter parse + walk": lambda: bare_walk(source),
        "analysis (uncached)": lambda: uncached(COMMAND, cwd=CWD, home=HOME),
        "analysis (cached)": lambda: analyse_script(COMMAND, cwd=CWD, home=HOME),
    }
    timings = compare(contenders, rounds)
    print(f"command ({len(COMMAND)} chars): {COMMAND}")
    print(f"simple commands seen: {len(script.commands)}\n")
    print("| contender | per call | x parse + walk |")
    print("|---|---|---|")
    for label, result in timings.items():
        ratio = paired_ratio(timings, label, "tree-sitter parse + walk")
        print(f"| {label} | {micro(result.median)} | {ratio:.2f}x |")
    ratio = paired_ratio(timings, "analysis (uncached)", "tree-sitter parse + walk")
    verdict = "met" if ratio <= 2 else "NOT met"
    print(f"\ntarget: analysis <= 2x tree-sitter parse + walk: {ratio:.2f}x, {verdict}")


if __name__ == "__main__":
    main()
